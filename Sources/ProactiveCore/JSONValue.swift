// MARK: - JSON values

/// A parsed JSON value. Objects keep their members in document order.
///
/// The engine parses its interchange formats (donation lines, intent
/// definitions, shortcut and timeline declarations) with its own parser so
/// that hostile input has bounded cost: nesting depth is limited and every
/// error names what was wrong and where.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number literal. `integer` is set when the literal had no fraction or
    /// exponent and fits in `Int64`.
    case number(Double, integer: Int64?)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a, ia), .number(b, ib)): return a == b && ia == ib
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member named `key` of an object (first occurrence), or nil.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case let .number(_, integer): return integer == nil ? "a number" : "an integer"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

// MARK: - Errors

/// Why a JSON text could not be parsed, with the byte offset where it failed.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    public let offset: Int
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset + 1): \(reason)" }
}

// MARK: - Parser

/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// - Nesting deeper than `maximumDepth` is an error, not a stack overflow.
/// - Invalid UTF-8 inside strings, unpaired surrogates, control characters,
///   trailing garbage, leading zeros, `NaN` and `Infinity` are errors.
/// - Number literals whose value overflows `Double` are errors.
/// - Complexity: O(n) in the input length.
public struct JSONParser {
    public static let defaultMaximumDepth = 32

    /// Parses one complete JSON text.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        var parser = Cursor(bytes: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        if parser.index != bytes.count { throw parser.error("unexpected characters after the JSON value") }
        return value
    }

    public static func parse(_ text: String, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        var copy = text
        let result: Result<JSONValue, JSONParseError> = copy.withUTF8 { buffer in
            do throws(JSONParseError) {
                return .success(try parse(UnsafeRawBufferPointer(buffer), maximumDepth: maximumDepth))
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        let maximumDepth: Int
        var index = 0

        init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        func error(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8 { bytes[index] }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard !atEnd else { throw error("unexpected end of input") }
            switch current {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            case UInt8(ascii: "N"), UInt8(ascii: "I"): throw error("NaN and Infinity are not JSON numbers")
            default: throw error("unexpected character '\(printable(current))'")
            }
        }

        func printable(_ byte: UInt8) -> String {
            (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end of input") }
            let start = literal.utf8Start
            for offset in 0..<count where bytes[index + offset] != start[offset] {
                throw error("unexpected characters (expected \(literal))")
            }
            index += count
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
            index += 1
            var members: [(String, JSONValue)] = []
            skipWhitespace()
            if !atEnd, current == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard !atEnd else { throw error("unexpected end of input in an object") }
                guard current == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
                let key = try parseString()
                skipWhitespace()
                guard !atEnd, current == UInt8(ascii: ":") else { throw error("expected ':' after member name \"\(key)\"") }
                index += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                members.append((key, value))
                skipWhitespace()
                guard !atEnd else { throw error("unexpected end of input in an object") }
                if current == UInt8(ascii: ",") { index += 1; continue }
                if current == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw error("expected ',' or '}' in an object")
            }
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if !atEnd, current == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                guard !atEnd else { throw error("unexpected end of input in an array") }
                if current == UInt8(ascii: ",") { index += 1; continue }
                if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
                throw error("expected ',' or ']' in an array")
            }
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONValue {
            let start = index
            var isInteger = true
            if current == UInt8(ascii: "-") { index += 1 }
            guard !atEnd, isDigit(current) else { throw error("a number needs digits") }
            if current == UInt8(ascii: "0") {
                index += 1
                if !atEnd, isDigit(current) { throw error("numbers may not have leading zeros") }
            } else {
                while !atEnd, isDigit(current) { index += 1 }
            }
            if !atEnd, current == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard !atEnd, isDigit(current) else { throw error("a fraction needs digits") }
                while !atEnd, isDigit(current) { index += 1 }
            }
            if !atEnd, current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if !atEnd, current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard !atEnd, isDigit(current) else { throw error("an exponent needs digits") }
                while !atEnd, isDigit(current) { index += 1 }
            }
            let literal = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(literal), value.isFinite else {
                index = start
                throw error("number \(literal.prefix(40)) is out of range")
            }
            return .number(value, integer: isInteger ? Int64(literal) : nil)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        mutating func parseString() throws(JSONParseError) -> String {
            index += 1  // opening quote
            let start = index
            // Fast path: no escapes.
            var isASCII = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                    // ASCII is valid UTF-8: skip the (generic, slow) validation.
                    guard let text = isASCII ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self) else {
                        index = start
                        throw error("string is not valid UTF-8")
                    }
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("control character in a string") }
                if byte >= 0x80 { isASCII = false }
                index += 1
            }
            // Slow path with escapes.
            var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    guard let text = String(validating: utf8, as: UTF8.self) else {
                        throw error("string is not valid UTF-8")
                    }
                    return text
                }
                if byte < 0x20 { throw error("control character in a string") }
                if byte != UInt8(ascii: "\\") { utf8.append(byte); index += 1; continue }
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw error("invalid escape '\\\(printable(escape))'")
                }
            }
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                value = value * 16 + digit
                index += 1
            }
            return value
        }
    }
}

