import Foundation
import Hummingbird
import ProactiveCore

// MARK: - Request bodies as Decodable types

/// The service's `RequestDecoder` (`request.decode(as:context:)`): a JSON body, read with the engine's
/// parser (`JSONParser`) up to the context's `maxUploadSize`, decoded into a `Decodable` type. Every
/// refusal is a 400 `APIError` whose `field` is the member at fault (`k`, `context.focus`, `widgets[1]`):
///
/// - a member the type does not define (a type whose `CodingKeys` are `CaseIterable` is closed):
///   `unknown field (did you mean "user"?)` when a defined name is close, else the names defined;
/// - a required member absent: `missing (required, an array of strings)`;
/// - a member of another type, or null where a value is required: `must be an integer, found a string`;
/// - a type's own check (`RequestBodyError`, thrown from its `init(from:)`): its reason.
///
/// An empty body decodes as `{}`; a body that is not JSON is a 400 `invalid_json`.
///
/// ```swift
/// struct Focus: Decodable {
///     var focus: String
///     enum CodingKeys: String, CodingKey, CaseIterable { case focus }
/// }
/// let body = try await request.decode(as: Focus.self, context: context)
/// // {"focsu": "work"}: 400, field "focsu", `unknown field (did you mean "focus"?)`
/// ```
public struct JSONRequestDecoder: RequestDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let body = try await BodyReading.collect(request, maxBody: context.maxUploadSize)
        return try Self.decode(type, from: body.readableBytes > 0 ? try BodyReading.json(body) : .object([]))
    }

    /// `json` as a `T`, refusals as `decode` answers them.
    public static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
        do {
            return try ValueDecoder(value: json, codingPath: []).decodeValue(T.self)
        } catch let error as RequestBodyError {
            throw APIError.badRequest(error.reason, field: error.field)
        } catch let error as DecodingError {
            throw APIError.badRequest("\(error)")
        }
    }
}

/// Why a request body was refused, and where: thrown by `JSONRequestDecoder` and by a body type's own
/// checks in its `init(from:)`.
public struct RequestBodyError: Error {
    /// The member at fault, as a path from the body (empty: the body itself).
    public var path: [any CodingKey]
    public var reason: String

    public init(_ reason: String, at path: [any CodingKey]) {
        self.path = path
        self.reason = reason
    }

    /// The path written as the API names fields: `context.focus`, `parameters[0].options[1]`; nil for the body.
    public var field: String? { path.isEmpty ? nil : Self.field(path) }

    static func field(_ path: [any CodingKey]) -> String {
        path.reduce(into: "") { text, key in
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
    }

    /// A member named as no field is, at `path + [name]` (`unknownField(_:among:)` says why).
    static func unknownField(_ name: String, among fields: [String], at path: [any CodingKey]) -> RequestBodyError {
        RequestBodyError(unknownField(name, among: fields), at: path + [PathKey(name)])
    }

    /// Why a member named `name` is refused: `unknown field (did you mean "user"?)` when one of `fields` is
    /// close (`Spelling`), else `unknown field (the fields are user, at, context, k)`.
    static func unknownField(_ name: String, among fields: [String]) -> String {
        if let near = Spelling.suggestion(for: name, among: fields) { return "unknown field (did you mean \"\(near)\"?)" }
        return "unknown field (the fields are \(fields.joined(separator: ", ")))"
    }
}

extension KeyedDecodingContainer {
    /// A refusal of the member `key` for a type's own reason (`k` out of range, an empty name).
    func refuse(_ key: Key, _ reason: String) -> RequestBodyError { RequestBodyError(reason, at: codingPath + [key]) }

    /// The member `key` when present, checked by `check` (nil: fine; else the reason it is refused).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key, check: (T) -> String?) throws -> T? {
        guard let value = try decodeIfPresent(type, forKey: key) else { return nil }
        if let problem = check(value) { throw refuse(key, problem) }
        return value
    }
}

/// A key in a path: a member name or an array index.
struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ name: String) { stringValue = name }
    init(index: Int) {
        stringValue = "\(index)"
        intValue = index
    }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(index: intValue) }
}

// MARK: - What a type expects, in words

/// Arrays and dictionaries say what they hold, for "missing field" and "must be" messages.
private protocol ExpectedShape {
    static var expected: String { get }
    /// Whether `value` has the shape (an array, an object); its contents are checked as they are decoded.
    static func fits(_ value: JSONValue) -> Bool
}

extension Array: ExpectedShape {
    fileprivate static var expected: String { "an array of \(plural(Element.self))" }
    fileprivate static func fits(_ value: JSONValue) -> Bool { if case .array = value { true } else { false } }
}

