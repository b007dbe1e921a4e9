import ProactiveCore

// MARK: - Focus filter declarations

/// The type of a Focus filter parameter.
package enum FocusFilterParameterType: Sendable, Hashable, CustomStringConvertible {
    case bool, string, number
    /// An app entity (an account, a calendar), compared by id. `options`, when
    /// not empty, lists the entities the user may choose (the app's suggested
    /// entities) and supplies their display strings.
    case entity(type: String, options: [FocusFilterEntity])

    package var description: String {
        switch self {
        case .bool: return "bool"
        case .string: return "string"
        case .number: return "number"
        case let .entity(type, _): return "entity(\(type))"
        }
    }
}

/// An entity a filter parameter can take: identifier plus display string.
package struct FocusFilterEntity: Sendable, Hashable {
    package var id: String
    package var display: String
    package init(id: String, display: String) {
        self.id = id
        self.display = display
    }
}

/// One parameter the user sets per Focus.
package struct FocusFilterParameter: Sendable, Hashable {
    /// The key the app reads (`alwaysUseDarkMode`).
    package var name: String
    /// The label shown to the user (`Always use dark mode`); defaults to `name`.
    package var title: String
    package var type: FocusFilterParameterType
    /// Optional parameters may be unset; required ones always have a value.
    package var isOptional: Bool
    /// The value of a required parameter when the user has not set it (nil for optional parameters).
    package var defaultValue: ParameterValue?
    /// When set, the configured value filters by this key: targets whose parameter
    /// of that name differs are not suggested, and notifications whose criteria
    /// give that key another value are silenced (see `FilterPredicate`).
    package var matches: String?

    package init(name: String, title: String? = nil, type: FocusFilterParameterType, isOptional: Bool = true,
                defaultValue: ParameterValue? = nil, matches: String? = nil) {
        self.name = name
        self.title = title ?? name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.matches = matches
    }

    /// Whether `value` fits the type (numbers: int or double; entities: an
    /// entity whose id is among `options` when options are declared).
    package func accepts(_ value: ParameterValue) -> Bool {
        switch (type, value) {
        case (.bool, .bool), (.string, .string), (.number, .int), (.number, .double): return true
        case let (.entity(_, options), .entity(id, _)): return options.isEmpty || options.contains { $0.id == id }
        default: return false
        }
    }

    /// Reads a value typed on the command line: `true`/`false`/`on`/`off`/`yes`/`no`
    /// for bool, a decimal for number, the text for string, an entity id for entity
    /// (its display string taken from `options`).
    /// - Throws: `FocusError(field: name)` saying what was expected.
    package func value(fromText text: String) throws(FocusError) -> ParameterValue {
        switch type {
        case .bool:
            switch text.lowercased() {
            case "true", "on", "yes", "1": return .bool(true)
            case "false", "off", "no", "0": return .bool(false)
            default: throw FocusError(field: name, reason: "expected true or false, found \"\(text)\"")
            }
        case .number:
            if let integer = Int64(text) { return .int(integer) }
            if let double = Double(text), double.isFinite { return .double(double) }
            throw FocusError(field: name, reason: "expected a number, found \"\(text)\"")
        case .string:
            return .string(text)
        case let .entity(type, options):
            guard !options.isEmpty else { return .entity(id: text, display: nil) }
            guard let option = options.first(where: { $0.id == text }) else {
                throw FocusError(field: name, reason: "unknown \(type) \"\(text)\" (choose one of: \(options.map(\.id).joined(separator: ", ")))")
            }
            return .entity(id: option.id, display: option.display)
        }
    }

    /// The value as shown in a display representation: On/Off, the number, the
    /// text, the entity's display string.
    package func displayText(_ value: ParameterValue) -> String {
        switch value {
        case let .bool(flag): return flag ? "On" : "Off"
        case let .entity(id, display):
            if let display { return display }
            if case let .entity(_, options) = type, let option = options.first(where: { $0.id == id }) { return option.display }
            return id
        default: return value.displayText
        }
    }
}

/// An app's Focus filter (`SetFocusFilterIntent`): a static title and
/// description and the parameters the user sets per Focus. JSON form: see
/// `FocusFilter.parse(_:)`.
public struct FocusFilter: Sendable, Hashable {
    public var app: String
    public var title: String
    public var description: String
    package var parameters: [FocusFilterParameter]

    package init(app: String, title: String, description: String = "", parameters: [FocusFilterParameter]) {
        self.app = app
        self.title = title
        self.description = description
        self.parameters = parameters
    }

    package func parameter(named name: String) -> FocusFilterParameter? { parameters.first { $0.name == name } }

    /// The values of the required parameters when nothing is configured.
    public var defaults: [String: ParameterValue] {
        var values: [String: ParameterValue] = [:]
        for parameter in parameters { if let value = parameter.defaultValue { values[parameter.name] = value } }
        return values
    }

    /// The values that apply with `configured` set by the user: defaults of the
    /// required parameters overlaid with the configured values.
    public func effectiveValues(_ configured: [String: ParameterValue]) -> [String: ParameterValue] {
        defaults.merging(configured) { _, configured in configured }
    }

    /// Checks configured values: every key is a declared parameter and every value fits its type.
    /// - Throws: `FocusError(field: parameterName)`.
    package func validate(_ values: [String: ParameterValue]) throws(FocusError) {
        for name in values.keys.sorted() {
            guard let parameter = parameter(named: name) else {
                throw FocusError(field: name, reason: "not a parameter of \(app)'s Focus filter (it has: \(parameters.map(\.name).joined(separator: ", ")))")
            }
            guard parameter.accepts(values[name]!) else {
                throw FocusError(field: name, reason: "expected a \(parameter.type) value, found \(values[name]!.json.kindName)")
            }
        }
    }

    // MARK: Display representation

    /// What the Focus settings show for this filter in one Focus.
    public struct DisplayRepresentation: Sendable, Hashable {
        /// The titles of the parameters that have a value ("Always use dark mode, Status, Account").
        public var primary: String
        /// Their values, in the same order ("Off, In a meeting, Personal").
        public var secondary: String
    }

    /// The display representation for `configured` values: required parameters
    /// always (configured or default), optional ones only when set, in
    /// declaration order, joined by ", ".
    public func displayRepresentation(configured: [String: ParameterValue]) -> DisplayRepresentation {
        let values = effectiveValues(configured)
        var titles: [String] = [], texts: [String] = []
        for parameter in parameters {
            guard let value = values[parameter.name] else { continue }
            titles.append(parameter.title)
            texts.append(parameter.displayText(value))
        }
        return DisplayRepresentation(primary: titles.joined(separator: ", "), secondary: texts.joined(separator: ", "))
    }
}
