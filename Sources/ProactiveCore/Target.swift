// MARK: - Targets

/// What the engine predicts: an app's intent together with the values of the
/// parameters in the supported combination that applies.
///
/// Key form: `com.example.weather:CheckWeatherIntent(location=cupertino)`;
/// `com.example.mail:open` for a launch. Values appear by key text (entities
/// by id); `%`, `,`, `=`, `(` and `)` inside names and values are percent-escaped.
public struct TargetKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: TargetKey, rhs: TargetKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(app: String, intent: String, parameters: [String: ParameterValue]) {
        var text = Self.escape(app) + ":" + Self.escape(intent)
        if !parameters.isEmpty {
            text += "("
            for (offset, name) in parameters.keys.sorted().enumerated() {
                if offset > 0 { text += "," }
                text += Self.escape(name) + "=" + Self.escape(parameters[name]!.keyText)
            }
            text += ")"
        }
        rawValue = text
    }

    /// The intent and parameter names of a key made by `init(app:intent:parameters:)`
    /// (names unescaped), nil for text that is not of that form.
    public var intentAndParameterNames: (intent: String, parameterNames: [String])? {
        guard let colon = rawValue.firstIndex(of: ":") else { return nil }
        let rest = rawValue[rawValue.index(after: colon)...]
        guard let open = rest.firstIndex(of: "(") else { return (Self.unescape(rest), []) }
        guard rest.last == ")" else { return nil }
        let list = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
        var names: [String] = []
        for pair in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            names.append(Self.unescape(pair[..<equals]))
        }
        return (Self.unescape(rest[..<open]), names)
    }

    /// Whether a donation of `intent` with `parameters` is of this target when
    /// only the key's parameters count (the key's combination).
    public func isMade(app: String, intent: String, parameters: [String: ParameterValue], names: [String]) -> Bool {
        var kept: [String: ParameterValue] = [:]
        for name in names {
            guard let value = parameters[name] else { return false }
            kept[name] = value
        }
        return TargetKey(app: app, intent: intent, parameters: kept) == self
    }

    /// Undoes the key's percent-escaping of a name or value.
    public static func unescape(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "%", let end = text.index(index, offsetBy: 3, limitedBy: text.endIndex),
               let byte = UInt8(text[text.index(after: index)..<end], radix: 16) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
                index = end
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }

    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x25 || $0 == 0x2C || $0 == 0x3D || $0 == 0x28 || $0 == 0x29 || $0 == 0x3A }) else { return text }
        var output = ""
        for character in text {
            switch character {
            case "%": output += "%25"
            case ",": output += "%2C"
            case "=": output += "%3D"
            case "(": output += "%28"
            case ")": output += "%29"
            case ":": output += "%3A"
            default: output.append(character)
            }
        }
        return output
    }
}

/// A resolved target: its key plus what is needed to show and run it.
public struct Target: Hashable, Sendable {
    public var key: TargetKey
    public var app: String
    /// The current intent name (a legacy class name is mapped to the intent that migrates it).
    public var intent: String
    /// The parameters of the applying combination (all donated parameters when the intent has no definition).
    public var parameters: [String: ParameterValue]
    /// A human summary ("Weather in Cupertino").
    public var summary: String

    public init(key: TargetKey, app: String, intent: String, parameters: [String: ParameterValue], summary: String) {
        self.key = key
        self.app = app
        self.intent = intent
        self.parameters = parameters
        self.summary = summary
    }
}

// MARK: - Resolution

/// Maps donations to targets using the apps' intent definitions.
///
/// - With a definition: the largest supported combination whose parameters are
///   all set decides the target; when no combination applies the target is the
///   intent alone (no parameters).
/// - Without a definition: every donated parameter counts.
/// - A legacy intent class name resolves to the intent that migrates it, so
///   old and new donations are one target.
public struct TargetResolver: Sendable {
    public let definitions: IntentDefinitionSet

    public init(definitions: IntentDefinitionSet = IntentDefinitionSet()) {
        self.definitions = definitions
    }

    public func target(for donation: Donation) -> Target {
        target(app: donation.app, intent: donation.intent, parameters: donation.parameters)
    }

    public func target(app: String, intent: String, parameters: [String: ParameterValue]) -> Target {
        guard let definition = definitions.definition(app: app, intent: intent) else {
            return Target(key: TargetKey(app: app, intent: intent, parameters: parameters), app: app, intent: intent,
                          parameters: parameters, summary: Self.defaultSummary(app: app, intent: intent, parameters: parameters))
        }
        guard let combination = definition.combination(for: parameters) else {
            return Target(key: TargetKey(app: app, intent: definition.name, parameters: [:]), app: app, intent: definition.name,
                          parameters: [:], summary: Self.defaultSummary(app: app, intent: definition.name, parameters: [:]))
        }
        var kept: [String: ParameterValue] = [:]
        for name in combination.parameters { kept[name] = parameters[name] }
        return Target(key: TargetKey(app: app, intent: definition.name, parameters: kept), app: app, intent: definition.name,
                      parameters: kept, summary: combination.renderSummary(kept))
    }

    /// "Open com.example.mail", or "CheckWeatherIntent (location: Cupertino)".
    public static func defaultSummary(app: String, intent: String, parameters: [String: ParameterValue]) -> String {
        if intent == Donation.openIntent && parameters.isEmpty { return "Open \(app)" }
        guard !parameters.isEmpty else { return intent }
        let details = parameters.keys.sorted().map { "\($0): \(parameters[$0]!.displayText)" }.joined(separator: ", ")
        return "\(intent) (\(details))"
    }
}
