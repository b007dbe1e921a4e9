// MARK: - Parameter values

/// The value of one intent parameter in a donation.
///
/// JSON form (docs/FORMATS.md): a string, a number, a boolean, or an entity
/// `{"id": ..., "display": ...}`. Dates and enum cases travel as strings.
public enum ParameterValue: Sendable, Hashable, CustomStringConvertible {
    /// Text; also how dates (ISO 8601 text) and enum cases travel. JSON: a string.
    case string(String)
    /// A whole number. JSON: a number without a fraction or exponent.
    case int(Int64)
    /// A number with a fraction. JSON: any other number.
    case double(Double)
    /// JSON: `true` or `false`.
    case bool(Bool)
    /// An app entity: a stable identifier plus an optional display string.
    /// Entities compare by `id` when deciding whether donations are the same target.
    case entity(id: String, display: String?)

    /// The text that identifies the value in a target key (entities by id).
    public var keyText: String {
        switch self {
        case let .string(text): return text
        case let .int(value): return String(value)
        case let .double(value): return value.description
        case let .bool(flag): return flag ? "true" : "false"
        case let .entity(id, _): return id
        }
    }

    /// The text shown to a person (entities by display string when present).
    public var displayText: String {
        if case let .entity(id, display) = self { return display ?? id }
        return keyText
    }

    public var description: String { displayText }

    /// The JSON form written in donation logs.
    public var json: JSONValue {
        switch self {
        case let .string(text): return .string(text)
        case let .int(value): return .number(Double(value), integer: value)
        case let .double(value): return .number(value, integer: nil)
        case let .bool(flag): return .bool(flag)
        case let .entity(id, display):
            var members: [(String, JSONValue)] = [("id", .string(id))]
            if let display { members.append(("display", .string(display))) }
            return .object(members)
        }
    }

    /// Reads a parameter value from JSON.
    /// - Throws: a reason (without the field name) when the value has a shape
    ///   parameters cannot take.
    public init(json: JSONValue) throws(DonationLineError) {
        switch json {
        case let .string(text): self = .string(text)
        case let .bool(flag): self = .bool(flag)
        case let .number(value, integer):
            if let integer { self = .int(integer) } else { self = .double(value) }
        case let .object(members):
            guard case let .string(id)? = json["id"] else {
                throw DonationLineError(field: nil, reason: "an entity needs a string \"id\"")
            }
            var display: String?
            for (key, value) in members {
                switch key {
                case "id": continue
                case "display":
                    guard case let .string(text) = value else {
                        throw DonationLineError(field: nil, reason: "an entity's \"display\" must be a string, found \(value.kindName)")
                    }
                    display = text
                default:
                    throw DonationLineError(field: nil, reason: "an entity has only \"id\" and \"display\", found \"\(key)\"")
                }
            }
            self = .entity(id: id, display: display)
        case .null, .array:
            throw DonationLineError(field: nil, reason: "must be a string, number, boolean or entity object, found \(json.kindName)")
        }
    }
}
