import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveRanking
import ProactiveService
import ProactiveStore
import Testing

/// The paths and methods of `openapi.yaml`, read from its `paths:` block
/// (two-space path keys, four-space method keys: the document's layout).
func documentedRoutes() throws -> Set<String> {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("openapi.yaml")
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    var routes = Set<String>()
    var inPaths = false
    var path: String?
    let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
    for line in lines {
        if line == "paths:" { inPaths = true; continue }
        guard inPaths else { continue }
        if !line.isEmpty, !line.hasPrefix(" ") { break }  // the next top-level key
        if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
            path = String(line.dropFirst(2).dropLast())
        } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                  let path, methods.contains(String(line.dropFirst(4).dropLast())) {
            routes.insert(line.dropFirst(4).dropLast().uppercased() + " " + path)
        }
    }
    return routes
}

@Suite("Service: the OpenAPI document")
struct OpenAPIDocumentTests {
    @Test("every route the server registers is in openapi.yaml, and every documented one is served")
    func routesMatchTheDocument() async throws {
        let documented = try documentedRoutes()
        let fixture = try ServiceFixture()
        // What the router serves, read from the router itself.
        let routes = fixture.service.router().routes.map { (method: $0.method, path: $0.path.description) }
        let listed = Set(routes.map { "\($0.method) \($0.path)" })
        #expect(documented.count >= 7)
        #expect(listed == documented)
        // Each route answers something other than 404 with the owner's credential, and an undocumented one is 404.
        try await fixture.test { client async throws in
            for (method, path) in routes {
                let answer = try await client.send(method, samplePath(path), credential: fixture.owner)
                #expect(answer.status != .notFound || answer.json?.string("error", "code") == "no_donations", "\(method) \(path)")
            }
            #expect(try await client.send(.get, "/v1/nothing-here", credential: fixture.owner).status == .notFound)
            #expect(try await client.send(.put, "/v1/donations", credential: fixture.owner).status != .ok)
        }
    }
}

extension TestClient {
    /// Sends, for each route ("METHOD /path", in order), the request `table` holds for it with
    /// `credential`, and hands the route and the answer to `check`. A route missing from `table` fails.
    func sendEach(_ routes: Set<String>, from table: [String: (uri: String, body: String?)], credential: String,
                  check: (String, (status: HTTPResponse.Status, json: JSONValue?, text: String)) -> Void) async throws {
        for route in routes.sorted() {
            let request = try #require(table[route], "\(route)")
            let method = try #require(HTTPRequest.Method(String(route.split(separator: " ")[0])))
            check(route, try await send(method, request.uri, credential: credential, body: request.body))
        }
    }
}

