import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime

// MARK: - Feedback, Focus and intent definitions

extension ProactiveService {
    /// `POST /v1/feedback?user=U`: feedback events, one JSON object, an array,
    /// or JSON Lines (the `feedback import` format). All are checked first: one
    /// bad event is a 400 naming its line and field, and nothing is recorded.
    /// Owner only, as `feedback` is.
    func postFeedback(_ request: Request, _ context: ServiceRequestContext) async throws -> FeedbackAnswer {
        try context.requireOwner(to: "record feedback")
        let user = try Self.user(request, allowing: ["user"])
        let body = try await BodyReading.collect(request, maxBody: configuration.maxBody)
        var items: [(line: Int, json: JSONValue)] = []
        let contentType = request.headers[.contentType]?.lowercased() ?? "application/json"
        if contentType.hasPrefix("application/x-ndjson") || contentType.hasPrefix("application/jsonl") {
            for (index, line) in String(buffer: body).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                do { items.append((index + 1, try JSONParser.parse(String(line)))) } catch {
                    throw APIError(.badRequest, "invalid_json", error.description, line: index + 1)
                }
            }
        } else {
            switch try BodyReading.json(body) {
            case let .array(elements): items = elements.enumerated().map { ($0.offset + 1, $0.element) }
            case let single: items = [(1, single)]
            }
        }
        guard !items.isEmpty else { throw APIError.badRequest("no feedback event in the body") }
        var events: [FeedbackEvent] = []
        for item in items {
            do { events.append(try FeedbackCodec.decode(item.json)) } catch {
                throw APIError.badRequest(error.reason, field: error.path.isEmpty ? nil : error.path, line: item.line)
            }
        }
        let recorded = try await runtime.recordFeedback(events, user: user, as: engine(context))
        let donated = recorded.filter(\.donationStored)
        metrics.donationsStored.increment(by: donated.count)
        return FeedbackAnswer(user: user, recorded: recorded.count, donated: donated.count)
    }

    // MARK: Focus

    /// `GET /v1/focus?at=DATE`: the Focus on and what each app's Focus filter applies (owner only, as `focus status`).
    func getFocus(_ request: Request, _ context: ServiceRequestContext) throws -> FocusStatusAnswer {
        try context.requireOwner(to: "read the Focus status")
        let date = try Self.instant(request)
        return try focusStatus(at: date)
    }

    /// `PUT /v1/focus`: `{"focus": "work"}` turns a Focus on by hand, `{"focus": null}`
    /// turns Focus off, until the next schedule boundary; `"at"` (default now) says when.
    /// Owner only, as `focus set`. Held models are dropped: their Focus timeline changed.
    func putFocus(_ request: Request, _ context: ServiceRequestContext) async throws -> FocusStatusAnswer {
        try context.requireOwner(to: "set the Focus")
        _ = try Self.user(request, allowing: [])
        let change = try await request.decode(as: FocusChange.self, context: context)
        let date = change.at ?? Date()
        try await runtime.recordFocusChange(change.focus, at: date, as: engine(context))
        return try focusStatus(at: date)
    }

    func focusStatus(at date: Date) throws -> FocusStatusAnswer {
        let status = try Engine(storage: storage).focusStatus(at: date)
        let apps = status.apps.map { app in
            FocusStatusAnswer.App(app: app.app, values: .object(app.values.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }),
                                  configured: app.configured, predicate: app.predicate?.description, badge: app.badge)
        }
        return FocusStatusAnswer(at: Instant(date: date), focus: status.state.focus, until: status.state.until.map { Instant(date: $0) }, apps: apps)
    }

    // MARK: Definitions

    /// `GET /v1/definitions`: the stored intent definitions (owner only, as `definitions list`).
    func getDefinitions(_ request: Request, _ context: ServiceRequestContext) throws -> DefinitionsAnswer {
        try context.requireOwner(to: "list intent definitions")
        _ = try Self.user(request, allowing: [])
        return DefinitionsAnswer(definitions: try engine(context).definitions().definitions.map(\.intentJSON))
    }

    /// The `at` query parameter, or now.
    static func instant(_ request: Request) throws -> Date {
        _ = try user(request, allowing: ["at"])
        return try request.uri.queryParameters.get("at").map { try BodyReading.date($0, field: "at") } ?? Date()
    }
}
