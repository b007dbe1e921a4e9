import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

/// Saved live model states: read back exactly, saved monotonically, and the
/// erasure journal that lets a state unlearn deleted donations.
@Suite("Saved model states")
struct ModelStoreTests {
    static func state(_ user: String, _ bytes: [UInt8], high: Int64 = 1, erased: Int64 = 0, options: String = "blend zone=offsets") -> SavedModelState {
        SavedModelState(user: user, name: "blend", bytes: bytes, catalogue: "c", key: ModelStateKey(
            highWater: high, erasureMark: erased, donationCount: Int(high), definitionsDigest: "d", focusDigest: "f", options: options),
            trainedAt: Date(timeIntervalSince1970: 1_800_000_000), savedAt: Date(timeIntervalSince1970: 1_800_000_001.5))
    }

    @Test func savesLoadsExactlyAndLists() throws {
        let states = SQLiteModelStateStore(database: try ProactiveDatabase.inMemory())
        #expect(try states.load(user: "u1", name: "blend") == nil)
        #expect(try states.save(Self.state("u1", [1, 2, 3], high: 3)))
        #expect(try states.load(user: "u1", name: "blend") == Self.state("u1", [1, 2, 3], high: 3))
        #expect(try states.list().map(\.bytes) == [3])
        #expect(try states.delete(user: "u1") == 1)
        #expect(try states.list().isEmpty)
    }

    /// A state never goes backwards: an older one (lower marks, same inputs) is not written over a newer one;
    /// one fitted for other inputs replaces it.
    @Test func savingIsMonotone() throws {
        let states = SQLiteModelStateStore(database: try ProactiveDatabase.inMemory())
        #expect(try states.save(Self.state("u1", [9], high: 10)))
        #expect(try !states.save(Self.state("u1", [5], high: 5)))
        #expect(try !states.save(Self.state("u1", [6], high: 10, erased: 0).withErasureMark(-1)))
        #expect(try states.load(user: "u1", name: "blend")?.bytes == [9])
        #expect(try states.save(Self.state("u1", [7], high: 12)))
        #expect(try states.save(Self.state("u1", [8], high: 2, options: "blend zone=Europe/Paris")))
        #expect(try states.load(user: "u1", name: "blend")?.bytes == [8])
    }

    @Test func emptyBytesAreRefusedBySQLite() throws {
        let states = SQLiteModelStateStore(database: try ProactiveDatabase.inMemory())
        #expect(throws: StoreError.self) { try states.save(Self.state("u1", [])) }
    }

    /// Deleting a donation of a user with a saved state journals the deleted row (so the state can unlearn it);
    /// users without a state leave no journal entry. Saving a state past the entry removes it.
    @Test func deletionsAreJournaledOnlyForUsersWithAState() throws {
        let database = try ProactiveDatabase.inMemory()
        let donations = SQLiteDonationStore(database: database)
        try donations.append([sample(user: "u1", identifier: "a"), sample(user: "u2", identifier: "b"), sample(user: "u1", identifier: "c")],
                             duplicates: .fail)
        let states = SQLiteModelStateStore(database: database)
        try states.save(Self.state("u1", [1], high: 3))
        #expect(try donations.delete(.identifiers(["a", "b"], app: "com.example.weather")) == 2)
        let changes = try states.changes(ofUser: "u1", after: 3, erasuresAfter: 0)
        #expect(changes.added.isEmpty)
        #expect(changes.erased.map(\.id) == [1])
        #expect(changes.erased.first?.donation.identifier == "a")
        #expect(try states.changes(ofUser: "u2", after: 0, erasuresAfter: 0).erased.isEmpty)
        #expect(try states.usersWithPendingErasures() == ["u1"])
        try states.save(Self.state("u1", [2], high: 3, erased: changes.erasureMark))
        #expect(try states.usersWithPendingErasures().isEmpty)
    }

