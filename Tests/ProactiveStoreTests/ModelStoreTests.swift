import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import Testing

/// Saved models: replace, read back, and dropped when a donation of their user is deleted.
@Suite("Saved models")
struct ModelStoreTests {
    static func saved(_ user: String, _ bytes: [UInt8], count: Int = 1) -> SavedModel {
        SavedModel(user: user, name: "blend", bytes: bytes, trainedAt: Date(timeIntervalSince1970: 1_800_000_000),
                   donationCount: count, latestDonation: Date(timeIntervalSince1970: 1_799_999_000.5))
    }

    @Test func saveReplacesAndLoadsExactly() throws {
        let models = SQLiteModelStore(database: try ProactiveDatabase.inMemory())
        #expect(try models.load(user: "u1", name: "blend") == nil)
        try models.save(Self.saved("u1", [1, 2, 3]))
        try models.save(Self.saved("u1", [4, 5, 6, 7], count: 9))
        let loaded = try #require(try models.load(user: "u1", name: "blend"))
        #expect(loaded == Self.saved("u1", [4, 5, 6, 7], count: 9))
        #expect(try models.list().map(\.bytes) == [4])
        #expect(try models.delete(user: "u1") == 1)
        #expect(try models.list().isEmpty)
    }

    @Test func emptyBytesAreRefusedBySQLite() throws {
        let models = SQLiteModelStore(database: try ProactiveDatabase.inMemory())
        #expect(throws: StoreError.self) { try models.save(Self.saved("u1", [])) }
    }

    @Test func deletingADonationDropsItsUsersModels() throws {
        let database = try ProactiveDatabase.inMemory()
        let donations = SQLiteDonationStore(database: database)
        var mine = sample(identifier: "a")
        mine.user = "u1"
        var theirs = sample(identifier: "b")
        theirs.user = "u2"
        try donations.append([mine, theirs], duplicates: .fail)
        let models = SQLiteModelStore(database: database)
        try models.save(Self.saved("u1", [1]))
        try models.save(Self.saved("u2", [2]))
        #expect(try donations.delete(.identifiers(["a"], app: mine.app)) == 1)
        #expect(try models.load(user: "u1", name: "blend") == nil)
        #expect(try models.load(user: "u2", name: "blend")?.bytes == [2])
    }
}
