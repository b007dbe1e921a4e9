// MARK: - A set of intent definitions

/// A definition file problem, with the JSON path of the offending element.
public struct DefinitionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where in the file, e.g. `intents[1].combinations[0].parameters[2]`.
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

/// All intent definitions known to the engine, indexed by app and intent name
/// (and by legacy class name for migrated intents).
///
/// File format (one app per object; a file may hold one object or an array):
/// ```json
/// {"app": "com.example.coffee",
///  "intents": [{"name": "OrderCoffeeIntent",
///               "parameters": [{"name": "item", "type": "string"},
///                              {"name": "size", "type": "enum", "cases": ["small", "large"]},
///                              {"name": "date", "type": "date", "optional": true}],
///               "combinations": [{"parameters": ["item", "size"], "summary": "Order a ${size} ${item}"}],
///               "eligibleForSuggestions": true,
///               "widgetKind": "com.example.coffee.order",
///               "migratesFrom": "LegacyOrderCoffeeIntent",
///               "kind": "sendMessage"}]}
/// ```
public struct IntentDefinitionSet: Sendable {
    public private(set) var definitions: [IntentDefinition] = []
    private var byKey: [String: Int] = [:]
    private var byLegacyKey: [String: Int] = [:]

    public init() {}

    public init(_ definitions: [IntentDefinition]) throws(DefinitionError) {
        for definition in definitions { try add(definition) }
    }

    private static func key(_ app: String, _ intent: String) -> String { app + "\u{1F}" + intent }

    /// Adds a definition, replacing an earlier one with the same app and name.
    public mutating func add(_ definition: IntentDefinition) throws(DefinitionError) {
        let key = Self.key(definition.app, definition.name)
        if let legacy = definition.migratesFrom {
            let legacyKey = Self.key(definition.app, legacy)
            if let other = byKey[legacyKey], definitions[other].name != definition.name {
                throw DefinitionError(path: definition.name, reason: "migrates \(legacy), which is itself defined as a current intent of \(definition.app)")
            }
        }
        if let existing = byKey[key] {
            definitions[existing] = definition
        } else {
            byKey[key] = definitions.count
            definitions.append(definition)
        }
        if let legacy = definition.migratesFrom { byLegacyKey[Self.key(definition.app, legacy)] = byKey[key] }
    }

    /// The definition for an app's intent, following migration: a legacy class
    /// name resolves to the intent that migrates it.
    public func definition(app: String, intent: String) -> IntentDefinition? {
        let key = Self.key(app, intent)
        if let index = byKey[key] ?? byLegacyKey[key] { return definitions[index] }
        return nil
    }

    public var isEmpty: Bool { definitions.isEmpty }

    // MARK: Parsing

    /// Parses and validates a definitions file's JSON text.
    public static func parse(_ text: String) throws(DefinitionError) -> [IntentDefinition] {
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch { throw DefinitionError(path: "", reason: error.description) }
        return try parse(json)
    }