@Suite("Service: isolation")
struct IsolationTests {
    /// For each documented route, a request with coffee's credential aimed at
    /// weather's data (or at an owner-only route). A route in openapi.yaml
    /// without an entry here fails the test, so a new route cannot skip it.
    static let foreignRequests: [String: (uri: String, body: String?)] = [
        "GET /metrics": ("/metrics", nil),
        "POST /v1/donations": ("/v1/donations", donationLine(app: "com.example.weather", intent: "CheckWeatherIntent", identifier: "w2")),
        "DELETE /v1/donations": ("/v1/donations?app=com.example.weather&identifier=w1", nil),
        "POST /v1/predict": ("/v1/predict", #"{"user": "me"}"#),
        "POST /v1/suggestions": ("/v1/suggestions", #"{"user": "me"}"#),
        "POST /v1/stack": ("/v1/stack", #"{"user": "me", "widgets": ["weather"]}"#),
        "GET /v1/stats": ("/v1/stats?app=com.example.weather", nil),
        "PUT /v1/apps/{app}/shortcuts": ("/v1/apps/com.example.weather/shortcuts?user=me", #"{"shortcuts": []}"#),
        "PUT /v1/timelines": ("/v1/timelines?user=me",
                              #"[{"app": "com.example.weather", "widgetKind": "forecast", "entries": [{"date": "2026-11-20T00:00:00Z", "score": 1}]}]"#),
        "POST /v1/feedback": ("/v1/feedback?user=me", #"{"date": "2026-11-20T09:31:00Z", "kind": "never", "app": "com.example.weather"}"#),
        "GET /v1/focus": ("/v1/focus", nil),
        "PUT /v1/focus": ("/v1/focus", #"{"focus": "work"}"#),
        "GET /v1/definitions": ("/v1/definitions", nil),
        "GET /v1/apps/{app}/focus-filter": ("/v1/apps/com.example.weather/focus-filter", nil),
        "PUT /v1/apps/{app}/focus-filter": ("/v1/apps/com.example.weather/focus-filter", weatherFilter),
        "PATCH /v1/apps/{app}/focus-filter/{focus}": ("/v1/apps/com.example.weather/focus-filter/work", #"{"set": {"units": "metric"}}"#),
        "POST /v1/notifications": ("/v1/notifications", #"{"app": "com.example.weather", "criteria": {"units": "imperial"}}"#),
        "GET /v1/focus/people": ("/v1/focus/people?user=me", nil),
        "DELETE /v1/users": ("/v1/users?user=me&app=com.example.weather", nil),
        "GET /v1/users/{user}/timezone": ("/v1/users/me/timezone", nil),
    ]

    static let weatherFilter = #"{"app": "com.example.weather", "title": "Units", "parameters": [{"name": "units", "type": "string", "matches": "units"}]}"#

    /// What another app could change: donations, declarations, feedback, Focus changes, saved models.
    static func fingerprint(_ fixture: ServiceFixture) throws -> [Int] {
        let declarations = SQLiteDeclarationStore(database: fixture.database)
        return [try fixture.storedCount(), try declarations.shortcutSets(user: "me").count, try declarations.timelines(user: "me").count,
                try declarations.feedback(user: "me").count, try SQLiteFocusStore(database: fixture.database).changes().count,
                try Engine(database: fixture.database).savedModels().count,
                // The Focus filters: declarations and configured values.
                try SQLiteFocusStore(database: fixture.database).allFilters().map { $0.declaration + "\($0.values.sorted { $0.key < $1.key }.map { "\($0)" })" }
                    .joined().hashValue]
    }

    @Test("every documented route refuses another app's credential with 403 and changes nothing")
    func everyRouteIsIsolated() async throws {
        let documented = try documentedRoutes().subtracting(["GET /healthz", "GET /readyz"])
        #expect(Set(Self.foreignRequests.keys) == documented, "add the new route to foreignRequests")
        let fixture = try ServiceFixture()
        try SQLiteDonationStore(database: fixture.database).append(
            [try DonationLineCodec.decode(donationLine(app: "com.example.weather", intent: "CheckWeatherIntent", identifier: "w1"))],
            duplicates: .fail)
        // weather's own filter, configured in work: a foreign PUT or PATCH would change it.
        let engine = Engine(database: fixture.database)
        _ = try engine.declareFocusFilter(try FocusFilter.parse(Self.weatherFilter))
        _ = try engine.configureFocusFilter(app: "com.example.weather", focus: "work", set: [("units", "imperial")], unset: [])
        let before = try Self.fingerprint(fixture)
        try await fixture.test { client async throws in
            try await client.sendEach(documented, from: Self.foreignRequests, credential: fixture.coffee) { route, answer in
                #expect(answer.status == .forbidden, "\(route)")
                #expect(answer.json?.string("error", "code") == "forbidden", "\(route)")
            }
        }
        #expect(try Self.fingerprint(fixture) == before)
    }
}

@Suite("Service: closed request bodies")
struct ClosedRequestBodyTests {
    /// For each documented route with a request body, a body the owner may send
    /// plus a field no schema defines. openapi.yaml declares these bodies with
    /// `additionalProperties: false` (docs/API.md); a route without an entry
    /// here fails the test.
    static let bodiesWithUnknownField: [String: (uri: String, body: String?)] = [
        "POST /v1/donations": ("/v1/donations", #"{"app": "com.example.coffee", "intent": "OrderCoffeeIntent", "date": "2026-11-20T07:00:00Z", "bogus": 1}"#),
        "POST /v1/predict": ("/v1/predict", #"{"user": "me", "bogus": 1}"#),
        "POST /v1/suggestions": ("/v1/suggestions", #"{"user": "me", "developer": true, "bogus": 1}"#),
        "POST /v1/stack": ("/v1/stack", #"{"user": "me", "widgets": ["weather"], "bogus": 1}"#),
        "PUT /v1/apps/{app}/shortcuts": ("/v1/apps/com.example.weather/shortcuts?user=me", #"{"shortcuts": [], "bogus": 1}"#),
        "PUT /v1/timelines": ("/v1/timelines?user=me",
                              #"[{"app": "com.example.weather", "widgetKind": "forecast", "entries": [{"date": "2026-11-20T00:00:00Z", "score": 1}], "bogus": 1}]"#),
        "POST /v1/feedback": ("/v1/feedback?user=me", #"{"date": "2026-11-20T09:31:00Z", "kind": "never", "app": "com.example.weather", "bogus": 1}"#),
        "PUT /v1/focus": ("/v1/focus", #"{"focus": "work", "bogus": 1}"#),
        "PUT /v1/apps/{app}/focus-filter": ("/v1/apps/com.example.weather/focus-filter",
                                            #"{"title": "Units", "parameters": [{"name": "units", "type": "string", "matches": "units"}], "bogus": 1}"#),
        "PATCH /v1/apps/{app}/focus-filter/{focus}": ("/v1/apps/com.example.weather/focus-filter/work", #"{"set": {"units": "metric"}, "bogus": 1}"#),
        "POST /v1/notifications": ("/v1/notifications", #"{"app": "com.example.weather", "bogus": 1}"#),
    ]

    @Test("every request body refuses a field it does not define: 400 naming it, nothing stored")
    func unknownFieldsAreRefused() async throws {
        let withBodies = try documentedRoutes().filter { ["POST", "PUT", "PATCH"].contains($0.split(separator: " ")[0]) }
        #expect(Set(Self.bodiesWithUnknownField.keys) == withBodies, "add the new route to bodiesWithUnknownField")
        let fixture = try ServiceFixture()
        _ = try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
        }
        let before = try IsolationTests.fingerprint(fixture)
        try await fixture.test { client async throws in
            try await client.sendEach(withBodies, from: Self.bodiesWithUnknownField, credential: fixture.owner) { route, answer in
                #expect(answer.status == .badRequest, "\(route): \(answer.text)")
                #expect(answer.json?.string("error", "field")?.hasSuffix("bogus") == true, "\(route): \(answer.text)")
            }
            // A Focus filter's parameters and options are closed too (the parser alone ignores what it does not read).
            let misspelled = #"{"title": "Units", "parameters": [{"name": "units", "type": "entity", "options": [{"id": "metric", "dispaly": "Metric"}]}]}"#
            let answer = try await client.send(.put, "/v1/apps/com.example.weather/focus-filter", credential: fixture.owner, body: misspelled)
            #expect(answer.status == .badRequest)
            #expect(answer.json?.string("error", "field") == "parameters[0].options[0].dispaly", "\(answer.text)")
        }
        #expect(try IsolationTests.fingerprint(fixture) == before)
    }
}
