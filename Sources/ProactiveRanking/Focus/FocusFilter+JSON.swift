import ProactiveCore

// MARK: - JSON form of a Focus filter declaration

extension FocusFilter {
    /// Parses an app's Focus filter declaration.
    ///
    /// ```json
    /// {"app": "com.example.mail",
    ///  "title": "Set account and appearance",
    ///  "description": "Choose the account and look of Mail in this Focus",
    ///  "parameters": [
    ///    {"name": "alwaysUseDarkMode", "title": "Always use dark mode", "type": "bool",
    ///     "optional": false, "default": false},
    ///    {"name": "status", "title": "Status", "type": "string"},
    ///    {"name": "account", "title": "Account", "type": "entity", "entityType": "Account",
    ///     "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}],
    ///     "matches": "account"}]}
    /// ```
    ///
    /// - `type`: `bool`, `string`, `number` or `entity` (`entityType` defaults
    ///   to the parameter name; `options` optional).
    /// - `optional` defaults to true. A required parameter must give a
    ///   `default` of its type; an optional one must not (unset is its default).
    /// - `title` (of a parameter) defaults to its name; `matches` names the
    ///   target parameter / notification criteria key the value filters.
    /// - `app` may be omitted when `app` is passed; when both are given they must agree
    ///   (an app declares only its own filter).
    /// - Throws: `FocusError` with the JSON path of the offending element.
    package static func parse(_ text: String, app: String? = nil) throws(FocusError) -> FocusFilter {
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch { throw FocusError(field: "", reason: error.description) }
        return try parse(json, app: app)
    }

    package static func parse(_ json: JSONValue, app expectedApp: String? = nil) throws(FocusError) -> FocusFilter {
        guard case .object = json else { throw FocusError(field: "", reason: "a Focus filter is an object, found \(json.kindName)") }
        let stated = try string(json["app"], "app", required: expectedApp == nil)
        if let stated, let expectedApp, stated != expectedApp {
            throw FocusError(field: "app", reason: "the file declares a filter for \(stated), not for \(expectedApp): an app declares only its own filter")
        }
        let app = stated ?? expectedApp!
        if let problem = IdentifierRules.bundleIdentifierProblem(app) { throw FocusError(field: "app", reason: problem) }
        let title = try string(json["title"], "title")!
        let description = try string(json["description"], "description", required: false, allowEmpty: true) ?? ""
        guard case let .array(rawParameters)? = json["parameters"] else {
            throw FocusError(field: "parameters", reason: "missing (an array of parameters)")
        }
        var parameters: [FocusFilterParameter] = []
        for (index, raw) in rawParameters.enumerated() {
            let parameter = try parseParameter(raw, path: "parameters[\(index)]")
            guard !parameters.contains(where: { $0.name == parameter.name }) else {
                throw FocusError(field: "parameters[\(index)].name", reason: "duplicate parameter \"\(parameter.name)\"")
            }
            parameters.append(parameter)
        }
        return FocusFilter(app: app, title: title, description: description, parameters: parameters)
    }

    private static func parseParameter(_ json: JSONValue, path: String) throws(FocusError) -> FocusFilterParameter {
        guard case .object = json else { throw FocusError(field: path, reason: "a parameter is an object, found \(json.kindName)") }
        let name = try string(json["name"], path + ".name")!
        if let problem = IdentifierRules.parameterNameProblem(name) { throw FocusError(field: path + ".name", reason: problem) }
        let title = try string(json["title"], path + ".title", required: false)
        let typeName = try string(json["type"], path + ".type")!
        let type: FocusFilterParameterType
        switch typeName {
        case "bool", "boolean": type = .bool
        case "string": type = .string
        case "number", "int", "double": type = .number
        case "entity":
            let entityType = try string(json["entityType"], path + ".entityType", required: false) ?? name
            var options: [FocusFilterEntity] = []
            if let rawOptions = json["options"], rawOptions != .null {
                guard case let .array(elements) = rawOptions else {
                    throw FocusError(field: path + ".options", reason: "must be an array of {\"id\", \"display\"}, found \(rawOptions.kindName)")
                }
                for (index, element) in elements.enumerated() {
                    let id = try string(element["id"], "\(path).options[\(index)].id")!
                    let display = try string(element["display"], "\(path).options[\(index)].display", required: false) ?? id
                    guard !options.contains(where: { $0.id == id }) else {
                        throw FocusError(field: "\(path).options[\(index)].id", reason: "duplicate entity id \"\(id)\"")
                    }
                    options.append(FocusFilterEntity(id: id, display: display))
                }
            }
            type = .entity(type: entityType, options: options)
        default:
            throw FocusError(field: path + ".type", reason: "unknown type \"\(typeName)\" (expected bool, string, number or entity)")
        }
        var isOptional = true
        if let raw = json["optional"], raw != .null {
            guard case let .bool(flag) = raw else { throw FocusError(field: path + ".optional", reason: "must be true or false, found \(raw.kindName)") }
            isOptional = flag
        }
        let matches = try string(json["matches"], path + ".matches", required: false)
        var parameter = FocusFilterParameter(name: name, title: title, type: type, isOptional: isOptional, matches: matches)
        let rawDefault = json["default"].flatMap { $0 == .null ? nil : $0 }
        switch (isOptional, rawDefault) {
        case (true, nil): break
        case (true, _?):
            throw FocusError(field: path + ".default", reason: "an optional parameter has no default (unset is its default); make it \"optional\": false or drop the default")
        case (false, nil):
            throw FocusError(field: path + ".default", reason: "a required parameter needs a default value")
        case let (false, raw?):
            let value: ParameterValue
            do { value = try ParameterValue(json: raw) } catch { throw FocusError(field: path + ".default", reason: error.reason) }
            guard parameter.accepts(value) else {
                throw FocusError(field: path + ".default", reason: "expected a \(type) value, found \(raw.kindName)")
            }
            parameter.defaultValue = value
        }
        return parameter
    }

    private static func string(_ value: JSONValue?, _ path: String, required: Bool = true, allowEmpty: Bool = false) throws(FocusError) -> String? {
        guard let value, value != .null else {
            if required { throw FocusError(field: path, reason: "missing (required)") }
            return nil
        }
        guard case let .string(text) = value, allowEmpty || !text.isEmpty else {
            throw FocusError(field: path, reason: "must be a non-empty string, found \(value.kindName)")
        }
        return text
    }

    // MARK: Writing

    /// The declaration as JSON (the form `parse` reads), e.g. to store it.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("app", .string(app)), ("title", .string(title))]
        if !description.isEmpty { members.append(("description", .string(description))) }
        members.append(("parameters", .array(parameters.map(\.json))))
        return .object(members)
    }
}

extension FocusFilterParameter {
    /// The parameter as JSON (the form `FocusFilter.parse` reads).
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        if title != name { members.append(("title", .string(title))) }
        switch type {
        case .bool: members.append(("type", .string("bool")))
        case .string: members.append(("type", .string("string")))
        case .number: members.append(("type", .string("number")))
        case let .entity(entityType, options):
            members.append(("type", .string("entity")))
            members.append(("entityType", .string(entityType)))
            if !options.isEmpty {
                members.append(("options", .array(options.map { .object([("id", .string($0.id)), ("display", .string($0.display))]) })))
            }
        }
        if !isOptional { members.append(("optional", .bool(false))) }
        if let defaultValue { members.append(("default", defaultValue.json)) }
        if let matches { members.append(("matches", .string(matches))) }
        return .object(members)
    }
}
