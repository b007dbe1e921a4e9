import Testing
@testable import ProactiveCore

@Suite("JSON parser")
struct JSONParserTests {
    @Test func parsesAllValueKinds() throws {
        let value = try JSONParser.parse(#"{"a":[1,-2.5,true,false,null,"x\u00e9\n"],"b":{}}"#)
        #expect(value["a"] == .array([.number(1, integer: 1), .number(-2.5, integer: nil), .bool(true), .bool(false), .null, .string("xé\n")]))
        #expect(value["b"] == .object([]))
    }

    @Test func keepsMemberOrder() throws {
        guard case let .object(members) = try JSONParser.parse(#"{"z":1,"a":2}"#) else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["z", "a"])
    }

    @Test func surrogatePairs() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test(arguments: [
        ("{", "unexpected end of input in an object"),
        (#"{"a":1,}"#, "expected a member name in quotes"),
        ("[1 2]", "expected ',' or ']' in an array"),
        ("NaN", "NaN and Infinity are not JSON numbers"),
        ("01", "numbers may not have leading zeros"),
        ("1e999", "number 1e999 is out of range"),
        (#""\ud800""#, "unpaired surrogate in \\u escape"),
        ("\"a\u{01}\"", "control character in a string"),
        ("{} x", "unexpected characters after the JSON value"),
        ("", "unexpected end of input"),
    ])
    func rejectsMalformedText(text: String, reason: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.reason == reason) }
    }

    @Test func limitsNestingDepth() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        do {
            _ = try JSONParser.parse(deep)
            Issue.record("deep nesting was accepted")
        } catch {
            #expect(error.reason == "nesting deeper than \(JSONParser.defaultMaximumDepth) levels")
        }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]  // "\xC3(" is not UTF-8
        bytes.withUnsafeBytes { buffer in
            do throws(JSONParseError) {
                _ = try JSONParser.parse(buffer)
                Issue.record("invalid UTF-8 accepted")
            } catch {
                #expect(error.reason == "string is not valid UTF-8")
            }
        }
    }

    @Test func writerEscapesMinimally() {
        var out = ""
        JSONWriter.appendString("a\"b\\c\nd\u{01}é/", to: &out)
        #expect(out == #""a\"b\\c\nd\u0001é/""#)
    }

    @Test func writerEscapesEveryControlCharacterAsBytesAndAsText() {
        let text = "\u{00}\u{08}\t\n\u{0B}\u{0C}\r\u{1F} \"\\\u{7F}é😀"
        let expected = #""\u0000\b\t\n\u000b\f\r\u001f \"\\\#u{7F}é😀""#
        var bytes: [UInt8] = []
        JSONWriter.appendString(text, to: &bytes)
        var out = "x"
        JSONWriter.appendString(text, to: &out)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(out == "x" + expected)
    }

    @Test func writerTextAndBytesAgree() {
        let value = JSONValue.object([
            ("a\"", .array([.null, .bool(true), .bool(false), .number(0.1, integer: nil), .number(-3, integer: -3), .number(1e300, integer: nil)])),
            ("", .object([])), ("s", .string("tab\there")), ("e", .array([])),
        ])
        let expected = #"{"a\"":[null,true,false,0.1,-3,1e+300],"":{},"s":"tab\there","e":[]}"#
        #expect(JSONWriter.string(value) == expected)
        #expect(JSONWriter.bytes(value) == Array(expected.utf8))
        var appended = "["
        JSONWriter.append(value, to: &appended)
        JSONWriter.append(.number(2.5, integer: nil), to: &appended)
        #expect(appended == "[" + expected + "2.5")
    }

    @Test func writeThenParseIsIdentity() throws {
        let value = JSONValue.object([("k", .array([.number(0.1, integer: nil), .number(3, integer: 3), .string("☃")]))])
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
    }
}
