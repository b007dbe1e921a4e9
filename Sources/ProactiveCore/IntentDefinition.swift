// MARK: - Intent definitions (the JSON file an app ships)

/// The type of an intent parameter.
public enum ParameterType: Sendable, Hashable, CustomStringConvertible {
    case string, int, double, bool, date
    /// An enumeration with its allowed cases.
    case enumeration(cases: [String])
    /// An app entity of the named type (compared by id).
    case entity(type: String)

    public var description: String {
        switch self {
        case .string: return "string"
        case .int: return "int"
        case .double: return "double"
        case .bool: return "bool"
        case .date: return "date"
        case let .enumeration(cases): return "enum(\(cases.joined(separator: "|")))"
        case let .entity(type): return "entity(\(type))"
        }
    }

    /// The value a command-line text stands for under this type (`--param NAME=TEXT`), or nil when
    /// the text cannot be one: an entity is its id (`@id:Display` and JSON objects are read first by
    /// the caller), a date is ISO 8601 text, numbers and booleans are parsed.
    public func value(fromArgument text: String) -> ParameterValue? {
        switch self {
        case .string: return .string(text)
        case .int: return Int64(text).map(ParameterValue.int)
        case .double: return Double(text).flatMap { $0.isFinite ? ParameterValue.double($0) : nil }
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: return nil
            }
        case .date: return (try? Timestamp.parse(text.count == 10 ? text + "T00:00:00Z" : text)) != nil ? .string(text) : nil
        case let .enumeration(cases): return cases.contains(text) ? .string(text) : nil
        case .entity: return text.isEmpty ? nil : .entity(id: text, display: nil)
        }
    }

    /// Whether a donated value fits this type.
    public func accepts(_ value: ParameterValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.int, .int), (.double, .double), (.double, .int), (.bool, .bool), (.date, .string), (.entity, .entity):
            return true
        case let (.enumeration(cases), .string(text)): return cases.contains(text)
        default: return false
        }
    }
}

/// One typed parameter of an intent.
public struct ParameterDefinition: Sendable, Hashable {
    public var name: String
    public var type: ParameterType
    /// Optional parameters may be absent from a donation.
    public var isOptional: Bool

    public init(name: String, type: ParameterType, isOptional: Bool = true) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }
}

/// A supported parameter combination: which parameters decide that two
/// donations are the same target, and how that target is shown.
public struct ParameterCombination: Sendable, Hashable {
    /// Parameter names, in declaration order.
    public var parameters: [String]
    /// A summary template such as `"Weather in ${location}"`.
    public var summary: String

    public init(parameters: [String], summary: String) {
        self.parameters = parameters
        self.summary = summary
    }

    /// Fills `${name}` placeholders with the parameters' display texts.
    public func renderSummary(_ values: [String: ParameterValue]) -> String {
        SummaryTemplate.render(summary, values: values)
    }
}

/// An intent an app defines.
public struct IntentDefinition: Sendable, Hashable {
    public var app: String
    public var name: String
    public var parameters: [ParameterDefinition]
    public var combinations: [ParameterCombination]
    /// Eligible to appear as a Siri-style suggestion.
    public var isEligibleForSuggestions: Bool
    /// Set when the intent configures a widget of this kind.
    public var widgetKind: String?
    /// The legacy intent class name this intent migrates (treated as the same intent).
    public var migratesFrom: String?
    /// Built-in intent kind with extra uses (`"sendMessage"` feeds people-and-Focus).
    public var kind: String?

    public init(app: String, name: String, parameters: [ParameterDefinition] = [], combinations: [ParameterCombination] = [],
                isEligibleForSuggestions: Bool = true, widgetKind: String? = nil, migratesFrom: String? = nil, kind: String? = nil) {
        self.app = app
        self.name = name
        self.parameters = parameters
        self.combinations = combinations
        self.isEligibleForSuggestions = isEligibleForSuggestions
        self.widgetKind = widgetKind
        self.migratesFrom = migratesFrom
        self.kind = kind
    }

    public func parameter(named name: String) -> ParameterDefinition? { parameters.first { $0.name == name } }

    /// The combination that applies to a donation's parameters: the largest
    /// one whose parameters are all set (the first declared among equals).
    public func combination(for values: [String: ParameterValue]) -> ParameterCombination? {
        var best: ParameterCombination?
        for combination in combinations where combination.parameters.allSatisfy({ values[$0] != nil }) {
            if best == nil || combination.parameters.count > best!.parameters.count { best = combination }
        }
        return best
    }
}

// MARK: - Summary templates

public enum SummaryTemplate {
    /// Replaces each `${name}` with the display text of `values[name]` (or the name when unset).
    /// An unterminated `${` and what follows it are kept as written.
    /// - Complexity: O(n) in the template's length.
    public static func render(_ template: String, values: [String: ParameterValue]) -> String {
        var output = ""
        var written = template.startIndex
        for placeholder in spans(template) {
            output += template[written..<placeholder.range.lowerBound]
            let name = String(placeholder.name)
            output += values[name]?.displayText ?? name
            written = placeholder.range.upperBound
        }
        output += template[written...]
        return output
    }

    /// The placeholder names a template uses, in order.
    /// - Complexity: O(n) in the template's length.
    public static func placeholders(_ template: String) -> [String] {
        spans(template).map { String($0.name) }
    }

    /// Every complete `${name}` in one left-to-right pass over the UTF-8 bytes
    /// (`$`, `{` and `}` are ASCII, so the indices fall on character boundaries).
    private static func spans(_ template: String) -> [(range: Range<String.Index>, name: Substring)] {
        var found: [(range: Range<String.Index>, name: Substring)] = []
        let utf8 = template.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let next = utf8.index(after: index)
            guard utf8[index] == UInt8(ascii: "$"), next != utf8.endIndex, utf8[next] == UInt8(ascii: "{") else {
                index = next
                continue
            }
            let nameStart = utf8.index(after: next)
            guard let close = utf8[nameStart...].firstIndex(of: UInt8(ascii: "}")) else { break }
            found.append((index..<utf8.index(after: close), template[nameStart..<close]))
            index = utf8.index(after: close)
        }
        return found
    }
}
