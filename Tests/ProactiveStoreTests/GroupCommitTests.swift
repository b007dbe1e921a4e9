import Foundation
import ProactiveCore
@testable import ProactiveStore
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
}