extension Dictionary: ExpectedShape {
    fileprivate static var expected: String { "an object of \(plural(Value.self))" }
    fileprivate static func fits(_ value: JSONValue) -> Bool { if case .object = value { true } else { false } }
}

extension Optional: ExpectedShape {
    fileprivate static var expected: String { "\(describe(Wrapped.self)) or null" }
    fileprivate static func fits(_ value: JSONValue) -> Bool { true }
}

/// `type` in words: "a string", "an integer", "an array of strings".
private func describe(_ type: Any.Type) -> String {
    if let shape = type as? any ExpectedShape.Type { return shape.expected }
    return words(type).one
}

/// Elements of `type` in words: "strings", "objects".
private func plural(_ type: Any.Type) -> String { words(type).many }

private func words(_ type: Any.Type) -> (one: String, many: String) {
    switch type {
    case is String.Type: return ("a string", "strings")
    case is Bool.Type: return ("true or false", "booleans")
    case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: return ("an integer", "integers")
    case is Double.Type, is Float.Type: return ("a number", "numbers")
    case is JSONValue.Type: return ("a JSON value", "JSON values")
    default: return ("an object", "objects")
    }
}

/// The member names of a closed type's keys; nil for keys that are not `CaseIterable` (a dictionary's).
private func fieldNames<Key: CodingKey>(_ type: Key.Type) -> [String]? {
    func names<Closed: CodingKey & CaseIterable>(_ type: Closed.Type) -> [String] { Closed.allCases.map(\.stringValue) }
    guard let closed = type as? any (CodingKey & CaseIterable).Type else { return nil }
    return names(closed)
}

// MARK: - The decoder

private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ type: Any.Type) -> RequestBodyError {
        RequestBodyError("must be \(describe(type)), found \(value.kindName)", at: codingPath)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(members) = value else {
            throw codingPath.isEmpty ? RequestBodyError("the body must be a JSON object, found \(value.kindName)", at: [])
                                     : RequestBodyError("must be an object, found \(value.kindName)", at: codingPath)
        }
        if let fields = fieldNames(Key.self), let unknown = members.first(where: { !fields.contains($0.0) }) {
            throw RequestBodyError.unknownField(unknown.0, among: fields, at: codingPath)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: Dictionary(members, uniquingKeysWith: { $1 }), codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(items) = value else { throw RequestBodyError("must be an array, found \(value.kindName)", at: codingPath) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case let .bool(flag) = value else { throw mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case let .string(text) = value else { throw mismatch(type) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case let .number(number, _) = value else { throw mismatch(type) }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case let .number(_, .some(integer)) = value, let exact = T(exactly: integer) else { throw mismatch(type) }
        return exact
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    /// A JSON value as it is; anything else through its `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let json = value as? T { return json }
        if let shape = T.self as? any ExpectedShape.Type, !shape.fits(value) { throw mismatch(T.self) }
        return try T(from: self)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    func decoder(_ key: Key, _ type: Any.Type) throws -> ValueDecoder {
        guard let value = members[key.stringValue] else {
            throw RequestBodyError("missing (required, \(describe(type)))", at: codingPath + [key])
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(key, JSONValue.self).decodeNil() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key, type).decodeValue(type) }

    /// Absent is nil; null is refused like any other value of the wrong type (a type that reads null says so with `decodeNil`).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        contains(key) ? try decode(type, forKey: key) : nil
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { contains(key) ? try decode(type, forKey: key) : nil }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { contains(key) ? try decode(type, forKey: key) : nil }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { contains(key) ? try decode(type, forKey: key) : nil }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { contains(key) ? try decode(type, forKey: key) : nil }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(key, [String: JSONValue].self).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(key, [JSONValue].self).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(members.map { ($0.key, $0.value) }), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(key, JSONValue.self) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func next(_ type: Any.Type) throws -> ValueDecoder {
        guard !isAtEnd else { throw RequestBodyError("must have more than \(items.count) items (\(describe(type)))", at: codingPath) }
        defer { currentIndex += 1 }
        return ValueDecoder(value: items[currentIndex], codingPath: codingPath + [PathKey(index: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: JSONValue].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next([JSONValue].self).unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next(JSONValue.self) }
}

extension JSONValue: Decodable {
    /// Any JSON value: `JSONRequestDecoder` hands it over as parsed; another decoder's is read back
    /// (an object's members then in name order).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(Double(integer), integer: integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number, integer: nil)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
    }
}
