import Foundation
import Hummingbird
import HummingbirdTesting
import ProactiveService
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
        let listed = Set(ProactiveService.routes.map { "\($0.method) \($0.path)" })
        #expect(documented.count >= 7)
        #expect(listed == documented)
        // The list is what the router serves: each route answers something other than 404 with the owner's credential,
        // and an undocumented one is 404.
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            for (method, path) in ProactiveService.routes {
                let answer = try await client.send(HTTPRequest.Method(method)!, path, credential: fixture.owner)
                #expect(answer.status != .notFound || answer.json?.string("error", "code") == "no_donations", "\(method) \(path)")
            }
            #expect(try await client.send(.get, "/v1/nothing-here", credential: fixture.owner).status == .notFound)
            #expect(try await client.send(.put, "/v1/donations", credential: fixture.owner).status != .ok)
        }
    }

    @Test("an app credential on an owner-only route is a 403 and changes nothing")
    func ownerOnlyRoutes() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            for (method, path) in [("GET", "/metrics"), ("POST", "/v1/predict"), ("POST", "/v1/suggestions")] {
                let answer = try await client.send(HTTPRequest.Method(method)!, path, credential: fixture.coffee)
                #expect(answer.status == .forbidden, "\(method) \(path)")
                #expect(answer.json?.string("error", "code") == "forbidden")
            }
        }
        #expect(try fixture.storedCount() == 0)
    }
}
