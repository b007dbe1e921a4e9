// MARK: - Writing intent definitions

extension IntentDefinition {
    /// The intent as one element of a definitions file's `intents` array (the
    /// form `IntentDefinitionSet.parse` reads; defaults are left out).
    public var intentJSON: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        if !parameters.isEmpty { members.append(("parameters", .array(parameters.map(\.json)))) }
        if !combinations.isEmpty {
            members.append(("combinations", .array(combinations.map { combination in
                .object([("parameters", .array(combination.parameters.map { .string($0) })), ("summary", .string(combination.summary))])
            })))
        }
        if !isEligibleForSuggestions { members.append(("eligibleForSuggestions", .bool(false))) }
        if let widgetKind { members.append(("widgetKind", .string(widgetKind))) }
        if let migratesFrom { members.append(("migratesFrom", .string(migratesFrom))) }
        if let kind { members.append(("kind", .string(kind))) }
        return .object(members)
    }
}

extension ParameterDefinition {
    /// The parameter as a definitions file writes it.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        switch type {
        case .string: members.append(("type", .string("string")))
        case .int: members.append(("type", .string("int")))
        case .double: members.append(("type", .string("double")))
        case .bool: members.append(("type", .string("bool")))
        case .date: members.append(("type", .string("date")))
        case let .enumeration(cases):
            members.append(("type", .string("enum")))
            members.append(("cases", .array(cases.map { .string($0) })))
        case let .entity(entityType):
            members.append(("type", .string("entity")))
            if entityType != name { members.append(("entityType", .string(entityType))) }
        }
        if !isOptional { members.append(("optional", .bool(false))) }
        return .object(members)
    }
}

extension IntentDefinitionSet {
    /// A definitions file for `definitions`: one `{"app", "intents"}` object per
    /// app (apps in first-seen order), as an array. `parse` reads it back to the same definitions.
    public static func json(_ definitions: [IntentDefinition]) -> JSONValue {
        var apps: [String] = []
        var intents: [String: [JSONValue]] = [:]
        for definition in definitions {
            if intents[definition.app] == nil { apps.append(definition.app) }
            intents[definition.app, default: []].append(definition.intentJSON)
        }
        return .array(apps.map { .object([("app", .string($0)), ("intents", .array(intents[$0]!))]) })
    }
}