// MARK: - Writer

/// Appends JSON text in the engine's canonical form: minimal escaping,
/// non-ASCII written as UTF-8, no whitespace.
///
/// The text is written as UTF-8 bytes (`append(_:to: inout [UInt8])`, `bytes`) and turned into a
/// `String` once: appending many small pieces to a `String` costs far more than the bytes (the
/// service answers every question with a document written here).
public enum JSONWriter {
    public static func appendString(_ text: String, to output: inout String) {
        var text = text
        let needsEscape = text.withUTF8 { bytes in bytes.contains { Self.escapes($0) } }
        if !needsEscape {
            output.append("\"")
            output.append(text)
            output.append("\"")
        } else {
            var bytes: [UInt8] = []
            appendString(text, to: &bytes)
            output.append(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The string as a JSON string literal: `"` `\` and the control characters escaped
    /// (`\n` `\r` `\t` `\b` `\f`, else `\u00xx`), everything else as its UTF-8 bytes.
    public static func appendString(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            output.append(0x22)
            var clean = 0  // start of the bytes not written yet that need no escape
            for index in bytes.indices where escapes(bytes[index]) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean..<index]))
                clean = index + 1
                switch bytes[index] {
                case 0x22: output.append(contentsOf: [0x5C, 0x22])  // \"
                case 0x5C: output.append(contentsOf: [0x5C, 0x5C])  // \\
                case 0x0A: output.append(contentsOf: [0x5C, 0x6E])  // \n
                case 0x0D: output.append(contentsOf: [0x5C, 0x72])  // \r
                case 0x09: output.append(contentsOf: [0x5C, 0x74])  // \t
                case 0x08: output.append(contentsOf: [0x5C, 0x62])  // \b
                case 0x0C: output.append(contentsOf: [0x5C, 0x66])  // \f
                default:  // \u00xx, lowercase hex
                    let digits: StaticString = "0123456789abcdef"
                    let byte = Int(bytes[index])
                    output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30])
                    output.append(digits.utf8Start[byte >> 4])
                    output.append(digits.utf8Start[byte & 0x0F])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean...]))
            output.append(0x22)
        }
    }

    @inline(__always) static func escapes(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// Writes a finite double in the shortest form that parses back to the same value.
    public static func appendDouble(_ value: Double, to output: inout String) {
        output.append(value.description)
    }

    public static func appendDouble(_ value: Double, to output: inout [UInt8]) {
        output.append(contentsOf: value.description.utf8)
    }

    public static func append(_ value: JSONValue, to output: inout String) {
        switch value {
        case .null: output.append("null")
        case let .bool(flag): output.append(flag ? "true" : "false")
        case let .number(number, integer):
            if let integer { output.append(String(integer)) } else { appendDouble(number, to: &output) }
        case let .string(text): appendString(text, to: &output)
        case .array, .object: output.append(string(value))  // many pieces: as bytes
        }
    }

    public static func append(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: append("null", to: &output)
        case let .bool(flag): append(flag ? "true" : "false", to: &output)
        case let .number(number, integer):
            if let integer { output.append(contentsOf: String(integer).utf8) } else { appendDouble(number, to: &output) }
        case let .string(text): appendString(text, to: &output)
        case let .array(elements):
            output.append(0x5B)  // [
            for index in elements.indices {
                if index > 0 { output.append(0x2C) }  // ,
                append(elements[index], to: &output)
            }
            output.append(0x5D)  // ]
        case let .object(members):
            output.append(0x7B)  // {
            for index in members.indices {
                if index > 0 { output.append(0x2C) }
                appendString(members[index].0, to: &output)
                output.append(0x3A)  // :
                append(members[index].1, to: &output)
            }
            output.append(0x7D)  // }
        }
    }

    private static func append(_ literal: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// The value's JSON text as UTF-8 bytes.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        append(value, to: &output)
        return output
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }
}
