import Foundation

// MARK: - Donation lines (JSON Lines, docs/FORMATS.md)

/// Reads and writes one donation per JSON line.
///
/// Decoding validates every field and throws a `DonationLineError` naming the
/// field. Encoding writes the canonical form: fields in the order `user, app,
/// intent, parameters, date, identifier, group, context, count`, object
/// members sorted by key, optional fields omitted when empty, `count` omitted
/// when 1. Canonical input round-trips byte for byte.
public enum DonationLineCodec {
    /// Lines longer than this are rejected before parsing (bounded memory).
    public static let maximumLineBytes = 1 << 20
    /// The largest `count` a line may carry.
    public static let maximumCount = Int(Int32.max)

    // MARK: Decoding

    public static func decode(_ line: String) throws(DonationLineError) -> Donation {
        var copy = line
        let result: Result<Donation, DonationLineError> = copy.withUTF8 { buffer in
            do throws(DonationLineError) { return .success(try decode(UnsafeRawBufferPointer(buffer))) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The fields of a donation line, in canonical order.
    public static let fields = ["user", "app", "intent", "parameters", "date", "identifier", "group", "context", "count", "timezone"]

    /// What a line holds besides its donation: the user's zone (`timezone`, as `export` writes it)
    /// and the fields the format does not define (ignored; a caller may warn or refuse).
    public struct LineExtras: Sendable, Equatable {
        /// The user's IANA zone the line states (a known zone).
        public var timeZone: String?
        /// The names of the fields not in `fields`, in line order.
        public var unknownFields: [String] = []

        public init() {}
    }

    /// What an unknown field is called out as: `paramters: unknown field (did you mean "parameters"?)`.
    public static func unknownField(_ name: String) -> DonationLineError {
        let hint = Spelling.suggestion(for: name, among: fields).map { " (did you mean \"\($0)\"?)" } ?? ""
        return DonationLineError(field: name, reason: "unknown field\(hint)")
    }

    /// Decodes one line (without its newline); unknown fields are ignored (docs/FORMATS.md).
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DonationLineError) -> Donation {
        var ignored = LineExtras()
        return try decode(bytes, extras: &ignored)
    }

    /// Decodes one line (without its newline), telling `extras` the user's zone it states and the
    /// fields it ignored (not in `fields`), so that a caller can apply the one and warn of the others.
    public static func decode(_ bytes: UnsafeRawBufferPointer, extras: inout LineExtras) throws(DonationLineError) -> Donation {
        guard bytes.count <= maximumLineBytes else {
            throw DonationLineError(field: nil, reason: "line is \(bytes.count) bytes, longer than the limit of \(maximumLineBytes)")
        }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw DonationLineError(field: nil, reason: error.description) }
        let donation = try decode(json, extras: &extras)
        // What is accepted must export as a line that is accepted again. The
        // canonical form is never more than 5 times the input (numbers: `1e15`
        // is written `1000000000000000.0`) plus the defaulted `user` and a
        // written-out date, so only long lines need the check.
        if bytes.count > maximumLineBytes / canonicalExpansionBound {
            let canonical = encode(donation).utf8.count
            guard canonical <= maximumLineBytes else {
                throw DonationLineError(field: nil, reason: "the line's canonical form (what export writes) is \(canonical) bytes, longer than the limit of \(maximumLineBytes)")
            }
        }
        return donation
    }

    /// Lines up to `maximumLineBytes / canonicalExpansionBound` bytes cannot have a canonical form over the limit.
    static let canonicalExpansionBound = 8

    /// Decodes a donation object; unknown fields are ignored (docs/FORMATS.md).
    public static func decode(_ json: JSONValue) throws(DonationLineError) -> Donation {
        var ignored = LineExtras()
        return try decode(json, extras: &ignored)
    }

    /// Decodes a donation object, telling `extras` its `timezone` and the fields it ignored.
    public static func decode(_ json: JSONValue, extras: inout LineExtras) throws(DonationLineError) -> Donation {
        guard case let .object(members) = json else {
            throw DonationLineError(field: nil, reason: "a donation must be a JSON object, found \(json.kindName)")
        }
        var user = Donation.defaultUser
        var app: String?
        var intent: String?
        var parameters: [String: ParameterValue] = [:]
        var date: Date?
        var offset: Int?
        var identifier: String?
        var group: String?
        var context: [String: String] = [:]
        var count = 1
        var seen = Set<String>(minimumCapacity: members.count)  // no rehashing while checking
        for (key, value) in members {
            guard seen.insert(key).inserted else { throw DonationLineError(field: key, reason: "appears twice") }
            switch key {
            case "user": user = try identifyingString(value, field: key)
            case "app":
                let text = try nonEmptyString(value, field: key)
                if let problem = IdentifierRules.bundleIdentifierProblem(text) { throw DonationLineError(field: key, reason: problem) }
                app = text
            case "intent": intent = try identifyingString(value, field: key)
            case "identifier": identifier = try optionalString(value, field: key)
            case "group": group = try optionalString(value, field: key)
            case "parameters":
                if case .null = value { continue }
                guard case let .object(entries) = value else {
                    throw DonationLineError(field: key, reason: "must be an object, found \(value.kindName)")
                }
                for (name, raw) in entries {
                    if case .null = raw { continue }  // an unset parameter
                    guard !name.isEmpty else { throw DonationLineError(field: key, reason: "a parameter name is empty") }
                    if let problem = IdentifierRules.parameterNameProblem(name) { throw DonationLineError(field: key, reason: problem) }
                    guard parameters[name] == nil else { throw DonationLineError(field: "parameters.\(name)", reason: "appears twice") }
                    if let problem = nulProblem(raw) { throw DonationLineError(field: "parameters.\(name)", reason: problem) }
                    do {
                        parameters[name] = try ParameterValue(json: raw)
                    } catch {
                        throw DonationLineError(field: "parameters.\(name)", reason: error.reason)
                    }
                }
            case "context":
                if case .null = value { continue }
                guard case let .object(entries) = value else {
                    throw DonationLineError(field: key, reason: "must be an object of strings, found \(value.kindName)")
                }
                for (name, raw) in entries {
                    guard case let .string(text) = raw else {
                        throw DonationLineError(field: "context.\(name)", reason: "must be a string, found \(raw.kindName)")
                    }
                    guard context[name] == nil else { throw DonationLineError(field: "context.\(name)", reason: "appears twice") }
                    context[name] = text
                }
            case "date":
                switch value {
                case let .string(text):
                    let parsed = try Timestamp.parse(text)
                    date = Date(secondsRoundedToMillisecond: parsed.secondsSince1970)
                    offset = parsed.utcOffsetSeconds
                case let .number(seconds, _):
                    date = Date(secondsRoundedToMillisecond: try Timestamp.validateUnixSeconds(seconds))
                    offset = nil
                default:
                    throw DonationLineError(field: key, reason: "must be an ISO 8601 string or Unix seconds, found \(value.kindName)")
                }
            case "count":
                guard case let .number(number, integer) = value else {
                    throw DonationLineError(field: key, reason: "must be an integer >= 1, found \(value.kindName)")
                }
                guard let integer else { throw nonIntegerCount(number) }
                guard integer >= 1 else { throw DonationLineError(field: key, reason: "must be >= 1, found \(integer)") }
                guard integer <= maximumCount else { throw DonationLineError(field: key, reason: "\(integer) is too large (at most \(maximumCount))") }
                count = Int(integer)
            case "timezone":
                guard case let .string(name) = value, TimeZone(identifier: name) != nil else {
                    var near: String?
                    if case let .string(name) = value { near = Spelling.suggestion(for: name, among: TimeZone.knownTimeZoneIdentifiers) }
                    throw DonationLineError(field: key, reason: "must be an IANA time zone such as America/New_York"
                                            + (near.map { " (did you mean \($0)?)" } ?? ""))
                }
                extras.timeZone = name
            default:
                extras.unknownFields.append(key)  // allowed (docs/FORMATS.md: new optional fields are compatible); the caller may warn
            }
        }
        guard let app else { throw DonationLineError(field: "app", reason: "missing (required)") }
        guard let intent else { throw DonationLineError(field: "intent", reason: "missing (required)") }
        guard let date else { throw DonationLineError(field: "date", reason: "missing (required)") }
        return Donation(user: user, app: app, intent: intent, parameters: parameters, date: date, utcOffset: offset,
                        identifier: identifier, group: group, context: context, count: count)
    }

    /// Why a count literal that is not an integer literal in Int64 (a fraction,
    /// an exponent, or a huge integer) is rejected: not whole, out of range on
    /// either side, or a whole number in range written as `1.0` / `1e2`.
    private static func nonIntegerCount(_ number: Double) -> DonationLineError {
        if number != number.rounded() { return DonationLineError(field: "count", reason: "must be an integer >= 1, found \(number)") }
        if number < 1 { return DonationLineError(field: "count", reason: "must be >= 1, found \(number)") }
        if number > Double(maximumCount) { return DonationLineError(field: "count", reason: "\(number) is too large (at most \(maximumCount))") }
        return DonationLineError(field: "count", reason: "must be written as an integer, found \(number)")
    }

    private static func nonEmptyString(_ value: JSONValue, field: String) throws(DonationLineError) -> String {
        guard case let .string(text) = value else { throw DonationLineError(field: field, reason: "must be a string, found \(value.kindName)") }
        guard !text.isEmpty else { throw DonationLineError(field: field, reason: "must not be empty") }
        return text
    }

    /// Why a parameter's value (its strings and member names, at any depth) cannot be stored: one holds U+0000
    /// (`IdentifierRules.textValueProblem`); nil when none does.
    private static func nulProblem(_ value: JSONValue) -> String? {
        switch value {
        case let .string(text): return IdentifierRules.textValueProblem(text)
        case let .array(items): return items.lazy.compactMap(nulProblem).first
        case let .object(members):
            for (name, member) in members {
                if let problem = IdentifierRules.textValueProblem(name).map({ "a member name " + $0 }) ?? nulProblem(member) { return problem }
            }
            return nil
        default: return nil
        }
    }

    /// A non-empty string without control characters (`IdentifierRules`).
    private static func identifyingString(_ value: JSONValue, field: String) throws(DonationLineError) -> String {
        let text = try nonEmptyString(value, field: field)
        if let problem = IdentifierRules.controlCharacterProblem(text) { throw DonationLineError(field: field, reason: problem) }
        return text
    }

    private static func optionalString(_ value: JSONValue, field: String) throws(DonationLineError) -> String? {
        if case .null = value { return nil }
        return try identifyingString(value, field: field)
    }

    // MARK: Encoding

    /// The canonical JSON line for a donation (without a trailing newline).
    public static func encode(_ donation: Donation) -> String { encode(donation, timeZone: nil) }

    /// The canonical JSON line for a donation; with `timeZone`, the user's zone as a last field
    /// `"timezone"` (what `export` writes for a user with one).
    public static func encode(_ donation: Donation, timeZone: String?) -> String {
        var out = "{\"user\":"
        out.reserveCapacity(256)
        JSONWriter.appendString(donation.user, to: &out)
        out.append(",\"app\":")
        JSONWriter.appendString(donation.app, to: &out)
        out.append(",\"intent\":")
        JSONWriter.appendString(donation.intent, to: &out)
        if !donation.parameters.isEmpty {
            out.append(",\"parameters\":{")
            for (offset, name) in donation.parameters.keys.sorted().enumerated() {
                if offset > 0 { out.append(",") }
                JSONWriter.appendString(name, to: &out)
                out.append(":")
                JSONWriter.append(donation.parameters[name]!.json, to: &out)
            }
            out.append("}")
        }
        out.append(",\"date\":\"")
        out.append(Timestamp.format(secondsSince1970: donation.date.timeIntervalSince1970, utcOffsetSeconds: donation.utcOffset ?? 0))
        out.append("\"")
        if let identifier = donation.identifier {
            out.append(",\"identifier\":")
            JSONWriter.appendString(identifier, to: &out)
        }
        if let group = donation.group {
            out.append(",\"group\":")
            JSONWriter.appendString(group, to: &out)
        }
        if !donation.context.isEmpty {
            out.append(",\"context\":{")
            for (offset, name) in donation.context.keys.sorted().enumerated() {
                if offset > 0 { out.append(",") }
                JSONWriter.appendString(name, to: &out)
                out.append(":")
                JSONWriter.appendString(donation.context[name]!, to: &out)
            }
            out.append("}")
        }
        if donation.count != 1 { out.append(",\"count\":\(donation.count)") }
        if let timeZone {
            out.append(",\"timezone\":")
            JSONWriter.appendString(timeZone, to: &out)
        }
        out.append("}")
        return out
    }
}
