// A scripted session through the client swift-openapi-generator makes from openapi.yaml:
// donate a batch, predict, suggest with `developer`, put timelines, post feedback, delete,
// stats, and a 404 read as `ApiError`. Each step checks its status and a few fields; the
// first failure exits 1 naming the step (scripts/client-check.sh --swift runs it).
//
// Usage: PROACTIVE_CREDENTIAL=... ProactiveClientSession PORT DONATIONS.jsonl
import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// Adds `Authorization: Bearer CREDENTIAL` to every request.
struct BearerMiddleware: ClientMiddleware {
    var credential: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(credential)"
        return try await next(request, body, baseURL)
    }
}

struct SessionFailure: Error, CustomStringConvertible {
    var description: String
}

func check(_ step: String, _ condition: Bool, _ detail: @autoclosure () -> String) throws {
    if !condition { throw SessionFailure(description: "\(step): \(detail())") }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let credential = ProcessInfo.processInfo.environment["PROACTIVE_CREDENTIAL"] else {
    FileHandle.standardError.write(Data("usage: PROACTIVE_CREDENTIAL=... ProactiveClientSession PORT DONATIONS.jsonl\n".utf8))
    exit(2)
}
let client = Client(serverURL: try Servers.Server1.url(port: arguments[1]), transport: URLSessionTransport(),
                    middlewares: [BearerMiddleware(credential: credential)])
let user = "me"
let at = "2026-11-20T07:30:00-08:00"
let atDate = Date(timeIntervalSince1970: 1_795_188_600)  // 2026-11-20T07:30:00-08:00

do {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let batch = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n")
        .map { try decoder.decode(Components.Schemas.Donation.self, from: Data($0.utf8)) }

    guard case let .ok(donated) = try await client.donate(body: .json(.case2(batch))) else { throw SessionFailure(description: "donate a batch: not 200") }
    let result = try donated.body.json
    try check("donate a batch", result.stored == batch.count && result.rejected == 0, "stored \(result.stored) of \(batch.count)")
    print("donate: a batch of \(batch.count) stored")

    guard case let .ok(predicted) = try await client.predict(body: .json(.init(user: user, at: at, k: 3))) else {
        throw SessionFailure(description: "predict: not 200")
    }
    let prediction = try predicted.body.json
    try check("predict", (1...3).contains(prediction.suggestions.count), "\(prediction.suggestions.count) suggestions")
    print("predict: \(prediction.suggestions[0].target) first")

    guard case let .ok(suggested) = try await client.suggest(body: .json(.init(user: user, at: at, k: 8, developer: true))) else {
        throw SessionFailure(description: "suggest (developer): not 200")
    }
    let suggestions = try suggested.body.json.suggestions
    try check("suggest (developer)", !suggestions.isEmpty, "no suggestion")
    print("suggest: \(suggestions.count) with developer")

    let timeline = Components.Schemas.WidgetTimeline(app: "com.example.bank", widgetKind: "recentPurchases", entries: [
        .init(date: .case1(atDate), score: 0),
        .init(date: .case2(atDate.timeIntervalSince1970 + 3600), score: 52.6, duration: 1800),
    ])
    guard case let .ok(replaced) = try await client.putTimelines(query: .init(user: user), body: .json(.case2([timeline]))) else {
        throw SessionFailure(description: "put timelines: not 200")
    }
    let widgets = try replaced.body.json.widgets.map { "\($0.widget) \($0.entries)" }
    try check("put timelines", widgets == ["com.example.bank/recentPurchases 2"], "\(widgets)")

    let never = Components.Schemas.FeedbackEvent(date: .case2(atDate.timeIntervalSince1970 + 60), kind: .never, app: "com.example.news")
    guard case let .ok(recorded) = try await client.postFeedback(query: .init(user: user), body: .json(.case2([never]))) else {
        throw SessionFailure(description: "post feedback: not 200")
    }
    try check("post feedback", try recorded.body.json.recorded == 1, "not 1 event recorded")

    guard let first = batch.first, let identifier = first.identifier else { throw SessionFailure(description: "delete: the first donation has no identifier") }
    guard case let .ok(deleted) = try await client.deleteDonations(query: .init(identifier: [identifier], app: first.app)) else {
        throw SessionFailure(description: "delete: not 200")
    }
    try check("delete", try deleted.body.json.deleted == 1, "not 1 deleted")

    guard case let .ok(counted) = try await client.stats(query: .init(user: user)) else { throw SessionFailure(description: "stats: not 200") }
    let rows = try counted.body.json.rows
    try check("stats", rows == batch.count - 1, "\(rows) rows, expected \(batch.count - 1)")
    print("stats: \(rows) rows after the delete")

    guard case let .notFound(missing) = try await client.predict(body: .json(.init(user: "nobody"))) else {
        throw SessionFailure(description: "predict for nobody: not 404")
    }
    try check("predict for nobody", try missing.body.json.error.code == "no_donations", "not no_donations")
    print("swift client session passed")
} catch {
    FileHandle.standardError.write(Data("FAILED: \(error)\n".utf8))
    exit(1)
}
