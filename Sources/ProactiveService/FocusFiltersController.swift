import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine

// MARK: - Apps' Focus filters: declaring, reading and configuring them

/// Apps' Focus filters: declaring, reading and configuring them.
/// Each handler reads the request, makes one Runtime or Engine call and encodes its answer.
struct FocusFiltersController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get("apps/{app}/focus-filter", use: getFocusFilter)
            .put("apps/{app}/focus-filter", use: putFocusFilter)
            .patch("apps/{app}/focus-filter/{focus}", use: patchFocusFilter)
    }

    /// `PUT /v1/apps/{app}/focus-filter`: declares (or replaces) the app's Focus
    /// filter (the body is a `focus filter define` file; its `app` may be omitted and
    /// must otherwise be the path's). Configured values that no longer fit are dropped
    /// and listed. An app credential declares only its own filter.
    @Sendable func putFocusFilter(_ request: Request, _ context: ServiceRequestContext) async throws -> FocusFilterDeclaredAnswer {
        let app = try RequestReading.pathParameter(context, "app")
        try context.access.require(app: app, to: "declare the Focus filter of")
        _ = try RequestReading.user(request, allowing: [])
        let text = try await RequestReading.bodyText(request, maxBody: service.configuration.maxBody)
        if let json = try? JSONParser.parse(text) { try Self.refuseUnknownFields(focusFilter: json) }
        let filter = try FocusFilter.parse(text, app: app)
        let declared = try await service.runtime.declareFocusFilter(filter, as: service.engine(context))
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
    @Sendable func getFocusFilter(_ request: Request, _ context: ServiceRequestContext) throws -> Response {
        let app = try RequestReading.pathParameter(context, "app")
        try context.access.require(app: app, to: "read the Focus filter of")
        _ = try RequestReading.user(request, allowing: ["focus"])
        let focus = request.uri.queryParameters.get("focus")
        if focus?.isEmpty == true { throw APIError.badRequest("must not be empty", field: "focus") }
        let reports = try service.engine(context).focusFilterReports(app: app, focus: focus)
        return Response.json(reports.first ?? .null)
    }

    /// `PATCH /v1/apps/{app}/focus-filter/{focus}`: `{"set": {"account": "personal",
    /// "alwaysUseDarkMode": true}, "unset": ["status"]}` sets and removes the app's values in
    /// that Focus (as `focus filter configure`: values read as the command line reads them,
    /// an empty string or `null` removes; values not named are kept). Answers the values,
    /// the display representation and the `perform()` call when that Focus is on now.
    @Sendable func patchFocusFilter(_ request: Request, _ context: ServiceRequestContext) async throws -> FocusFilterConfiguredAnswer {
        let app = try RequestReading.pathParameter(context, "app")
        try context.access.require(app: app, to: "configure the Focus filter of")
        let focus = try RequestReading.pathParameter(context, "focus")
        _ = try RequestReading.user(request, allowing: [])
        let change = try await request.decode(as: FocusFilterChange.self, context: context)
        let configured = try await service.runtime.configureFocusFilter(app: app, focus: focus, set: change.set, unset: change.unset,
                                                                as: service.engine(context))
        func values(_ values: [String: ParameterValue]) -> JSONValue { .object(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }) }
        return FocusFilterConfiguredAnswer(
            app: app, focus: configured.focus, values: values(configured.values), primary: configured.display.primary,
            secondary: configured.display.secondary,
            perform: configured.perform.map { event in
                FocusFilterConfiguredAnswer.Perform(focus: event.focus, values: values(event.values), reason: event.reason.rawValue)
            })
    }
}
