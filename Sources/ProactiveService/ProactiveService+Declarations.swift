import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime

// MARK: - Relevant shortcuts and widget timelines

extension ProactiveService {
    /// `PUT /v1/apps/{app}/shortcuts?user=U`: replaces the app's relevant
    /// shortcuts for the user (the body is a `shortcuts set` file: the set
    /// object, or its `shortcuts` array; `[]` withdraws them all).
    func putShortcuts(_ request: Request, _ context: ServiceRequestContext) async throws -> ShortcutsAnswer {
        let app = try Self.pathParameter(context, "app")
        let user = try Self.user(request, allowing: ["user", "at"])
        let text = try await Self.bodyText(request, maxBody: configuration.maxBody)
        let date = try request.uri.queryParameters.get("at").map { try BodyReading.date($0, field: "at", user: user, engine: engine(context)) } ?? Date()
        let set: RelevantShortcutSet
        do { set = try RelevantShortcutCodec.decode(text, app: app, declaredAt: date) } catch {
            throw APIError.badRequest(error.reason, field: error.path.isEmpty ? nil : error.path, line: error.line)
        }
        guard set.app == app else {
            throw APIError.badRequest("the body declares \(set.app)'s shortcuts, the path \(app)'s", field: "app")
        }
        try await runtime.declareShortcuts(set, user: user, as: engine(context))
        return ShortcutsAnswer(app: app, user: user, shortcuts: set.shortcuts.count)
    }

    /// `PUT /v1/timelines?user=U`: replaces the timelines of the widgets in
    /// the body (a `timeline set` file); every widget must be the credential's app's.
    func putTimelines(_ request: Request, _ context: ServiceRequestContext) async throws -> TimelinesAnswer {
        let user = try Self.user(request, allowing: ["user"])
        let text = try await Self.bodyText(request, maxBody: configuration.maxBody)
        let timelines: [WidgetTimeline]
        do { timelines = try WidgetTimelineCodec.decode(text) } catch {
            throw APIError.badRequest(error.reason, field: error.path.isEmpty ? nil : error.path, line: error.line)
        }
        try await runtime.replaceTimelines(timelines, user: user, as: engine(context))
        return TimelinesAnswer(user: user, widgets: timelines.map { TimelinesAnswer.Widget(widget: $0.widget.key, entries: $0.entries.count) })
    }

    // MARK: Pieces

    /// The `user` query parameter (default `Donation.defaultUser`); other parameters than `allowing` are refused.
    static func user(_ request: Request, allowing known: Set<String>) throws -> String {
        let query = request.uri.queryParameters
        if let unknown = query.first(where: { !known.contains(String($0.key)) }) {
            throw APIError.badRequest("unknown query parameter \"\(unknown.key)\"", field: String(unknown.key))
        }
        try checkNames(request)
        return query.get("user") ?? Donation.defaultUser
    }

    static func bodyText(_ request: Request, maxBody: Int) async throws -> String {
        let body = try await BodyReading.collect(request, maxBody: maxBody)
        guard let text = body.getString(at: body.readerIndex, length: body.readableBytes), !text.isEmpty else {
            throw APIError.badRequest("the body is empty or not UTF-8")
        }
        return text
    }
}
