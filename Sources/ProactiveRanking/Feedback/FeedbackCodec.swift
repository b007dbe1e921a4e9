import Foundation
import ProactiveCore

// MARK: - Feedback JSON

/// Reads and writes one feedback event as a JSON object (one per line in logs,
/// one per row in the store).
///
/// ```json
/// {"date": "2026-11-20T09:45:00-08:00", "kind": "tap",
///  "target": "com.example.weather:CheckWeatherIntent(location=cupertino)", "app": "com.example.weather",
///  "context": {"focus": "work"},
///  "action": {"intent": "CheckWeatherIntent", "parameters": {"location": {"id": "cupertino", "display": "Cupertino"}}}}
/// {"date": "2026-11-20T09:31:00-08:00", "kind": "dismiss",
///  "widget": {"app": "com.example.calendar", "widgetKind": "calendar"}}
/// {"date": "2026-11-20T08:00:00-08:00", "kind": "never", "app": "com.example.mail", "context": {"focus": "work"}}
/// ```
/// - `kind`: `impression`, `tap`, `dismiss`, `never` or `undo-never`.
/// - The scope is `target` (a target key; needs `app`), else `widget` (an object
///   with `app`, `widgetKind` and optional `configuration`), else the `app` alone.
/// - `context`: flat strings; for `never`/`undo-never` the rule's conditions.
/// - `action` (taps only): the intent and parameters the engagement ran.
package enum FeedbackCodec {
    package static func decode(_ text: String) throws(DeclarationError) -> FeedbackEvent {
        try decode(try DeclarationReader.parse(text))
    }

    package static func decode(_ json: JSONValue) throws(DeclarationError) -> FeedbackEvent {
        let reader = try DeclarationReader(json, path: "", allowed: ["date", "kind", "target", "widget", "app", "context", "action"])
        let date = try reader.requiredDate("date")
        let kindText = try reader.requiredString("kind")
        guard let kind = FeedbackKind(rawValue: kindText) else {
            throw DeclarationError(path: "kind", reason: "must be one of \(FeedbackKind.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(kindText)\"")
        }
        let app = try reader.bundleIdentifier("app")
        let scope: FeedbackScope
        if let target = try reader.string("target") {
            scope = .target(TargetKey(rawValue: target))
        } else if let widget = reader["widget"] {
            let widgetReader = try DeclarationReader(widget, path: "widget", allowed: ["app", "widgetKind", "configuration"])
            guard let widgetApp = try widgetReader.bundleIdentifier("app") else { throw DeclarationError(path: widgetReader.at("app"), reason: "missing (required)") }
            scope = .widget(WidgetID(app: widgetApp, kind: try widgetReader.widgetKind("widgetKind"),
                                     configuration: try widgetReader.configuration("configuration")))
        } else if let app {
            scope = .app(app)
        } else {
            throw DeclarationError(path: "target", reason: "missing: feedback needs a \"target\", a \"widget\" or an \"app\"")
        }
        var context: [String: String] = [:]
        if let value = reader["context"] {
            guard case let .object(members) = value else { throw DeclarationError(path: "context", reason: "must be an object of strings, found \(value.kindName)") }
            for (key, raw) in members {
                guard case let .string(text) = raw else { throw DeclarationError(path: "context.\(key)", reason: "must be a string, found \(raw.kindName)") }
                context[key] = text
            }
        }
        let action = try reader.configuration("action")
        if action != nil, kind != .tap { throw DeclarationError(path: "action", reason: "only a tap carries an action") }
        do {
            return try FeedbackEvent.make(date: date, kind: kind, scope: scope, app: app, context: context, action: action)
        } catch {
            throw DeclarationError(path: "", reason: error.reason)
        }
    }

    /// The canonical JSON object (members in the documented order, the date at `utcOffset`).
    package static func encode(_ event: FeedbackEvent, utcOffset: Int = 0) -> String {
        var members: [(String, JSONValue)] = [("date", DeclarationWriter.date(event.date, utcOffset: utcOffset)), ("kind", .string(event.kind.rawValue))]
        switch event.scope {
        case let .target(key):
            members.append(("target", .string(key.rawValue)))
            members.append(("app", .string(event.app)))
        case let .widget(widget):
            var fields: [(String, JSONValue)] = [("app", .string(widget.app)), ("widgetKind", .string(widget.kind))]
            if let configuration = widget.configuration { fields.append(("configuration", DeclarationWriter.configuration(configuration))) }
            members.append(("widget", .object(fields)))
        case let .app(app):
            members.append(("app", .string(app)))
        }
        if !event.context.isEmpty { members.append(("context", .object(event.context.keys.sorted().map { ($0, .string(event.context[$0]!)) }))) }
        if let action = event.action { members.append(("action", DeclarationWriter.configuration(action))) }
        return JSONWriter.string(.object(members))
    }
}
