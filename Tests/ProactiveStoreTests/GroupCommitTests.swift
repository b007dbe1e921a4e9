import Foundation
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Several batches in one transaction (`appendEach(batches:)`).
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

    /// A store without a group commit of its own (`DonationStore.appendEach(batches:)`'s default: a
    /// transaction per batch) answers as the SQLite store does.
    @Test func theDefaultGroupCommitAnswersAsTheSQLiteStoreDoes() throws {
        let store = InMemoryDonationStore()
        try store.append([sample(minutes: 0, identifier: "old")], duplicates: .fail)
        let results = try store.appendEach(batches: [
            PreparedDonations([sample(minutes: 1, identifier: "a"), sample(minutes: 2, identifier: "old"),
                               sample(app: "", minutes: 3, identifier: "bad")]),
            PreparedDonations([sample(minutes: 4, identifier: "a"), sample(minutes: 5, identifier: "b")]),
        ])
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

    /// The batches go in without savepoints first; a batch that SQLite refuses (here a trigger
    /// raising on one identifier, standing for a CHECK or an I/O error) rolls that attempt back
    /// and the group is written again batch by batch: the failing batch stores none of its rows,
    /// the batches before and after it are stored, and each is answered as alone.
    @Test func aBatchThatSQLiteRefusesIsAnsweredAloneAndTheOthersAreStored() throws {
        let database = try ProactiveDatabase(path: directory.file("refused.sqlite"))
        try database.writer.write { db in
            try db.execute(sql: """
                CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON donation WHEN NEW.identifier = 'boom'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
        }
        let store = SQLiteDonationStore(database: database)
        let results = try store.appendEach(batches: [
            PreparedDonations([sample(minutes: 1, identifier: "a")]),
            PreparedDonations([sample(minutes: 2, identifier: "c"), sample(minutes: 3, identifier: "boom")]),
            PreparedDonations([sample(minutes: 4, identifier: "b"), sample(minutes: 5, identifier: "a")]),
        ])
        #expect(results.count == 3)
        #expect((try? results[0].get())?.map(Self.describe) == ["stored"])
        guard case let .failure(error) = results[1] else { Issue.record("the refused batch was answered as stored"); return }
        #expect(error.message.contains("refused by the test"))
        #expect((try? results[2].get())?.map(Self.describe) == ["stored", "duplicate"])
        #expect(try store.identifiers().sorted() == ["a", "b"])
        #expect(try store.count() == 2)
    }

    static func describe(_ result: Result<Bool, StoreError>) -> String {
        switch result {
        case let .success(stored): return stored ? "stored" : "duplicate"
        case let .failure(error): return "refused: \(error.code)"
        }
    }
}
