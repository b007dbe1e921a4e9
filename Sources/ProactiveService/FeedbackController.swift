import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - What the user said about suggestions: taps, "not now", "never"

/// What the user said about suggestions: taps, "not now", "never".
/// The handler reads the events, records them through the Runtime and encodes its answer.
struct FeedbackController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("feedback", use: postFeedback)
    }

    /// `POST /v1/feedback?user=U`: feedback events, one JSON object, an array,
    /// or JSON Lines (the `feedback import` format). All are checked first: one
    /// bad event is a 400 naming its line and field, and nothing is recorded.
    /// Owner only, as `feedback` is.
    @Sendable func postFeedback(_ request: Request, _ context: ServiceRequestContext) async throws -> FeedbackAnswer {
        try context.requireOwner(to: "record feedback")
        let user = try RequestReading.user(request, allowing: ["user"])
        let body = try await BodyReading.collect(request, maxBody: service.configuration.maxBody)
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
        let recorded = try await service.runtime.recordFeedback(events, user: user, as: service.engine(context))
        let donated = recorded.filter(\.donationStored)
        service.metrics.donationsStored.increment(by: donated.count)
        return FeedbackAnswer(user: user, recorded: recorded.count, donated: donated.count)
    }
}
