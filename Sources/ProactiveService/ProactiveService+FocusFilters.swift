import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime

// MARK: - Focus filters, notifications and people

extension ProactiveService {
    /// `PUT /v1/apps/{app}/focus-filter`: declares (or replaces) the app's Focus
    /// filter (the body is a `focus filter define` file; its `app` may be omitted and
    /// must otherwise be the path's). Configured values that no longer fit are dropped
    /// and listed. An app credential declares only its own filter.
    func putFocusFilter(_ request: Request, _ context: ServiceRequestContext) async throws -> FocusFilterDeclaredAnswer {
        let app = try Self.pathParameter(context, "app")
        try context.access.require(app: app, to: "declare the Focus filter of")
        _ = try Self.user(request, allowing: [])
        let text = try await Self.bodyText(request, maxBody: configuration.maxBody)
        if let json = try? JSONParser.parse(text) { try Self.refuseUnknownFields(focusFilter: json) }
        let filter = try FocusFilter.parse(text, app: app)
        let declared = try await runtime.declareFocusFilter(filter, as: engine(context))
        return FocusFilterDeclaredAnswer(filter: filter.json, dropped: declared.dropped.map {
            FocusFilterDeclaredAnswer.Dropped(focus: $0.focus, parameter: $0.parameter)
        })
    }

    /// Refuses a member of a Focus filter declaration, of one of its parameters or of one of their
    /// options that `FocusFilter.parse` does not read (which ignores it): a 400 naming it, e.g.
    /// `parameters[0].optinal`, as the service's other bodies refuse an unknown field.
    static func refuseUnknownFields(focusFilter json: JSONValue) throws {
        func check(_ value: JSONValue, allowed: [String], path: String) throws {
            guard case let .object(members) = value, let unknown = members.first(where: { !allowed.contains($0.0) }) else { return }
            throw APIError.badRequest(RequestBodyError.unknownField(unknown.0, among: allowed), field: path.isEmpty ? unknown.0 : "\(path).\(unknown.0)")
        }
        try check(json, allowed: ["app", "title", "description", "parameters"], path: "")
        guard case let .array(parameters)? = json["parameters"] else { return }
        for (index, parameter) in parameters.enumerated() {
            let path = "parameters[\(index)]"
            try check(parameter, allowed: ["name", "title", "type", "entityType", "options", "optional", "default", "matches"], path: path)
            guard case let .array(options)? = parameter["options"] else { continue }
            for (position, option) in options.enumerated() { try check(option, allowed: ["id", "display"], path: "\(path).options[\(position)]") }
        }
    }

    /// `GET /v1/apps/{app}/focus-filter?focus=F`: the app's declaration and, per Focus, what
    /// it applies (one element of `focus filter show --json`). An app credential reads only its own.
    func getFocusFilter(_ request: Request, _ context: ServiceRequestContext) throws -> Response {
        let app = try Self.pathParameter(context, "app")
        try context.access.require(app: app, to: "read the Focus filter of")
        _ = try Self.user(request, allowing: ["focus"])
        let focus = request.uri.queryParameters.get("focus")
        if focus?.isEmpty == true { throw APIError.badRequest("must not be empty", field: "focus") }
        let reports = try engine(context).focusFilterReports(app: app, focus: focus)
        return Response.json(reports.first ?? .null)
    }

    /// `PATCH /v1/apps/{app}/focus-filter/{focus}`: `{"set": {"account": "personal",
    /// "alwaysUseDarkMode": true}, "unset": ["status"]}` sets and removes the app's values in
    /// that Focus (as `focus filter configure`: values read as the command line reads them,
    /// an empty string or `null` removes; values not named are kept). Answers the values,
    /// the display representation and the `perform()` call when that Focus is on now.
    func patchFocusFilter(_ request: Request, _ context: ServiceRequestContext) async throws -> FocusFilterConfiguredAnswer {
        let app = try Self.pathParameter(context, "app")
        try context.access.require(app: app, to: "configure the Focus filter of")
        let focus = try Self.pathParameter(context, "focus")
        _ = try Self.user(request, allowing: [])
        let change = try await request.decode(as: FocusFilterChange.self, context: context)
        let configured = try await runtime.configureFocusFilter(app: app, focus: focus, set: change.set, unset: change.unset,
                                                                as: engine(context))
        func values(_ values: [String: ParameterValue]) -> JSONValue { .object(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }) }
        return FocusFilterConfiguredAnswer(
            app: app, focus: configured.focus, values: values(configured.values), primary: configured.display.primary,
            secondary: configured.display.secondary,
            perform: configured.perform.map { event in
                FocusFilterConfiguredAnswer.Perform(focus: event.focus, values: values(event.values), reason: event.reason.rawValue)
            })
    }

    /// `POST /v1/notifications`: `{"app": "com.example.mail", "criteria": {"account": "work"},
    /// "at": DATE}`: delivered or silenced in the Focus on at `at` (default now), the shape of
    /// `notify --json`. Owner only, as `notify`.
    func postNotification(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        try context.requireOwner(to: "decide notifications (it reads every app's Focus filter)")
        _ = try Self.user(request, allowing: [])
        let asked = try await request.decode(as: NotificationQuestion.self, context: context)
        return Response.json(try engine(context).notificationDecision(app: asked.app, criteria: FilterCriteria(asked.criteria), at: asked.at ?? Date()).json)
    }

    /// `GET /v1/focus/people?user=U&focus=F&minSupport=3&minLift=1.25&smoothing=1&all=false`:
    /// people to add to each Focus's allowed-notifications list (`focus people --json`), owner only.
    func getFocusPeople(_ request: Request, _ context: ServiceRequestContext) throws -> FocusPeopleAnswer {
        try context.requireOwner(to: "suggest Focus people (it reads every app's donations)")
        _ = try Self.user(request, allowing: ["user", "focus", "minSupport", "minLift", "smoothing", "all"])
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
        try Self.checkNames(request)
        let result = try engine(context).focusPeople(user: query.get("user"), focus: query.get("focus"), all: all, configuration: configuration)
        return FocusPeopleAnswer(user: result.user, people: result.rows.map(\.json))
    }

    /// A path parameter, percent-decoded; `app` must be a bundle identifier (`IdentifierRules`: no `/`,
    /// `%`, `\\`, `.` or `..`, so no encoded separator reaches another app's rows), any other name a
    /// non-empty text without control characters.
    /// - Throws: `APIError` 400 naming the parameter.
    static func pathParameter(_ context: ServiceRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        guard let value = raw.removingPercentEncoding, !value.isEmpty else { throw APIError.badRequest("must not be empty", field: name) }
        if let problem = name == "app" ? IdentifierRules.bundleIdentifierProblem(value) : IdentifierRules.controlCharacterProblem(value) {
            throw APIError.badRequest(problem, field: name)
        }
        return value
    }

    /// The query parameters that name a user or an app (`user`, `app`), checked as the donation format
    /// checks them (`IdentifierRules`): a present value breaking the rule is a 400 naming it.
    static func checkNames(_ request: Request) throws {
        let query = request.uri.queryParameters
        for value in query.getAll("user") {
            if let problem = IdentifierRules.userProblem(value) { throw APIError.badRequest(problem, field: "user") }
        }
        for value in query.getAll("app") {
            if let problem = IdentifierRules.bundleIdentifierProblem(value) { throw APIError.badRequest(problem, field: "app") }
        }
    }
}
