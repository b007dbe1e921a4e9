import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import Testing

/// Several batches in one transaction (`appendEach(batches:)`), and WAL checkpoints off the commit path (`WALCheckpointer`).
@Suite("Group commit")
struct GroupCommitTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test func batchesInOneTransactionAnswerEachOnItsOwnAndStoreEveryDonationOnce() throws {
        let store = SQLiteDonationStore(database: try ProactiveDatabase(path: directory.file("group.sqlite")))
        try store.append([sample(minutes: 0, identifier: "old")], duplicates: .fail)
        let first = PreparedDonations([sample(minutes: 1, identifier: "a"), sample(minutes: 2, identifier: "old"),
                                       sample(app: "", minutes: 3, identifier: "bad")])
        // The second batch repeats the first one's "a" (stored a moment earlier in the same transaction).
        let second = PreparedDonations([sample(minutes: 4, identifier: "a"), sample(minutes: 5, identifier: "b")])
        let results = try store.appendEach(batches: [first, second])
        #expect(results.count == 2)
        let answers = try results.map { try $0.get() }
        #expect(answers.map { $0.map(Self.describe) } == [["stored", "duplicate", "refused: invalidDonation"], ["duplicate", "stored"]])
        #expect(try store.identifiers().sorted() == ["a", "b", "old"])
        #expect(try store.appendEach(batches: []).isEmpty)
    }

    @Test func aPausedStoreRefusesEveryBatchOfTheGroupAndStoresNothing() throws {
        let database = try ProactiveDatabase(path: directory.file("paused.sqlite"))
        try SQLitePrivacyStore(database: database).setRecordingPaused(true, at: Date(timeIntervalSince1970: sampleDay))
        let store = SQLiteDonationStore(database: database)
        let results = try store.appendEach(batches: [PreparedDonations([sample(identifier: "x")]), PreparedDonations([sample(identifier: "y")])])
        #expect(results.count == 2)
        for result in results {
            guard case let .failure(error) = result else { Issue.record("a batch was stored while paused"); continue }
            #expect(error.code == .recordingPaused)
        }
        #expect(try store.count() == 0)
    }

    static func describe(_ result: Result<Bool, StoreError>) -> String {
        switch result {
        case let .success(stored): return stored ? "stored" : "duplicate"
        case let .failure(error): return "refused: \(error.code)"
        }
    }

    /// The write connection's automatic checkpoint threshold (pages; 0 = off).
    func autocheckpoint(_ database: ProactiveDatabase) throws -> Int {
        try database.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")! }
    }

    /// `PRAGMA wal_checkpoint(PASSIVE)` from a connection of its own: (WAL pages, pages copied into the file).
    func walPages(_ path: String) throws -> (log: Int, copied: Int) {
        let queue = try DatabaseQueue(path: path)
        let row = try queue.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")! }
        return (row[1], row[2])
    }

    @Test func theCheckpointerTurnsTheWritersCheckpointsOffAndCheckpointsWhatWasCommittedWhenStopped() throws {
        let path = directory.file("checkpoints.sqlite")
        let database = try ProactiveDatabase(path: path)
        let before = try autocheckpoint(database)
        #expect(before > 0)
        // An interval no test waits for: only `stop` checkpoints here.
        let checkpointer = try WALCheckpointer(database: database, interval: .seconds(3600))
        #expect(try autocheckpoint(database) == 0)
        let store = SQLiteDonationStore(database: database)
        for batch in 0..<20 {
            try store.append((0..<200).map { sample(minutes: Double(batch * 200 + $0), identifier: "d\(batch)-\($0)") }, duplicates: .fail)
        }
        #expect(checkpointer.counts.checkpoints == 0)
        checkpointer.stop()
        checkpointer.stop()  // idempotent
        #expect(checkpointer.counts.checkpoints == 1)
        #expect(checkpointer.counts.failure == nil)
        #expect(try autocheckpoint(database) == before)
        let pages = try walPages(path)
        #expect(pages.log > 0)
        #expect(pages.copied == pages.log)
        #expect(try store.count() == 4_000)
    }

    @Test func anInMemoryStoreHasNoWALToCheckpoint() throws {
        let error = storeError { _ = try WALCheckpointer(database: try ProactiveDatabase.inMemory()) }
        #expect(error?.code == .invalidRequest)
    }
}
