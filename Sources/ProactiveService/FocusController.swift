import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - Focus: the Focus on, the notifications it lets through and the people to allow

/// Focus: the Focus on, the notifications it lets through and the people to allow.
/// Each handler reads the request, makes one Runtime or Engine call and encodes its answer.
struct FocusController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get("focus", use: getFocus)
            .put("focus", use: putFocus)
            .get("focus/people", use: getFocusPeople)
            .post("notifications", use: postNotification)
    }

    /// `GET /v1/focus?at=DATE`: the Focus on and what each app's Focus filter applies (owner only, as `focus status`).
    @Sendable func getFocus(_ request: Request, _ context: ServiceRequestContext) throws -> FocusStatusAnswer {
        try context.requireOwner(to: "read the Focus status")
        let date = try RequestReading.instant(request)
        return try focusStatus(at: date)
    }

    /// `PUT /v1/focus`: `{"focus": "work"}` turns a Focus on by hand, `{"focus": null}`
    /// turns Focus off, until the next schedule boundary; `"at"` (default now) says when.
    /// Owner only, as `focus set`. Held models are dropped: their Focus timeline changed.
    @Sendable func putFocus(_ request: Request, _ context: ServiceRequestContext) async throws -> FocusStatusAnswer {
        try context.requireOwner(to: "set the Focus")
        _ = try RequestReading.user(request, allowing: [])
        let change = try await request.decode(as: FocusChange.self, context: context)
        let date = change.at ?? Date()
        try await service.runtime.recordFocusChange(change.focus, at: date, as: service.engine(context))
        return try focusStatus(at: date)
    }

    /// The Focus status at `date` as `GET` and `PUT /v1/focus` answer it (`Engine.focusStatus`, the owner's view).
    private func focusStatus(at date: Date) throws -> FocusStatusAnswer {
        let status = try Engine(storage: service.storage).focusStatus(at: date)
        let apps = status.apps.map { app in
            FocusStatusAnswer.App(app: app.app, values: .object(app.values.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }),
                                  configured: app.configured, predicate: app.predicate?.description, badge: app.badge)
        }
        return FocusStatusAnswer(at: Instant(date: date), focus: status.state.focus, until: status.state.until.map { Instant(date: $0) }, apps: apps)
    }

    /// `GET /v1/focus/people?user=U&focus=F&minSupport=3&minLift=1.25&smoothing=1&all=false`:
    /// people to add to each Focus's allowed-notifications list (`focus people --json`), owner only.
    @Sendable func getFocusPeople(_ request: Request, _ context: ServiceRequestContext) throws -> FocusPeopleAnswer {
        try context.requireOwner(to: "suggest Focus people (it reads every app's donations)")
        _ = try RequestReading.user(request, allowing: ["user", "focus", "minSupport", "minLift", "smoothing", "all"])
        let query = request.uri.queryParameters
        func number(_ name: String, _ fallback: Double, positive: Bool = false) throws -> Double {
            guard let text = query.get(name) else { return fallback }
            guard let value = Double(text), value.isFinite, positive ? value > 0 : value >= 0 else {
                throw APIError.badRequest(positive ? "must be a number > 0" : "must be a number >= 0", field: name)
            }
            return value
        }
        let configuration = FocusPeopleAnalysis.Configuration(smoothing: try number("smoothing", 1, positive: true),
                                                              minimumSupport: try number("minSupport", 3), minimumLift: try number("minLift", 1.25))
        let all: Bool
        switch query.get("all") {
        case nil, "false": all = false
        case "true": all = true
        default: throw APIError.badRequest("must be true or false", field: "all")
        }
        for name in ["user", "focus"] where query.get(name)?.isEmpty == true { throw APIError.badRequest("must not be empty", field: name) }
        try RequestReading.checkNames(request)
        let result = try service.engine(context).focusPeople(user: query.get("user"), focus: query.get("focus"), all: all, configuration: configuration)
        return FocusPeopleAnswer(user: result.user, people: result.rows.map(\.json))
    }

    /// `POST /v1/notifications`: `{"app": "com.example.mail", "criteria": {"account": "work"},
    /// "at": DATE}`: delivered or silenced in the Focus on at `at` (default now), the shape of
    /// `notify --json`. Owner only, as `notify`.
    @Sendable func postNotification(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        try context.requireOwner(to: "decide notifications (it reads every app's Focus filter)")
        _ = try RequestReading.user(request, allowing: [])
        let asked = try await request.decode(as: NotificationQuestion.self, context: context)
        return Response.json(try service.engine(context).notificationDecision(app: asked.app, criteria: FilterCriteria(asked.criteria), at: asked.at ?? Date()).json)
    }
}