    /// Parses and validates a definitions file's bytes; invalid UTF-8 is an
    /// error (reading a file as `String` would silently repair it).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(DefinitionError) -> [IntentDefinition] {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw DefinitionError(path: "", reason: error.description) }
        return try parse(json)
    }

    public static func parse(_ json: JSONValue) throws(DefinitionError) -> [IntentDefinition] {
        switch json {
        case .object: return try parseApp(json, path: "")
        case let .array(apps):
            var all: [IntentDefinition] = []
            for (index, app) in apps.enumerated() { all += try parseApp(app, path: "[\(index)]") }
            try checkUnique(all)
            return all
        default:
            throw DefinitionError(path: "", reason: "a definitions file is an object {\"app\", \"intents\"} or an array of them, found \(json.kindName)")
        }
    }

    private static func checkUnique(_ definitions: [IntentDefinition]) throws(DefinitionError) {
        var seen = Set<String>()
        for definition in definitions {
            guard seen.insert(key(definition.app, definition.name)).inserted else {
                throw DefinitionError(path: definition.name, reason: "intent \(definition.name) of \(definition.app) is defined twice")
            }
        }
    }

    private static func join(_ path: String, _ member: String) -> String { path.isEmpty ? member : path + "." + member }

    private static func string(_ value: JSONValue?, _ path: String, required: Bool = true) throws(DefinitionError) -> String? {
        guard let value, value != .null else {
            if required { throw DefinitionError(path: path, reason: "missing (required)") }
            return nil
        }
        guard case let .string(text) = value else {
            throw DefinitionError(path: path, reason: "must be a non-empty string, found \(value.kindName)")
        }
        guard !text.isEmpty else { throw DefinitionError(path: path, reason: "must not be empty") }
        return text
    }

    private static func bool(_ value: JSONValue?, _ path: String, default fallback: Bool) throws(DefinitionError) -> Bool {
        guard let value, value != .null else { return fallback }
        guard case let .bool(flag) = value else { throw DefinitionError(path: path, reason: "must be true or false, found \(value.kindName)") }
        return flag
    }

    private static func array(_ value: JSONValue?, _ path: String) throws(DefinitionError) -> [JSONValue] {
        guard let value, value != .null else { return [] }
        guard case let .array(elements) = value else { throw DefinitionError(path: path, reason: "must be an array, found \(value.kindName)") }
        return elements
    }

    private static func parseApp(_ json: JSONValue, path: String) throws(DefinitionError) -> [IntentDefinition] {
        guard case .object = json else { throw DefinitionError(path: path, reason: "must be an object, found \(json.kindName)") }
        let app = try string(json["app"], join(path, "app"))!
        var definitions: [IntentDefinition] = []
        for (index, intent) in try array(json["intents"], join(path, "intents")).enumerated() {
            definitions.append(try parseIntent(intent, app: app, path: join(path, "intents[\(index)]")))
        }
        try checkUnique(definitions)
        return definitions
    }

    private static func parseIntent(_ json: JSONValue, app: String, path: String) throws(DefinitionError) -> IntentDefinition {
        guard case .object = json else { throw DefinitionError(path: path, reason: "an intent must be an object, found \(json.kindName)") }
        let name = try string(json["name"], join(path, "name"))!
        // Sets keep the uniqueness checks linear in the file size (hostile files).
        var parameters: [ParameterDefinition] = []
        var known = Set<String>()
        for (index, raw) in try array(json["parameters"], join(path, "parameters")).enumerated() {
            let parameterPath = join(path, "parameters[\(index)]")
            let parameter = try parseParameter(raw, path: parameterPath)
            guard known.insert(parameter.name).inserted else {
                throw DefinitionError(path: join(parameterPath, "name"), reason: "duplicate parameter name \"\(parameter.name)\" in intent \(name)")
            }
            parameters.append(parameter)
        }
        var combinations: [ParameterCombination] = []
        var declared = Set<Set<String>>()
        for (index, raw) in try array(json["combinations"], join(path, "combinations")).enumerated() {
            let combinationPath = join(path, "combinations[\(index)]")
            guard case .object = raw else { throw DefinitionError(path: combinationPath, reason: "must be an object, found \(raw.kindName)") }
            var names: [String] = []
            var members = Set<String>()
            for (position, element) in try array(raw["parameters"], join(combinationPath, "parameters")).enumerated() {
                let elementPath = join(combinationPath, "parameters[\(position)]")
                let parameterName = try string(element, elementPath)!
                guard known.contains(parameterName) else {
                    let defined = parameters.map(\.name)
                    throw DefinitionError(path: elementPath, reason: "unknown parameter \"\(parameterName)\" (intent \(name) has: \(defined.isEmpty ? "none" : defined.joined(separator: ", ")))")
                }
                guard members.insert(parameterName).inserted else {
                    throw DefinitionError(path: elementPath, reason: "parameter \"\(parameterName)\" is listed twice")
                }
                names.append(parameterName)
            }
            let summary = try string(raw["summary"], join(combinationPath, "summary"), required: false) ?? name
            for placeholder in SummaryTemplate.placeholders(summary) where !members.contains(placeholder) {
                throw DefinitionError(path: join(combinationPath, "summary"), reason: "placeholder ${\(placeholder)} is not a parameter of this combination (\(names.joined(separator: ", ")))")
            }
            guard declared.insert(members).inserted else {
                throw DefinitionError(path: combinationPath, reason: "the same combination (\(names.joined(separator: ", "))) is declared twice")
            }
            combinations.append(ParameterCombination(parameters: names, summary: summary))
        }
        let eligible = try bool(json["eligibleForSuggestions"], join(path, "eligibleForSuggestions"), default: true)
        let widgetKind = try string(json["widgetKind"], join(path, "widgetKind"), required: false)
        let configuresWidget = try bool(json["configuresWidget"], join(path, "configuresWidget"), default: widgetKind != nil)
        if configuresWidget && widgetKind == nil {
            throw DefinitionError(path: join(path, "widgetKind"), reason: "an intent that configures a widget needs a widgetKind")
        }
        let migratesFrom = try string(json["migratesFrom"], join(path, "migratesFrom"), required: false)
        if migratesFrom == name { throw DefinitionError(path: join(path, "migratesFrom"), reason: "an intent cannot migrate itself") }
        let kind = try string(json["kind"], join(path, "kind"), required: false)
        return IntentDefinition(app: app, name: name, parameters: parameters, combinations: combinations,
                                isEligibleForSuggestions: eligible, widgetKind: configuresWidget ? widgetKind : nil,
                                migratesFrom: migratesFrom, kind: kind)
    }

    private static func parseParameter(_ json: JSONValue, path: String) throws(DefinitionError) -> ParameterDefinition {
        guard case .object = json else { throw DefinitionError(path: path, reason: "a parameter must be an object, found \(json.kindName)") }
        let name = try string(json["name"], join(path, "name"))!
        let typeName = try string(json["type"], join(path, "type"))!
        let type: ParameterType
        switch typeName {
        case "string": type = .string
        case "int", "integer": type = .int
        case "double", "number": type = .double
        case "bool", "boolean": type = .bool
        case "date": type = .date
        case "enum":
            var cases: [String] = []
            var distinct = Set<String>()
            for (index, raw) in try array(json["cases"], join(path, "cases")).enumerated() {
                let text = try string(raw, join(path, "cases[\(index)]"))!
                guard distinct.insert(text).inserted else { throw DefinitionError(path: join(path, "cases[\(index)]"), reason: "duplicate case \"\(text)\"") }
                cases.append(text)
            }
            guard !cases.isEmpty else { throw DefinitionError(path: join(path, "cases"), reason: "an enum parameter needs at least one case") }
            type = .enumeration(cases: cases)
        case "entity":
            type = .entity(type: try string(json["entityType"], join(path, "entityType"), required: false) ?? name)
        default:
            throw DefinitionError(path: join(path, "type"), reason: "unknown type \"\(typeName)\" (expected string, int, double, bool, date, enum or entity)")
        }
        let optional = try bool(json["optional"], join(path, "optional"), default: true)
        return ParameterDefinition(name: name, type: type, isOptional: optional)
    }
}
