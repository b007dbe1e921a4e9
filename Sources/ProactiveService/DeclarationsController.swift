import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - What apps declare besides donations (relevant shortcuts, widget timelines) and the intent definitions

/// What apps declare besides donations (relevant shortcuts, widget timelines) and the intent definitions.
/// Each handler reads the request, makes one Runtime or Engine call and encodes its answer.
struct DeclarationsController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .put("apps/{app}/shortcuts", use: putShortcuts)
            .put("timelines", use: putTimelines)
            .get("definitions", use: getDefinitions)
    }

    /// `PUT /v1/apps/{app}/shortcuts?user=U`: replaces the app's relevant
    /// shortcuts for the user (the body is a `shortcuts set` file: the set
    /// object, or its `shortcuts` array; `[]` withdraws them all).
    @Sendable func putShortcuts(_ request: Request, _ context: ServiceRequestContext) async throws -> ShortcutsAnswer {
        let app = try RequestReading.pathParameter(context, "app")
        let user = try RequestReading.user(request, allowing: ["user", "at"])
        let text = try await RequestReading.bodyText(request, maxBody: service.configuration.maxBody)
        let date = try request.uri.queryParameters.get("at").map { try BodyReading.date($0, field: "at", user: user, engine: service.engine(context)) } ?? Date()
        let set: RelevantShortcutSet
        do { set = try RelevantShortcutCodec.decode(text, app: app, declaredAt: date) } catch {
            throw APIError.badRequest(error.reason, field: error.path.isEmpty ? nil : error.path, line: error.line)
        }
        guard set.app == app else {
            throw APIError.badRequest("the body declares \(set.app)'s shortcuts, the path \(app)'s", field: "app")
        }
        try await service.runtime.declareShortcuts(set, user: user, as: service.engine(context))
        return ShortcutsAnswer(app: app, user: user, shortcuts: set.shortcuts.count)
    }

    /// `PUT /v1/timelines?user=U`: replaces the timelines of the widgets in
    /// the body (a `timeline set` file); every widget must be the credential's app's.
    @Sendable func putTimelines(_ request: Request, _ context: ServiceRequestContext) async throws -> TimelinesAnswer {
        let user = try RequestReading.user(request, allowing: ["user"])
        let text = try await RequestReading.bodyText(request, maxBody: service.configuration.maxBody)
        let timelines: [WidgetTimeline]
        do { timelines = try WidgetTimelineCodec.decode(text) } catch {
            throw APIError.badRequest(error.reason, field: error.path.isEmpty ? nil : error.path, line: error.line)
        }
        try await service.runtime.replaceTimelines(timelines, user: user, as: service.engine(context))
        return TimelinesAnswer(user: user, widgets: timelines.map { TimelinesAnswer.Widget(widget: $0.widget.key, entries: $0.entries.count) })
    }

    /// `GET /v1/definitions`: the stored intent definitions (owner only, as `definitions list`).
    @Sendable func getDefinitions(_ request: Request, _ context: ServiceRequestContext) throws -> DefinitionsAnswer {
        try context.requireOwner(to: "list intent definitions")
        _ = try RequestReading.user(request, allowing: [])
        return DefinitionsAnswer(definitions: try service.engine(context).definitions().definitions.map(\.intentJSON))
    }
}
