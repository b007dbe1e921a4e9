import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// The write connection's bulk tuning during imports, and the encoded-append path.
@Suite("Bulk loading")
struct BulkTuningTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// The write connection's `(cache_size, wal_autocheckpoint)`.
    func settings(_ database: ProactiveDatabase) throws -> [Int] {
        try database.writer.writeWithoutTransaction { db in
            [try Int.fetchOne(db, sql: "PRAGMA cache_size")!, try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")!]
        }
    }

    // MARK: Tuning

    @Test func anImportRunsTunedAndRestoresTheConnectionAfterwards() throws {
        let database = try ProactiveDatabase(path: directory.file("tuned.sqlite"))
        let before = try settings(database)
        let lines = (0..<7).map { DonationLineCodec.encode(sample(minutes: Double($0))) }
        let path = try directory.write("log.jsonl", lines.joined(separator: "\n") + "\n")
        var during: [[Int]] = []
        let importer = DonationImporter(store: SQLiteDonationStore(database: database), options: ImportOptions(batchSize: 3)) { _ in
            during.append((try? settings(database)) ?? [])
        }
        let summary = try importer.importJSONLines(path: path)
        #expect(summary.imported == 7)
        #expect(!during.isEmpty)
        #expect(during.allSatisfy { $0 == [-ProactiveDatabase.bulkCacheKiB, ProactiveDatabase.bulkCheckpointPages] })
        #expect(try settings(database) == before)
        #expect(before != [-ProactiveDatabase.bulkCacheKiB, ProactiveDatabase.bulkCheckpointPages])
    }

    @Test func errorsOfTheBodyPassThroughAndTheSettingsComeBack() throws {
        struct Marker: Error {}
        let database = try ProactiveDatabase(path: directory.file("failing.sqlite"))
        let before = try settings(database)
        #expect(throws: Marker.self) { try database.bulkTuned { throw Marker() } }
        #expect(try settings(database) == before)
    }

    @Test func aPausedStoreStillRefusesATunedImport() throws {
        let database = try ProactiveDatabase(path: directory.file("paused.sqlite"))
        try SQLitePrivacyStore(database: database).setRecordingPaused(true, at: Date(timeIntervalSince1970: sampleDay))
        let path = try directory.write("log.jsonl", DonationLineCodec.encode(sample()) + "\n")
        let error = storeError { _ = try DonationImporter(store: SQLiteDonationStore(database: database)).importJSONLines(path: path) }
        #expect(error?.code == .recordingPaused)
        #expect(try SQLiteDonationStore(database: database).count() == 0)
        #expect(try settings(database)[0] != -ProactiveDatabase.bulkCacheKiB)
    }

    // MARK: Encoded appends

    /// An appender that only knows donations (a store from outside this module).
    final class DonationsOnly: DonationAppender {
        var received: [Donation] = []

        func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            received += donations
            return AppendResult(inserted: donations.count)
        }
    }

    @Test func encodedDonationsReachAnAppenderThatOnlyKnowsDonationsUnchanged() throws {
        let donations = [
            sample(minutes: 1, identifier: "a", group: "g", parameters: ["city": .string("Paris"), "n": .int(3)], context: ["place": "home"]),
            sample(user: "u2", minutes: 2.5, count: 4, utcOffset: nil),
        ]
        let appender = DonationsOnly()
        let records = try donations.map { donation throws(StoreError) in try DonationRecord(donation) }
        let result = try appender.append(records: records, duplicates: .skip)
        #expect(result.inserted == 2)
        #expect(appender.received == donations)
    }
}
