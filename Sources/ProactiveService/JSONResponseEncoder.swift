import Foundation
import Hummingbird
import ProactiveCore

// MARK: - Codable answers, written by the engine's JSON writer

/// The service's `ResponseEncoder`: an `Encodable` answer as `JSONWriter` text and a newline, so that a
/// Codable type's bytes are those the API always sent: members in the order the type encodes them,
/// integers without a fraction, other numbers as `JSONWriter` writes doubles, a nil optional as `null`
/// (a type that leaves a member out when it is nil says so in its own `encode(to:)`).
///
/// ```swift
/// struct Deleted: ResponseEncodable { var deleted: Int }
/// router.delete("donations") { _, _ in Deleted(deleted: 3) }  // {"deleted":3}
/// ```
public struct JSONResponseEncoder: ResponseEncoder {
    public init() {}

    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        Response.json(try Self.json(value))
    }

    /// `value` as a JSON value (what `encode` writes).
    public static func json(_ value: some Encodable) throws -> JSONValue {
        let slot = Slot()
        try ValueEncoder(slot: slot, codingPath: []).encodeAny(value)
        return slot.resolved()
    }
}

/// A Codable answer with another status than 200 (201 for a donation stored).
struct Status<Body: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status
    var body: Body

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response.json(try JSONResponseEncoder.json(body), status: status)
    }
}

extension JSONValue: Encodable {
    /// Writes the value as it is (an object's members in order), through any encoder.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case let .bool(flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case let .number(number, integer):
            var container = encoder.singleValueContainer()
            if let integer { try container.encode(integer) } else { try container.encode(number) }
        case let .string(text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case let .array(items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case let .object(members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try container.encode(value, forKey: AnyKey(stringValue: key)) }
        }
    }
}

/// A member name known only at run time.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

// MARK: - The encoder's tree

/// Where one value goes: filled by the encoder, read back as a `JSONValue` once encoding is done.
private final class Slot {
    enum Content {
        case empty
        case value(JSONValue)
        case object(Members)
        case array(Items)
    }

    final class Members {
        var members: [(key: String, slot: Slot)] = []

        /// The slot of `key` (a key encoded twice keeps its first place and its last value).
        func slot(_ key: String) -> Slot {
            let slot = Slot()
            if let index = members.firstIndex(where: { $0.key == key }) { members[index].slot = slot } else { members.append((key, slot)) }
            return slot
        }
    }

    final class Items {
        var items: [Slot] = []
    }

    var content = Content.empty

    func resolved() -> JSONValue {
        switch content {
        case .empty: return .object([])
        case let .value(value): return value
        case let .object(members): return .object(members.members.map { ($0.key, $0.slot.resolved()) })
        case let .array(items): return .array(items.items.map { $0.resolved() })
        }
    }

    var members: Members {
        if case let .object(members) = content { return members }
        let members = Members()
        content = .object(members)
        return members
    }

    var items: Items {
        if case let .array(items) = content { return items }
        let items = Items()
        content = .array(items)
        return items
    }
}

private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(members: slot.members, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedContainer(items: slot.items, codingPath: codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// `value` into this slot: a JSON value as it is, a date as the API writes instants, anything else through its `encode(to:)`.
    func encodeAny(_ value: some Encodable) throws {
        switch value {
        case let json as JSONValue: slot.content = .value(json)
        case let date as Date:
            slot.content = .value(.string(Timestamp.format(secondsSince1970: date.timeIntervalSince1970, utcOffsetSeconds: 0)))
        default: try value.encode(to: self)
        }
    }

    func integer(_ value: some BinaryInteger) { slot.content = .value(.number(Double(value), integer: Int64(value))) }

    mutating func encodeNil() { slot.content = .value(.null) }
    mutating func encode(_ value: Bool) { slot.content = .value(.bool(value)) }
    mutating func encode(_ value: String) { slot.content = .value(.string(value)) }
    mutating func encode(_ value: Double) { slot.content = .value(.number(value, integer: nil)) }
    mutating func encode(_ value: Float) { slot.content = .value(.number(Double(value), integer: nil)) }
    mutating func encode(_ value: Int) { integer(value) }
    mutating func encode(_ value: Int8) { integer(value) }
    mutating func encode(_ value: Int16) { integer(value) }
    mutating func encode(_ value: Int32) { integer(value) }
    mutating func encode(_ value: Int64) { integer(value) }
    mutating func encode(_ value: UInt) { integer(value) }
    mutating func encode(_ value: UInt8) { integer(value) }
    mutating func encode(_ value: UInt16) { integer(value) }
    mutating func encode(_ value: UInt32) { integer(value) }
    mutating func encode(_ value: UInt64) { integer(value) }
    mutating func encode(_ value: some Encodable) throws { try encodeAny(value) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let members: Slot.Members
    var codingPath: [any CodingKey]

    func encoder(_ key: Key) -> ValueEncoder { ValueEncoder(slot: members.slot(key.stringValue), codingPath: codingPath + [key]) }

    mutating func encodeNil(forKey key: Key) { encoder(key).slot.content = .value(.null) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { try encoder(key).encodeAny(value) }
    mutating func encode(_ value: Bool, forKey key: Key) { encoder(key).slot.content = .value(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) { encoder(key).slot.content = .value(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) { encoder(key).slot.content = .value(.number(value, integer: nil)) }
    mutating func encode(_ value: Int, forKey key: Key) { encoder(key).integer(value) }
    mutating func encode(_ value: Int64, forKey key: Key) { encoder(key).integer(value) }

    // A nil optional is written as null (the API's answers name every member they document).
    mutating func encodeIfPresent(_ value: (some Encodable)?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
        if let value { encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder(key).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { encoder(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { encoder(Key(stringValue: "super")!) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let items: Slot.Items
    var codingPath: [any CodingKey]
    var count: Int { items.items.count }

    func next() -> ValueEncoder {
        let slot = Slot()
        items.items.append(slot)
        return ValueEncoder(slot: slot, codingPath: codingPath)
    }

    mutating func encodeNil() { next().slot.content = .value(.null) }
    mutating func encode(_ value: some Encodable) throws { try next().encodeAny(value) }
    mutating func encode(_ value: String) { next().slot.content = .value(.string(value)) }
    mutating func encode(_ value: Double) { next().slot.content = .value(.number(value, integer: nil)) }
    mutating func encode(_ value: Int) { next().integer(value) }
    mutating func encode(_ value: Bool) { next().slot.content = .value(.bool(value)) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}
