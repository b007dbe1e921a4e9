import Foundation
import Testing
@testable import ProactiveCore

/// The hostile-input corpus (HostileInput/): bad donation lines and definition
/// files, each with the exact error it must get. Nothing may crash, and work
/// stays bounded: lines over `DonationLineCodec.maximumLineBytes` are refused
/// before parsing, nesting is limited, and definition checks are linear.
///
/// Large cases (10 MB lines, 500 000 levels of nesting) are generated here
/// rather than committed.
@Suite("Hostile input")
struct HostileInputTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("HostileInput")

    // MARK: Corpus files

    /// One expectation line: `KEY<TAB>ok<TAB>DETAIL` or `KEY<TAB>FIELD<TAB>REASON`.
    struct Expectation {
        var key: String
        var field: String?
        var detail: String
        var isOK: Bool
    }

    static func expectations(_ name: String) throws -> [Expectation] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
            let columns = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            try #require(columns.count == 3, "malformed expectation: \(line)")
            return Expectation(key: columns[0], field: columns[1] == "-" || columns[1] == "ok" ? nil : columns[1],
                               detail: columns[2], isOK: columns[1] == "ok")
        }
    }

    /// The corpus lines as raw bytes (some are deliberately not UTF-8).
    static func donationLines() throws -> [Data] {
        let data = try Data(contentsOf: directory.appendingPathComponent("donations.jsonl"))
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).map { Data($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    static func decode(_ line: Data) -> Result<Donation, DonationLineError> {
        line.withUnsafeBytes { bytes in
            do throws(DonationLineError) { return .success(try DonationLineCodec.decode(bytes)) } catch { return .failure(error) }
        }
    }

    static func loadDefinitions(_ data: Data) -> Result<[IntentDefinition], DefinitionError> {
        data.withUnsafeBytes { bytes in
            do throws(DefinitionError) {
                let definitions = try IntentDefinitionSet.parse(bytes)
                _ = try IntentDefinitionSet(definitions)
                return .success(definitions)
            } catch { return .failure(error) }
        }
    }

    // MARK: Donation lines

    @Test func everyCorpusLineGetsItsExactOutcome() throws {
        let lines = try Self.donationLines()
        let expected = try Self.expectations("donations.expected")
        #expect(lines.count == expected.count)
        #expect(lines.count >= 100)
        for (line, expectation) in zip(lines, expected) {
            let number = expectation.key
            switch (Self.decode(line), expectation.isOK) {
            case let (.success(donation), true):
                #expect(DonationLineCodec.encode(donation) == expectation.detail, "line \(number)")
            case let (.success(donation), false):
                Issue.record("line \(number) decoded, expected \(expectation.field ?? "-"): \(expectation.detail); got \(DonationLineCodec.encode(donation))")
            case let (.failure(error), true):
                Issue.record("line \(number) was refused: \(error)")
            case let (.failure(error), false):
                #expect(error.field == expectation.field, "line \(number)")
                #expect(error.reason == expectation.detail, "line \(number)")
            }
        }
    }

    /// The corpus's good lines survive encode -> decode unchanged (the fuzzing
    /// invariant; sub-millisecond dates used to break it). A missing offset
    /// (Unix seconds) is written as `Z` and reads back as offset 0, which the
    /// local clock treats the same way.
    @Test func goodLinesRoundTrip() throws {
        var good = 0
        for line in try Self.donationLines() {
            guard case let .success(donation) = Self.decode(line) else { continue }
            good += 1
            var expected = donation
            expected.utcOffset = donation.utcOffset ?? 0
            let again = try DonationLineCodec.decode(DonationLineCodec.encode(donation))
            #expect(again == expected)
            #expect(DonationLineCodec.encode(again) == DonationLineCodec.encode(donation))
        }
        #expect(good >= 10)
    }

    @Test func stringAndByteDecodingAgreeOnValidUTF8() throws {
        for line in try Self.donationLines() {
            // String(validating:) keeps a byte order mark; String(data:encoding:) would drop it.
            guard let text = String(validating: line, as: UTF8.self) else { continue }
            let fromString: Result<Donation, DonationLineError>
            do { fromString = .success(try DonationLineCodec.decode(text)) } catch { fromString = .failure(error) }
            #expect(fromString == Self.decode(line), "\(text.prefix(80))")
        }
    }

    @Test func subMillisecondDatesRoundToTheMillisecond() throws {
        // Fuzz finding: "date":1.95186931 decoded to 1.95186931 s but its
        // canonical line said 1.952 s, so re-importing an export moved it.
        let donation = try DonationLineCodec.decode(#"{"app":"a","intent":"i","date":1.95186931}"#)
        #expect(donation.millisecondsSince1970 == 1952)
        #expect(donation.date == Date(timeIntervalSince1970: 1.952))
        let iso = try DonationLineCodec.decode(#"{"app":"a","intent":"i","date":"2026-01-01T00:00:00.0006Z"}"#)
        #expect(iso.millisecondsSince1970 == 1_767_225_600_001)
    }

    // MARK: Size limits

    /// A line in canonical form (it exports as itself) with a parameter of `parameterBytes` bytes.
    static func line(parameterBytes: Int, closed: Bool = true) -> Data {
        var line = Data(#"{"user":"default","app":"a","intent":"i","parameters":{"p":""#.utf8)
        line.append(Data(repeating: UInt8(ascii: "x"), count: parameterBytes))
        if closed { line.append(Data(#""},"date":"2026-01-01T00:00:00Z"}"#.utf8)) }
        return line
    }

    /// Issue 16, item 11: a line at the limit whose canonical form is longer
    /// (here: the defaulted user and a written-out date) is refused, so export
    /// never writes a line import refuses; what is accepted re-exports within the limit.
    @Test func aLineWhoseCanonicalFormIsOverTheLimitIsRefused() throws {
        var line = Data(#"{"app":"a","intent":"i","date":0,"parameters":{"p":""#.utf8)
        let tail = Data(#""}}"#.utf8)
        line.append(Data(repeating: UInt8(ascii: "x"), count: DonationLineCodec.maximumLineBytes - line.count - tail.count))
        line.append(tail)
        #expect(line.count == DonationLineCodec.maximumLineBytes)
        let canonicalLength = DonationLineCodec.maximumLineBytes + #""user":"default","#.utf8.count + #""1970-01-01T00:00:00Z""#.utf8.count - 1
        #expect(Self.decode(line) == .failure(DonationLineError(
            field: nil, reason: "the line's canonical form (what export writes) is \(canonicalLength) bytes, longer than the limit of 1048576")))
        // Numbers expand the most; a line far below the limit can still be refused.
        var numbers = #"{"user":"default","app":"a","intent":"i","date":"2026-01-01T00:00:00Z","parameters":{"#
        var index = 0
        while numbers.utf8.count < DonationLineCodec.maximumLineBytes * 2 / 3 {
            numbers += (index == 0 ? "" : ",") + "\"p\(index)\":1e15"
            index += 1
        }
        numbers += "}}"
        guard case let .failure(error) = Self.decode(Data(numbers.utf8)) else { Issue.record("a line of 1e15 values was accepted"); return }
        #expect(error.reason.hasPrefix("the line's canonical form (what export writes) is "))
        // Every good corpus line and the limit case re-export within the limit.
        let atLimit = try Self.decode(Self.line(parameterBytes: DonationLineCodec.maximumLineBytes - Self.line(parameterBytes: 0).count)).get()
        #expect(DonationLineCodec.encode(atLimit).utf8.count == DonationLineCodec.maximumLineBytes)
    }

    @Test func tenMegabyteLinesAreRefusedBeforeParsing() {
        let envelope = Self.line(parameterBytes: 0).count
        let valid = Self.line(parameterBytes: 10 << 20)
        let broken = Self.line(parameterBytes: 10 << 20, closed: false)
        #expect(Self.decode(valid) == .failure(DonationLineError(field: nil, reason: "line is \((10 << 20) + envelope) bytes, longer than the limit of 1048576")))
        // An unterminated line gets the same answer: it was never parsed.
        #expect(Self.decode(broken) == .failure(DonationLineError(field: nil, reason: "line is \((10 << 20) + Self.line(parameterBytes: 0, closed: false).count) bytes, longer than the limit of 1048576")))
    }

    @Test func linesAtTheLimitDecodeAndOneByteMoreDoesNot() throws {
        let envelope = Self.line(parameterBytes: 0).count
        let atLimit = Self.line(parameterBytes: DonationLineCodec.maximumLineBytes - envelope)
        #expect(atLimit.count == DonationLineCodec.maximumLineBytes)
        let donation = try Self.decode(atLimit).get()
        #expect(donation.parameters["p"]?.keyText.utf8.count == DonationLineCodec.maximumLineBytes - envelope)
        let over = Self.line(parameterBytes: DonationLineCodec.maximumLineBytes - envelope + 1)
        #expect(Self.decode(over) == .failure(DonationLineError(field: nil, reason: "line is 1048577 bytes, longer than the limit of 1048576")))
    }

    @Test func deepNestingStopsAtTheDepthLimit() {
        let arrays = Data(repeating: UInt8(ascii: "["), count: 500_000)
        #expect(Self.decode(arrays) == .failure(DonationLineError(field: nil, reason: "invalid JSON at byte 33: nesting deeper than 32 levels")))
        var objects = Data(#"{"app":"a","intent":"i","date":"2026-01-01T00:00:00Z","x":"#.utf8)
        for _ in 0..<100_000 { objects.append(Data(#"{"a":"#.utf8)) }
        #expect(Self.decode(objects) == .failure(DonationLineError(field: nil, reason: "invalid JSON at byte 214: nesting deeper than 32 levels")))
        // Definition files have no line limit; nesting is still cut off.
        let definitions = Data(repeating: UInt8(ascii: "{"), count: 1) + Data(#""app":"#.utf8) + Data(repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(Self.loadDefinitions(definitions) == .failure(DefinitionError(path: "", reason: "invalid JSON at byte 39: nesting deeper than 32 levels")))
    }

    // MARK: Definition files

    @Test func everyCorpusDefinitionFileGetsItsExactOutcome() throws {
        let folder = Self.directory.appendingPathComponent("definitions")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        let expected = try Self.expectations("definitions.expected")
        #expect(files == expected.map(\.key))
        #expect(files.count >= 40)
        for expectation in expected {
            let data = try Data(contentsOf: folder.appendingPathComponent(expectation.key))
            switch (Self.loadDefinitions(data), expectation.isOK) {
            case let (.success(definitions), true):
                #expect(String(definitions.count) == expectation.detail, "\(expectation.key)")
            case let (.success(definitions), false):
                Issue.record("\(expectation.key) loaded \(definitions.count) definitions, expected \(expectation.field ?? "-"): \(expectation.detail)")
            case let (.failure(error), true):
                Issue.record("\(expectation.key) was refused: \(error)")
            case let (.failure(error), false):
                #expect(error.path == (expectation.field ?? ""), "\(expectation.key)")
                #expect(error.reason == expectation.detail, "\(expectation.key)")
            }
        }
    }

    @Test func tenMegabyteDefinitionFilesLoad() throws {
        // No size cap on definition files, so memory is proportional to the file.
        var text = #"{"app":""# + String(repeating: "a", count: 10 << 20) + #"","intents":[{"name":"I"}]}"#
        let definitions = try text.withUTF8 { try IntentDefinitionSet.parse(UnsafeRawBufferPointer($0)) }
        #expect(definitions.count == 1)
        #expect(definitions.first?.app.utf8.count == 10 << 20)
    }

    /// Regression: uniqueness checks and summary placeholders used to be
    /// quadratic; a 1.3 MB file with 20 000 combinations took over a minute of
    /// CPU, a 1 MB summary with 200 000 placeholders 17 s. Both are now linear;
    /// the time limit only catches a return to quadratic behaviour.
    @Test(.timeLimit(.minutes(1)))
    func wideDefinitionFilesStayLinear() throws {
        let count = 40_000
        let parameters = (0..<count).map { #"{"name":"p\#($0)","type":"string"}"# }.joined(separator: ",")
        let combinations = (0..<count).map { #"{"parameters":["p\#($0)"]}"# }.joined(separator: ",")
        let cases = (0..<count).map { #""c\#($0)""# }.joined(separator: ",")
        let summary = String(repeating: "${p0}", count: 200_000)
        let text = #"{"app":"a","intents":[{"name":"I","parameters":[\#(parameters),{"name":"e","type":"enum","cases":[\#(cases)]}],"#
            + #""combinations":[\#(combinations),{"parameters":["p0","p1"],"summary":"\#(summary)"}]}]}"#
        let definition = try #require(try IntentDefinitionSet.parse(text).first)
        #expect(definition.parameters.count == count + 1)
        #expect(definition.combinations.count == count + 1)
        #expect(SummaryTemplate.placeholders(definition.combinations[count].summary).count == 200_000)
    }

    @Test func summaryTemplatesRenderAsBefore() {
        let values: [String: ParameterValue] = ["size": .string("large"), "item": .entity(id: "latte", display: "Latte")]
        #expect(SummaryTemplate.render("Order a ${size} ${item}", values: values) == "Order a large Latte")
        #expect(SummaryTemplate.render("${missing} and ${size", values: values) == "missing and ${size")
        #expect(SummaryTemplate.render("$${size}}{$", values: values) == "$large}{$")
        #expect(SummaryTemplate.placeholders("é${a}${}${b") == ["a", ""])
    }
}
