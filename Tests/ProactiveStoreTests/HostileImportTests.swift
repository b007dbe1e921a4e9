import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// The core's hostile-input corpus through the importer: every good line
/// around the bad ones is stored, every bad one is reported as
/// `FILE:LINE: field: reason` with exactly the error the codec gives, and a
/// 10 MB line in the middle of a file is skipped without being read into memory.
@Suite("Hostile input through the importer")
struct HostileImportTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ProactiveCoreTests/HostileInput")

    /// `LINE -> (FIELD, REASON)` for the bad lines, `LINE -> nil` for the good ones.
    static func expectations() throws -> [Int: (field: String?, reason: String)?] {
        var result: [Int: (field: String?, reason: String)?] = [:]
        for line in try expectedLines() {
            let columns = line.split(separator: "\t", maxSplits: 2).map(String.init)
            let number = try #require(Int(columns[0]))
            result[number] = columns[1] == "ok" ? .some(nil) : (columns[1] == "-" ? nil : columns[1], columns[2])
        }
        return result
    }

    /// The canonical line the corpus expects for each good line.
    static func canonicalGoodLines() throws -> [String] {
        try expectedLines().map { $0.split(separator: "\t", maxSplits: 2).map(String.init) }.filter { $0[1] == "ok" }.map { $0[2] }
    }

    private static func expectedLines() throws -> [Substring] {
        let text = try String(contentsOf: corpus.appendingPathComponent("donations.expected"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    @Test func goodLinesAroundBadOnesAreStoredAndBadOnesNamed() throws {
        let path = Self.corpus.appendingPathComponent("donations.jsonl").path
        let store = InMemoryDonationStore()
        let summary = try DonationImporter(store: store, options: ImportOptions(batchSize: 7)).importJSONLines(path: path)
        let expected = try Self.expectations()
        let good = expected.filter { $0.value == nil }.count
        // The importer skips blank lines instead of rejecting them ("whitespace only").
        let blank = expected.filter { $0.value?.reason == "invalid JSON at byte 4: unexpected end of input" }.map(\.key)
        #expect(blank == [8])
        #expect(summary.lines == expected.count)
        // Good lines with the same canonical form are the same donation: stored once, then "already stored".
        let distinct = Set(try Self.canonicalGoodLines()).count
        #expect(distinct < good, "the corpus repeats a donation")
        #expect(summary.imported == distinct)
        #expect(summary.duplicates == good - distinct)
        #expect(summary.emptyLines == 1)
        #expect(summary.rejected == expected.count - good - 1)
        let messages = expected.keys.sorted().compactMap { number -> String? in
            guard let bad = expected[number]!, number != 8 else { return nil }
            return "\(path):\(number): " + (bad.field.map { "\($0): " } ?? "") + bad.reason
        }
        #expect(summary.messages == messages)
        #expect(try store.count() == distinct)
    }

    @Test func aTenMegabyteLineIsSkippedAndItsNeighboursKept() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("big.jsonl")
        var data = Data((DonationLineCodec.encode(sample(identifier: "before")) + "\n").utf8)
        data.append(Data(#"{"app":"a","intent":"i","date":"2026-01-01T00:00:00Z","parameters":{"p":""#.utf8))
        data.append(Data(repeating: UInt8(ascii: "x"), count: 10 << 20))
        data.append(Data(("\"}}\n" + DonationLineCodec.encode(sample(identifier: "after")) + "\n").utf8))
        try data.write(to: URL(fileURLWithPath: path))
        let store = InMemoryDonationStore()
        let summary = try DonationImporter(store: store).importJSONLines(path: path)
        #expect(summary.imported == 2)
        #expect(summary.messages == ["\(path):2: line is 10485836 bytes, longer than the limit of 1048576"])
        #expect(try store.all().map(\.identifier) == ["before", "after"])
    }
}