    /// A holder whose state still holds donations deleted since its erasure mark (by any process) cannot save
    /// it: not while the journal has the entries, nor once forgetting the user erased the journal too.
    @Test func aStateHoldingDeletedDonationsIsRefused() throws {
        let database = try ProactiveDatabase.inMemory()
        let donations = SQLiteDonationStore(database: database)
        try donations.append(["a", "b", "c"].map { sample(user: "u1", identifier: $0) }, duplicates: .fail)
        let states = SQLiteModelStateStore(database: database)
        func state(_ byte: UInt8, erased: Int64, count: Int) -> SavedModelState {
            var state = Self.state("u1", [byte], high: 3, erased: erased)
            state.key.donationCount = count
            return state
        }
        #expect(try states.save(state(1, erased: 0, count: 3)))
        #expect(try donations.delete(.identifiers(["b"], app: "com.example.weather")) == 1)
        #expect(try !states.save(state(2, erased: 0, count: 3)))  // the stale copy: it still holds b
        let mark = try states.changes(ofUser: "u1", after: 3, erasuresAfter: 0).erasureMark
        #expect(try states.save(state(3, erased: mark, count: 2)))  // b unlearned
        _ = try SQLitePrivacyStore(database: database).forget(user: "u1")
        #expect(try !states.save(state(4, erased: mark, count: 2)))  // journal and state gone with the user
        #expect(try states.load(user: "u1", name: "blend") == nil)
    }

    /// Donation ids are never reused, even after the newest donation is deleted: "above the high-water mark"
    /// is exactly what a state has not learned.
    @Test func donationIdsAreNeverReused() throws {
        let database = try ProactiveDatabase.inMemory()
        let donations = SQLiteDonationStore(database: database)
        let states = SQLiteModelStateStore(database: database)
        try donations.append([sample(identifier: "a"), sample(identifier: "b")], duplicates: .fail)
        #expect(try donations.delete(.identifiers(["b"], app: "com.example.weather")) == 1)
        try donations.append([sample(identifier: "c")], duplicates: .fail)
        let snapshot = try states.snapshot(ofUser: "u1")
        #expect(snapshot.donations.map(\.id) == [1, 3])
        #expect(snapshot.highWater == 3)
        #expect(try states.changes(ofUser: "u1", after: 2, erasuresAfter: 0).added.map(\.donation.identifier) == ["c"])
    }

    /// Catching up reads the donations above the state's mark by the id range, not by walking every
    /// donation the user has in the user index (what SQLite chose for `user = ?`): a query for a heavy
    /// user with nothing new reads nothing.
    @Test func newDonationsAreFoundByTheIdRange() throws {
        let database = try ProactiveDatabase.inMemory()
        try SQLiteDonationStore(database: database).append([sample(user: "u1", identifier: "a"), sample(user: "u1", identifier: "b")],
                                                           duplicates: .fail)
        let plan = try database.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteModelStateStore.addedSQL, arguments: [0, "u1"]).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("INTEGER PRIMARY KEY (rowid>?)") }, "\(plan)")
        #expect(!plan.contains { $0.contains("donation_user") }, "\(plan)")
        #expect(try SQLiteModelStateStore(database: database).changes(ofUser: "u1", after: 1, erasuresAfter: 0).added.map(\.id) == [2])
    }

    /// A state spanning many pages of a store file reads back byte for byte.
    @Test func aLargeStateReadsBackExactly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite").path
        let bytes = (0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        try SQLiteModelStateStore(database: try ProactiveDatabase(path: path)).save(Self.state("u1", bytes, high: 3))
        let states = SQLiteModelStateStore(database: try ProactiveDatabase(path: path, mode: .readOnly))
        #expect(try states.load(user: "u1", name: "blend") == Self.state("u1", bytes, high: 3))
        #expect(try states.load(user: "u2", name: "blend") == nil)
    }
}

extension SavedModelState {
    func withErasureMark(_ mark: Int64) -> SavedModelState {
        var copy = self
        copy.key.erasureMark = mark
        return copy
    }
}
