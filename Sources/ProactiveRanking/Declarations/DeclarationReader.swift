import Foundation
import ProactiveCore

// MARK: - Errors

/// Why a declaration file (relevant shortcuts, widget timelines) was rejected.
///
/// `path` is the JSON path of the offending element (`shortcuts[1].relevanceProviders[0].end`);
/// `line` is the 1-based line of the text when it is known (JSON syntax errors).
/// `description` reads `line N: path: reason` with the parts that are known.
public struct DeclarationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var line: Int?

    public init(path: String, reason: String, line: Int? = nil) {
        self.path = path
        self.reason = reason
        self.line = line
    }

    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if !path.isEmpty { parts.append(path) }
        parts.append(reason)
        return parts.joined(separator: ": ")
    }
}

// MARK: - Reader

/// Typed access to the members of declaration JSON with errors naming the path.
///
/// Used by `RelevantShortcutCodec` and `WidgetTimelineCodec`; every accessor
/// throws a `DeclarationError` whose path is `path` plus the member name.
struct DeclarationReader {
    let members: [(String, JSONValue)]
    let path: String

    /// Parses text into a JSON value; a syntax error reports its line.
    static func parse(_ text: String) throws(DeclarationError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            let prefix = text.utf8.prefix(error.offset)
            let line = prefix.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            let column = prefix.count - (prefix.lastIndex(of: 0x0A).map { prefix.distance(from: prefix.startIndex, to: $0) + 1 } ?? 0) + 1
            throw DeclarationError(path: "", reason: "invalid JSON at column \(column): \(error.reason)", line: line)
        }
    }

    /// Opens `value` as an object, rejecting members not in `allowed`.
    init(_ value: JSONValue, path: String, allowed: Set<String>) throws(DeclarationError) {
        guard case let .object(members) = value else {
            throw DeclarationError(path: path, reason: "must be an object, found \(value.kindName)")
        }
        var seen = Set<String>()
        for (key, _) in members {
            guard allowed.contains(key) else {
                throw DeclarationError(path: Self.join(path, key), reason: "unknown member (expected one of \(allowed.sorted().joined(separator: ", ")))")
            }
            guard seen.insert(key).inserted else { throw DeclarationError(path: Self.join(path, key), reason: "appears twice") }
        }
        self.members = members
        self.path = path
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func at(_ key: String) -> String { Self.join(path, key) }

    subscript(key: String) -> JSONValue? {
        guard let value = members.first(where: { $0.0 == key })?.1 else { return nil }
        if case .null = value { return nil }
        return value
    }

    func required(_ key: String) throws(DeclarationError) -> JSONValue {
        guard let value = self[key] else { throw DeclarationError(path: at(key), reason: "missing (required)") }
        return value
    }

    func string(_ key: String) throws(DeclarationError) -> String? {
        guard let value = self[key] else { return nil }
        guard case let .string(text) = value else { throw DeclarationError(path: at(key), reason: "must be a string, found \(value.kindName)") }
        guard !text.isEmpty else { throw DeclarationError(path: at(key), reason: "must not be empty") }
        // Names (apps, widget kinds, targets) become stored keys, compared exactly (`IdentifierRules`).
        if let problem = IdentifierRules.controlCharacterProblem(text) { throw DeclarationError(path: at(key), reason: problem) }
        return text
    }

    func requiredString(_ key: String) throws(DeclarationError) -> String {
        guard let text = try string(key) else { throw DeclarationError(path: at(key), reason: "missing (required)") }
        return text
    }

    /// A bundle identifier (`IdentifierRules`: printable ASCII, no `/`).
    func bundleIdentifier(_ key: String) throws(DeclarationError) -> String? {
        guard let text = try string(key) else { return nil }
        try Self.checkBundleIdentifier(text, path: at(key))
        return text
    }

    static func checkBundleIdentifier(_ text: String, path: String) throws(DeclarationError) {
        if let problem = IdentifierRules.bundleIdentifierProblem(text) { throw DeclarationError(path: path, reason: problem) }
    }

    /// A required widget kind (`IdentifierRules.widgetKindProblem`: no path separators, no `..`).
    func widgetKind(_ key: String) throws(DeclarationError) -> String {
        let text = try requiredString(key)
        if let problem = IdentifierRules.widgetKindProblem(text) { throw DeclarationError(path: at(key), reason: problem) }
        return text
    }

    func number(_ key: String) throws(DeclarationError) -> Double? {
        guard let value = self[key] else { return nil }
        guard case let .number(number, _) = value else { throw DeclarationError(path: at(key), reason: "must be a number, found \(value.kindName)") }
        return number
    }

    /// An ISO 8601 date with offset, or Unix seconds (as in donation logs),
    /// kept to whole milliseconds: the precision dates are written back in.
    func date(_ key: String) throws(DeclarationError) -> Date? {
        guard let value = self[key] else { return nil }
        switch value {
        case let .string(text):
            do { return Date(secondsRoundedToMillisecond: try Timestamp.parse(text).secondsSince1970) } catch {
                throw DeclarationError(path: at(key), reason: error.reason)
            }
        case let .number(seconds, _):
            do { return Date(secondsRoundedToMillisecond: try Timestamp.validateUnixSeconds(seconds)) } catch {
                throw DeclarationError(path: at(key), reason: error.reason)
            }
        default:
            throw DeclarationError(path: at(key), reason: "must be an ISO 8601 string or Unix seconds, found \(value.kindName)")
        }
    }

    func requiredDate(_ key: String) throws(DeclarationError) -> Date {
        guard let date = try date(key) else { throw DeclarationError(path: at(key), reason: "missing (required)") }
        return date
    }

    func array(_ key: String) throws(DeclarationError) -> [JSONValue]? {
        guard let value = self[key] else { return nil }
        guard case let .array(elements) = value else { throw DeclarationError(path: at(key), reason: "must be an array, found \(value.kindName)") }
        return elements
    }

    /// Intent parameters in the donation-log form (string, number, bool, entity).
    func parameters(_ key: String) throws(DeclarationError) -> [String: ParameterValue] {
        guard let value = self[key] else { return [:] }
        guard case let .object(entries) = value else { throw DeclarationError(path: at(key), reason: "must be an object, found \(value.kindName)") }
        var parameters: [String: ParameterValue] = [:]
        for (name, raw) in entries {
            if case .null = raw { continue }
            guard !name.isEmpty else { throw DeclarationError(path: at(key), reason: "a parameter name is empty") }
            do { parameters[name] = try ParameterValue(json: raw) } catch {
                throw DeclarationError(path: at(key) + "." + name, reason: error.reason)
            }
        }
        return parameters
    }

    /// The optional `configuration`/`intent` object shared by shortcuts and timelines:
    /// `{"intent": NAME, "parameters": {...}}`.
    func configuration(_ key: String) throws(DeclarationError) -> WidgetConfiguration? {
        guard let value = self[key] else { return nil }
        let reader = try DeclarationReader(value, path: at(key), allowed: ["intent", "parameters"])
        return WidgetConfiguration(intent: try reader.requiredString("intent"), parameters: try reader.parameters("parameters"))
    }
}

// MARK: - Writing

/// JSON pieces shared by the declaration encoders.
enum DeclarationWriter {
    static func date(_ date: Date, utcOffset: Int) -> JSONValue {
        .string(Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: utcOffset))
    }

    static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 1e15 { return .number(value, integer: Int64(value)) }
        return .number(value, integer: nil)
    }

    static func configuration(_ configuration: WidgetConfiguration) -> JSONValue {
        var members: [(String, JSONValue)] = [("intent", .string(configuration.intent))]
        if !configuration.parameters.isEmpty {
            members.append(("parameters", .object(configuration.parameters.keys.sorted().map { ($0, configuration.parameters[$0]!.json) })))
        }
        return .object(members)
    }
}
