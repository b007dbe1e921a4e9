import Foundation
import ProactiveCore

// MARK: - Relevant shortcuts JSON

/// Reads and writes an app's relevant-shortcut set (`proactive shortcuts set --app A FILE`).
///
/// A file holds one object (or just the `shortcuts` array, then the app comes
/// from the command line):
/// ```json
/// {"app": "com.example.bank",
///  "shortcuts": [
///    {"widgetKind": "recentPurchases",
///     "role": "information",
///     "title": "Recent purchases",
///     "configuration": {"intent": "ViewRecentPurchases",
///                       "parameters": {"card": {"id": "visa", "display": "Visa"}}},
///     "relevanceProviders": [
///       {"kind": "date", "start": "2026-11-20T09:41:00-08:00", "end": "2026-11-20T10:11:00-08:00"},
///       {"kind": "date", "start": "2026-11-20T09:41:00-08:00", "duration": 1800},
///       {"kind": "location", "latitude": 37.33, "longitude": -122.01, "radius": 150, "identifier": "store"},
///       {"kind": "dailyRoutine", "situation": "morning"}]}]}
/// ```
/// - `widgetKind` (required): the widget to suggest.
/// - `role`: `"action"` (default, as `INRelevantShortcutRole`) or `"information"`.
/// - `configuration`: the intent that configures the widget; omit for a static widget.
/// - `relevanceProviders`: omitted or `[]` means "new content" (show when the
///   user usually uses the app). A date provider has `start` and either `end`
///   (exclusive, after `start`) or `duration` seconds (> 0). Dates are ISO 8601
///   with offset or Unix seconds. Location and daily-routine providers are
///   stored but do not drive Widget Suggestions.
/// - An empty `shortcuts` array withdraws all of the app's shortcuts.
package enum RelevantShortcutCodec {
    /// Situations of `INDailyRoutineRelevanceProvider`.
    package static let dailyRoutineSituations: Set<String> = [
        "morning", "evening", "home", "work", "school", "gym", "commute",
        "heartRateAlert", "physicalActivityIncomplete", "standAlert",
    ]

    // MARK: Decoding

    /// Parses a shortcut file into the set that replaces the app's previous one.
    /// - Parameters:
    ///   - app: the app from the command line; must equal the file's `app` when both are given.
    ///   - declaredAt: when the set is declared ("new content" counts from here).
    /// - Throws: `DeclarationError` naming the JSON path (and line, for syntax errors).
    package static func decode(_ text: String, app: String?, declaredAt: Date) throws(DeclarationError) -> RelevantShortcutSet {
        let json = try DeclarationReader.parse(text)
        var fileApp: String?
        var elements: [JSONValue]
        var basePath = ""
        switch json {
        case let .array(array):
            elements = array
        case .object:
            let reader = try DeclarationReader(json, path: "", allowed: ["app", "shortcuts"])
            fileApp = try reader.bundleIdentifier("app")
            guard let array = try reader.array("shortcuts") else {
                throw DeclarationError(path: "shortcuts", reason: "missing (required)")
            }
            elements = array
            basePath = "shortcuts"
        default:
            throw DeclarationError(path: "", reason: "must be an object with \"shortcuts\" or an array of shortcuts, found \(json.kindName)")
        }
        if let app, let fileApp, app != fileApp {
            throw DeclarationError(path: "app", reason: "the file declares \"\(fileApp)\" but the command names \"\(app)\"")
        }
        guard let owner = app ?? fileApp else {
            throw DeclarationError(path: "app", reason: "missing: give the app in the file or on the command line")
        }
        try DeclarationReader.checkBundleIdentifier(owner, path: "app")
        var shortcuts: [RelevantShortcut] = []
        for (index, element) in elements.enumerated() {
            shortcuts.append(try decodeShortcut(element, app: owner, path: "\(basePath)[\(index)]"))
        }
        return RelevantShortcutSet(app: owner, shortcuts: shortcuts, declaredAt: declaredAt)
    }

    static func decodeShortcut(_ value: JSONValue, app: String, path: String) throws(DeclarationError) -> RelevantShortcut {
        let reader = try DeclarationReader(value, path: path, allowed: ["widgetKind", "role", "title", "configuration", "relevanceProviders"])
        let kind = try reader.widgetKind("widgetKind")
        var role = ShortcutRole.action
        if let text = try reader.string("role") {
            guard let parsed = ShortcutRole(rawValue: text) else {
                throw DeclarationError(path: reader.at("role"), reason: "must be \"action\" or \"information\", found \"\(text)\"")
            }
            role = parsed
        }
        let configuration = try reader.configuration("configuration")
        var providers: [RelevanceProvider] = []
        for (index, element) in (try reader.array("relevanceProviders") ?? []).enumerated() {
            providers.append(try decodeProvider(element, path: reader.at("relevanceProviders") + "[\(index)]"))
        }
        return RelevantShortcut(widget: WidgetID(app: app, kind: kind, configuration: configuration), role: role,
                                providers: providers, title: try reader.string("title"))
    }

    static func decodeProvider(_ value: JSONValue, path: String) throws(DeclarationError) -> RelevanceProvider {
        guard case .object = value else { throw DeclarationError(path: path, reason: "must be an object, found \(value.kindName)") }
        let kind = try DeclarationReader(value, path: path, allowed: Set(value.objectKeys)).requiredString("kind")
        switch kind {
        case "date":
            let reader = try DeclarationReader(value, path: path, allowed: ["kind", "start", "end", "duration"])
            let start = try reader.requiredDate("start")
            let end = try reader.date("end")
            let duration = try reader.number("duration")
            switch (end, duration) {
            case let (end?, nil):
                guard end > start else { throw DeclarationError(path: reader.at("end"), reason: "must be after start") }
                return .date(start: start, end: end)
            case let (nil, duration?):
                guard duration > 0 else { throw DeclarationError(path: reader.at("duration"), reason: "must be > 0 seconds, found \(duration)") }
                try DeclarationBounds.checkEnd(of: start, after: duration, path: reader.at("duration"))
                let end = Date(secondsRoundedToMillisecond: start.timeIntervalSince1970 + duration)
                guard end > start else { throw DeclarationError(path: reader.at("duration"), reason: "must be at least a millisecond, found \(duration) s") }
                return .date(start: start, end: end)
            case (nil, nil):
                throw DeclarationError(path: reader.at("end"), reason: "missing: a date provider needs \"end\" or \"duration\"")
            case (_?, _?):
                throw DeclarationError(path: reader.at("duration"), reason: "give \"end\" or \"duration\", not both")
            }
        case "location":
            let reader = try DeclarationReader(value, path: path, allowed: ["kind", "latitude", "longitude", "radius", "identifier"])
            guard let latitude = try reader.number("latitude"), (-90...90).contains(latitude) else {
                throw DeclarationError(path: reader.at("latitude"), reason: "must be a number in -90...90")
            }
            guard let longitude = try reader.number("longitude"), (-180...180).contains(longitude) else {
                throw DeclarationError(path: reader.at("longitude"), reason: "must be a number in -180...180")
            }
            guard let radius = try reader.number("radius"), radius > 0, radius <= DeclarationBounds.maximumRadius else {
                throw DeclarationError(path: reader.at("radius"), reason: "must be a number of metres in 0...\(Int(DeclarationBounds.maximumRadius)) (> 0)")
            }
            return .location(latitude: latitude, longitude: longitude, radius: radius, identifier: try reader.string("identifier"))
        case "dailyRoutine":
            let reader = try DeclarationReader(value, path: path, allowed: ["kind", "situation"])
            let situation = try reader.requiredString("situation")
            guard dailyRoutineSituations.contains(situation) else {
                throw DeclarationError(path: reader.at("situation"), reason: "unknown situation \"\(situation)\" (one of \(dailyRoutineSituations.sorted().joined(separator: ", ")))")
            }
            return .dailyRoutine(situation: situation)
        default:
            throw DeclarationError(path: path + ".kind", reason: "must be \"date\", \"location\" or \"dailyRoutine\", found \"\(kind)\"")
        }
    }

    // MARK: Encoding

    /// The canonical JSON object for a set (members in the documented order, dates at `utcOffset`).
    /// Decoding the result gives back an equal set.
    package static func encode(_ set: RelevantShortcutSet, utcOffset: Int = 0) -> String {
        JSONWriter.string(.object([("app", .string(set.app)), ("shortcuts", .array(set.shortcuts.map { encodeShortcut($0, utcOffset: utcOffset) }))]))
    }

    /// The canonical JSON array of shortcuts (the bare-array file form; what the store keeps).
    package static func encodeShortcuts(_ shortcuts: [RelevantShortcut], utcOffset: Int = 0) -> String {
        JSONWriter.string(.array(shortcuts.map { encodeShortcut($0, utcOffset: utcOffset) }))
    }

    static func encodeShortcut(_ shortcut: RelevantShortcut, utcOffset: Int) -> JSONValue {
        var members: [(String, JSONValue)] = [("widgetKind", .string(shortcut.widget.kind)), ("role", .string(shortcut.role.rawValue))]
        if let title = shortcut.title { members.append(("title", .string(title))) }
        if let configuration = shortcut.widget.configuration { members.append(("configuration", DeclarationWriter.configuration(configuration))) }
        members.append(("relevanceProviders", .array(shortcut.providers.map { encodeProvider($0, utcOffset: utcOffset) })))
        return .object(members)
    }

    static func encodeProvider(_ provider: RelevanceProvider, utcOffset: Int) -> JSONValue {
        switch provider {
        case let .date(start, end):
            return .object([("kind", .string("date")), ("start", DeclarationWriter.date(start, utcOffset: utcOffset)),
                            ("end", DeclarationWriter.date(end, utcOffset: utcOffset))])
        case let .location(latitude, longitude, radius, identifier):
            var members: [(String, JSONValue)] = [("kind", .string("location")), ("latitude", DeclarationWriter.number(latitude)),
                                                  ("longitude", DeclarationWriter.number(longitude)), ("radius", DeclarationWriter.number(radius))]
            if let identifier { members.append(("identifier", .string(identifier))) }
            return .object(members)
        case let .dailyRoutine(situation):
            return .object([("kind", .string("dailyRoutine")), ("situation", .string(situation))])
        }
    }
}

extension JSONValue {
    /// The member names of an object (empty for other values).
    var objectKeys: [String] {
        guard case let .object(members) = self else { return [] }
        return members.map(\.0)
    }
}
