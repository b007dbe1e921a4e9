import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Streaming JSON Lines import: good lines kept, bad lines named, strict mode, re-import.
@Suite("DonationImporter")
struct DonationImporterTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// A line for `sample`-style donations, dates in minutes after `sampleDay`.
    func line(_ minute: Int, app: String = "com.example.weather", identifier: String? = nil, user: String = "u1") -> String {
        DonationLineCodec.encode(sample(user: user, app: app, minutes: Double(minute), identifier: identifier))
    }

    // MARK: Bad lines in the middle

    @Test(arguments: StoreKind.allCases)
    func everyGoodLineIsImportedAndEveryBadLineNamed(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        let path = try Fixtures.path("with-bad-lines.jsonl")
        let summary = try DonationImporter(store: store).importJSONLines(path: path)
        #expect(summary.lines == 11)
        #expect(summary.emptyLines == 2)
        #expect(summary.imported == 4)
        #expect(summary.rejected == 5)
        #expect(summary.duplicates == 0)
        #expect(!summary.aborted)
        #expect(summary.messages.count == 5)
        let expectedPrefixes = [
            "\(path):2: invalid JSON at byte",
            "\(path):5: app: missing (required)",
            "\(path):6: date: \"2026-11-20 at seven\" is not an ISO 8601 date",
            "\(path):8: count: must be >= 1, found 0",
            "\(path):9: intent: must be a string, found an integer",
        ]
        for (message, prefix) in zip(summary.messages, expectedPrefixes) {
            #expect(message.hasPrefix(prefix), "\(message)")
        }
        #expect(summary.rejectionsByCategory == ["invalid JSON": 1, "missing app": 1, "invalid date": 1, "invalid count": 1, "invalid intent": 1])
        #expect(try store.all().map { $0.identifier ?? $0.app } == ["w-1", "c-1", "c-2", "com.example.calendar"])
        #expect(summary.bytesRead == Int64(try Data(contentsOf: URL(fileURLWithPath: path)).count))
    }

    // MARK: Strict mode

    @Test(arguments: StoreKind.allCases)
    func strictModeStoresNothingFromAFileWithABadLine(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        try store.append(sample(identifier: "earlier"))
        var progress: [ImportProgress] = []
        let importer = DonationImporter(store: store, options: ImportOptions(strict: true, batchSize: 1)) { progress.append($0) }
        let path = try Fixtures.path("with-bad-lines.jsonl")
        let summary = try importer.importJSONLines(path: path)
        #expect(summary.aborted)
        #expect(summary.abortedBy?.hasPrefix("\(path):2: invalid JSON") == true)
        #expect(summary.imported == 0)
        #expect(summary.rejected == 1)
        #expect(summary.lines == 2, "the import stops at the first bad line")
        #expect(try store.identifiers() == ["earlier"])
        #expect(progress.allSatisfy { $0.committed == 0 })

        let clean = try directory.write("clean.jsonl", (0..<7).map { line($0, identifier: "s\($0)") }.joined(separator: "\n"))
        progress = []
        let cleanSummary = try importer.importJSONLines(path: clean)
        #expect(cleanSummary.imported == 7 && !cleanSummary.aborted)
        #expect(progress.last?.committed == 7)
        #expect(progress.dropLast().allSatisfy { $0.committed == 0 }, "nothing is committed before the file is done")
        #expect(try store.count() == 8)
    }

    /// Enough lines for several decoder chunks: line numbers and the strict stop stay exact.
    @Test(arguments: [false, true])
    func lineNumbersStayExactAcrossDecoderChunks(strict: Bool) throws {
        let store = InMemoryDonationStore()
        let badLine = BackgroundLineDecoder.chunkLines * 2 + 77
        var lines = (1...(badLine + 1500)).map { line($0, identifier: "n\($0)") }
        lines[badLine - 1] = "{\"app\":\"a\"}"
        let path = try directory.write("chunks.jsonl", lines.joined(separator: "\n") + "\n")
        let summary = try DonationImporter(store: store, options: ImportOptions(strict: strict, batchSize: 700)).importJSONLines(path: path)
        #expect(summary.messages == ["\(path):\(badLine): intent: missing (required)"])
        if strict {
            #expect(summary.lines == badLine)
            #expect(try store.count() == 0)
        } else {
            #expect(summary.lines == lines.count)
            #expect(summary.imported == lines.count - 1)
            #expect(try store.count() == lines.count - 1)
        }
    }

    // MARK: Batches and progress

    @Test(arguments: StoreKind.allCases)
    func eachBatchIsCommittedAndReportedAsItGoes(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        let lines = (0..<10).map { line($0, identifier: "b\($0)") } + ["{oops"] + (10..<13).map { line($0, identifier: "b\($0)") }
        let path = try directory.write("batches.jsonl", lines.joined(separator: "\n") + "\n")
        var committedSeen: [Int] = []
        var storedAtReport: [Int] = []
        let importer = DonationImporter(store: store, options: ImportOptions(batchSize: 4)) { progress in
            committedSeen.append(progress.committed)
            storedAtReport.append((try? store.count()) ?? -1)
        }
        let summary = try importer.importJSONLines(path: path)
        #expect(summary.imported == 13 && summary.rejected == 1)
        #expect(Set(committedSeen) == [4, 8, 12, 13])
        #expect(committedSeen == committedSeen.sorted())
        #expect(storedAtReport == committedSeen, "a reported commit is in the store")
    }

    // MARK: Re-import

    @Test(arguments: StoreKind.allCases)
    func reimportingStoresNothingNewWithOrWithoutIdentifiers(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        let text = [line(0, identifier: "r1"), line(1, identifier: "r2"), line(2), line(3, app: "other", identifier: "r1")]
            .joined(separator: "\n")
        let path = try directory.write("again.jsonl", text)
        let importer = DonationImporter(store: store)
        let first = try importer.importJSONLines(path: path)
        #expect(first.imported == 4 && first.duplicates == 0)
        let second = try importer.importJSONLines(path: path)
        #expect(second.imported == 0, "the line without an identifier is recognised by its content")
        #expect(second.duplicates == 4)
        #expect(try store.count() == 4)
        // With `.fail`, a duplicate aborts the batch with an error naming it.
        let failing = DonationImporter(store: store, options: ImportOptions(duplicates: .fail))
        let error = storeError { _ = try failing.importJSONLines(path: path) }
        #expect(error?.code == .duplicateIdentifier)
        let noIdentifier = try directory.write("plain.jsonl", line(2))
        #expect(storeError { _ = try failing.importJSONLines(path: noIdentifier) }?.code == .duplicateDonation)
    }

    /// Export, then import the export into the same store: nothing new, every line counted as already stored.
    @Test(arguments: StoreKind.allCases)
    func importingAnExportIntoItsStoreStoresNothingNew(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        // No identifiers; parameters, context, offsets, groups and counts all take part.
        var donations: [Donation] = []
        for minute in 0..<40 {
            donations.append(sample(user: minute % 3 == 0 ? "u2" : "u1", minutes: Double(minute / 2), group: minute % 5 == 0 ? "g" : nil,
                                    count: minute % 7 == 0 ? 3 : 1, parameters: ["n": .int(Int64(minute % 4))],
                                    context: minute % 2 == 0 ? ["focus": "work"] : [:], utcOffset: minute % 6 == 0 ? nil : 3600))
        }
        try store.append(donations, duplicates: .fail)
        let exported = directory.file("export.jsonl")
        let rows = try DonationExporter(store: store).export(toPath: exported)
        #expect(rows == donations.count)
        let summary = try DonationImporter(store: store, options: ImportOptions(batchSize: 7)).importJSONLines(path: exported)
        #expect(summary.lines == rows)
        #expect(summary.imported == 0)
        #expect(summary.duplicates == rows)
        #expect(try store.count() == rows)
        #expect(try DonationExporter(store: store).exportedText() == String(decoding: try Data(contentsOf: URL(fileURLWithPath: exported)), as: UTF8.self))
    }

    // MARK: Retention

    /// With a window, what is already older than it is never stored, and counted per app; the rest is stored.
    @Test(arguments: StoreKind.allCases)
    func donationsOlderThanTheRetentionWindowAreNotStored(kind: StoreKind) throws {
        let store = try kind.makeStore(in: directory)
        let day = 24 * 60
        // Ten days of one donation a day for three apps; `now` is the end of day 10.
        let text = (0..<10).flatMap {
            [line($0 * day, identifier: "w\($0)"), line($0 * day, app: "com.example.health", identifier: "h\($0)"),
             line($0 * day, app: "com.example.notes", identifier: "n\($0)")]
        }.joined(separator: "\n")
        let path = try directory.write("aged.jsonl", text)
        let now = Date(timeIntervalSince1970: sampleDay + 10 * Double(day) * 60)
        // An app that keeps everything overrides the default window too.
        let policy = RetentionPolicy(defaultWindow: .days(7), byApp: ["com.example.health": .days(2), "com.example.notes": .keepAll])
        var progress: [ImportProgress] = []
        let importer = DonationImporter(store: store, options: ImportOptions(batchSize: 3, retention: ImportRetention(policy: policy, now: now))) {
            progress.append($0)
        }
        let summary = try importer.importJSONLines(path: path)
        // Kept while date >= now - window: weather days 3...9 (7), health days 8...9 (2), notes all 10.
        #expect(summary.imported == 19)
        #expect(summary.olderThanRetention == 11)
        #expect(summary.olderThanRetentionByApp == ["com.example.weather": 3, "com.example.health": 8])
        #expect(try store.all().compactMap(\.identifier).filter { !$0.hasPrefix("n") }.sorted()
                == ["h8", "h9", "w3", "w4", "w5", "w6", "w7", "w8", "w9"])
        #expect(try store.count(matching: DonationFilter(app: "com.example.notes")) == 10)
        #expect(progress.last?.committed == 19)
        // Nothing stored is older than its window: applying the same policy at the same instant erases nothing.
        let kept = try store.all().map { ($0.app, $0.date) }
        #expect(kept.allSatisfy { app, date in policy.window(for: app).cutoff(now: now).map { date >= $0 } ?? true })
        // A policy that keeps everything stores everything.
        let keepAll = DonationImporter(store: try kind.makeStore(in: directory),
                                       options: ImportOptions(retention: ImportRetention(policy: RetentionPolicy(), now: now)))
        let everything = try keepAll.importJSONLines(path: path)
        #expect(everything.imported == 30 && everything.olderThanRetention == 0)
    }

    /// A strict import rolled back reports nothing stored and nothing left out.
    @Test func aStrictAbortResetsTheRetentionCount() throws {
        let store = InMemoryDonationStore()
        let path = try directory.write("strict.jsonl", [line(0, identifier: "old"), "{broken"].joined(separator: "\n"))
        let now = Date(timeIntervalSince1970: sampleDay + 30 * 86_400)
        let importer = DonationImporter(store: store, options: ImportOptions(
            strict: true, retention: ImportRetention(policy: RetentionPolicy(defaultWindow: .days(7)), now: now)))
        let summary = try importer.importJSONLines(path: path)
        #expect(summary.aborted && summary.imported == 0 && summary.olderThanRetention == 0)
        #expect(try store.count() == 0)
    }

    // MARK: Limits and odd files

    @Test func anOverLongLineIsRejectedWithoutStoppingTheImport() throws {
        let store = InMemoryDonationStore()
        let long = "{\"app\":\"" + String(repeating: "x", count: DonationLineCodec.maximumLineBytes) + "\"}"
        let path = try directory.write("long.jsonl", [line(0, identifier: "a"), long, line(1, identifier: "b"), long].joined(separator: "\n"))
        let summary = try DonationImporter(store: store).importJSONLines(path: path)
        #expect(summary.imported == 2)
        #expect(summary.rejected == 2)
        #expect(summary.messages.first == "\(path):2: line is \(long.utf8.count) bytes, longer than the limit of \(DonationLineCodec.maximumLineBytes)")
        #expect(summary.messages.last?.hasPrefix("\(path):4: line is") == true)
        #expect(try store.identifiers() == ["a", "b"])
    }

    @Test func rejectionMessagesAreCappedButAllCounted() throws {
        let store = InMemoryDonationStore()
        let count = ImportSummary.maximumMessages + 500
        let path = try directory.write("bad.jsonl", String(repeating: "[]\n", count: count))
        let summary = try DonationImporter(store: store).importJSONLines(path: path)
        #expect(summary.rejected == count)
        #expect(summary.messages.count == ImportSummary.maximumMessages)
        #expect(summary.unlistedRejections == 500)
        #expect(summary.sortedCategories.map(\.category) == ["invalid line"])
    }

    @Test func badRequestsAndMissingFilesAreErrors() throws {
        let store = InMemoryDonationStore()
        let missing = directory.file("missing.jsonl")
        let error = storeError { _ = try DonationImporter(store: store).importJSONLines(path: missing) }
        #expect(error?.code == .io)
        #expect(error?.message.contains(missing) == true)
        let path = try directory.write("one.jsonl", line(0))
        #expect(storeError { _ = try DonationImporter(store: store, options: ImportOptions(batchSize: 0)).importJSONLines(path: path) }?.code == .invalidRequest)
        #expect(storeError { _ = try DonationImporter(store: store).importJSONLines(path: directory.path) }?.code == .io)
    }

    @Test func summariesMerge() throws {
        let store = InMemoryDonationStore()
        let a = try directory.write("a.jsonl", line(0) + "\n[]\n")
        let b = try directory.write("b.jsonl", line(1) + "\n\n{}\n")
        let importer = DonationImporter(store: store)
        var total = try importer.importJSONLines(path: a)
        total.merge(try importer.importJSONLines(path: b))
        #expect(total.sources == [a, b])
        #expect(total.lines == 5 && total.emptyLines == 1 && total.imported == 2 && total.rejected == 2)
        #expect(total.messages.map { $0.split(separator: ":").prefix(2).joined(separator: ":") } == ["\(a):2", "\(b):3"])
    }
}
