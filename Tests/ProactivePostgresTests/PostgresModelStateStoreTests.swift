import Foundation
import ProactiveCore
import ProactivePostgres
import ProactiveStore
import StoreConformance
import Testing

// MARK: - Both model-state stores behind one face

/// A model-state store (`ModelStateStore`) with the donation store of its database.
protocol ModelStates: ModelStateStore {
    var donations: any DonationStore { get }
}

extension SQLiteModelStateStore: ModelStates {
    var donations: any DonationStore { SQLiteDonationStore(database: database) }
}

extension PostgresModelStateStore: ModelStates {
    var donations: any DonationStore { PostgresDonationStore(database: database) }
}

/// The store kinds the shared tests run on; the PostgreSQL one keeps its database alive.
enum ModelStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A fresh store, and what must outlive it.
    func make() throws -> (states: any ModelStates, keep: AnyObject?) {
        switch self {
        case .sqlite: return (SQLiteModelStateStore(database: try ProactiveDatabase.inMemory()), nil)
        case .postgres:
            let database = try TestDatabase()
            return (PostgresModelStateStore(database: try database.open()), database)
        }
    }
}

func state(_ user: String, _ bytes: [UInt8], high: Int64 = 1, erased: Int64 = 0, count: Int? = nil,
           options: String = "blend zone=offsets") -> SavedModelState {
    SavedModelState(user: user, name: "blend", bytes: bytes, catalogue: "c", key: ModelStateKey(
        highWater: high, erasureMark: erased, donationCount: count ?? Int(high), definitionsDigest: "d", focusDigest: "f", options: options),
        trainedAt: Date(timeIntervalSince1970: 1_800_000_000), savedAt: Date(timeIntervalSince1970: 1_800_000_001.5))
}

// MARK: - Tests

/// Saved model states on both stores: read back exactly, a compare-and-set on the key when saving,
/// and the erasure journal that lets a state unlearn deleted donations.
@Suite("Saved model states on SQLite and PostgreSQL", PostgresTestServer.available)
struct PostgresModelStateStoreTests {
    @Test(arguments: ModelStateStoreConformance.checks)
    func conformance(check: ModelStateStoreConformance.Check) throws {
        let database = try TestDatabase()
        let opened = try database.open()
        try check.run(.init(states: PostgresModelStateStore(database: opened), donations: PostgresDonationStore(database: opened)))
    }

    @Test(arguments: ModelStoreKind.allCases)
    func savesLoadsExactlyAndLists(kind: ModelStoreKind) throws {
        let (states, keep) = try kind.make()
        defer { withExtendedLifetime(keep) {} }
        let bytes = (0 ..< 300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        #expect(try states.load(user: "u1", name: "blend") == nil)
        #expect(try states.save(state("u1", bytes, high: 3)))
        #expect(try states.load(user: "u1", name: "blend") == state("u1", bytes, high: 3))
        #expect(try states.list().map(\.bytes) == [300_000])
        #expect(storeError { try states.save(state("u2", [])) } != nil, "empty bytes break a CHECK")
        #expect(try states.delete(user: "u1", name: nil) == 1)
        #expect(try states.list().isEmpty)
    }

    /// A state saved in two parts reads back whole, or light alone (saying another part exists), and a
    /// light part read alone cannot be saved; a later save in one piece drops the heavy part, and the
    /// listed size counts both parts.
    @Test(arguments: ModelStoreKind.allCases)
    func aStateInTwoParts(kind: ModelStoreKind) throws {
        let (states, keep) = try kind.make()
        defer { withExtendedLifetime(keep) {} }
        var split = state("u1", [1, 2, 3], high: 3)
        split.heavy = Array(repeating: 7, count: 5_000)
        split.hasHeavyPart = true
        #expect(try states.save(split))
        #expect(try states.load(user: "u1", name: "blend") == split)
        let light = try #require(try states.load(user: "u1", name: "blend", withHeavyPart: false))
        #expect(light.heavy == nil && light.hasHeavyPart && light.bytes == [1, 2, 3])
        #expect(try states.list().map(\.bytes) == [5_003])
        var lightLater = light
        lightLater.key.highWater = 4
        #expect(storeError { try states.save(lightLater) } != nil, "a light part read alone was saved")
        #expect(try states.save(state("u1", [4], high: 5)))
        #expect(try states.load(user: "u1", name: "blend", withHeavyPart: false)?.hasHeavyPart == false)
        #expect(try states.list().map(\.bytes) == [1])
        #expect(try states.delete(user: "u1", name: nil) == 1)
    }

    /// A stale write is refused: an older state (lower marks, same inputs) never replaces a newer one;
    /// one fitted for other inputs does.
    @Test(arguments: ModelStoreKind.allCases)
    func aStaleSaveIsRefused(kind: ModelStoreKind) throws {
        let (states, keep) = try kind.make()
        defer { withExtendedLifetime(keep) {} }
        #expect(try states.save(state("u1", [9], high: 10)))
        #expect(try !states.save(state("u1", [5], high: 5)))
        #expect(try states.load(user: "u1", name: "blend")?.bytes == [9])
        #expect(try states.save(state("u1", [7], high: 12)))
        #expect(try states.save(state("u1", [8], high: 2, options: "blend zone=Europe/Paris")))
        #expect(try states.load(user: "u1", name: "blend")?.bytes == [8])
    }

    /// A holder whose state still holds a donation deleted since its erasure mark (by another instance)
    /// cannot save it; once it unlearned the deletion it can. Deletions are journalled only for users
    /// with a saved state, and saving past the entries prunes them.
    @Test(arguments: ModelStoreKind.allCases)
    func aStateHoldingDeletedDonationsIsRefused(kind: ModelStoreKind) throws {
        let (states, keep) = try kind.make()
        defer { withExtendedLifetime(keep) {} }
        let donations = states.donations
        try donations.append(["a", "b", "c"].map { sample(user: "u1", identifier: $0) } + [sample(user: "u2", identifier: "d")], duplicates: .fail)
        #expect(try states.save(state("u1", [1], high: 3, count: 3)))
        #expect(try donations.delete(.identifiers(["b", "d"], app: "com.example.weather")) == 2)
        #expect(try !states.save(state("u1", [2], high: 3, count: 3)))  // the stale copy: it still holds b
        let changes = try states.changes(ofUser: "u1", after: 3, erasuresAfter: 0)
        #expect(changes.added.isEmpty)
        #expect(changes.erased.map(\.id) == [2])
        #expect(changes.erased.first?.donation.identifier == "b")
        #expect(try states.changes(ofUser: "u2", after: 0, erasuresAfter: 0).erased.isEmpty)
        #expect(try states.usersWithPendingErasures() == ["u1"])
        #expect(try states.save(state("u1", [3], high: 3, erased: changes.erasureMark, count: 2)))  // b unlearned
        #expect(try states.usersWithPendingErasures().isEmpty)
        // Forgetting the user (donations, then states) leaves a copy from before unable to write back.
        _ = try donations.delete(.matching(DonationFilter(user: "u1")))
        try states.delete(user: "u1", name: nil)
        #expect(try !states.save(state("u1", [4], high: 3, erased: changes.erasureMark, count: 2)))
        #expect(try states.load(user: "u1", name: "blend") == nil)
    }

    /// Donation ids are never reused, even after the newest donation is deleted: "above the high-water
    /// mark" is exactly what a state has not learned.
    @Test(arguments: ModelStoreKind.allCases)
    func donationIdsAreNeverReused(kind: ModelStoreKind) throws {
        let (states, keep) = try kind.make()
        defer { withExtendedLifetime(keep) {} }
        try states.donations.append([sample(identifier: "a"), sample(identifier: "b")], duplicates: .fail)
        #expect(try states.donations.delete(.identifiers(["b"], app: "com.example.weather")) == 1)
        try states.donations.append([sample(identifier: "c")], duplicates: .fail)
        let snapshot = try states.snapshot(ofUser: "u1")
        #expect(snapshot.donations.map(\.id) == [1, 3])
        #expect(snapshot.highWater == 3)
        #expect(try states.changes(ofUser: "u1", after: 2, erasuresAfter: 0).added.map(\.donation.identifier) == ["c"])
    }
}

/// Two instances (two connections) on one PostgreSQL database: a save through one that the other has
/// made stale is refused.
@Suite("Model states across PostgreSQL connections", PostgresTestServer.available)
struct PostgresCompareAndSetTests {
    @Test func aStaleInstanceCannotWriteBack() throws {
        let database = try TestDatabase()
        let instanceA = PostgresModelStateStore(database: try database.open())
        let instanceB = PostgresModelStateStore(database: try database.open())
        _ = try PostgresDonationStore(database: instanceA.database).append(["a", "b"].map { sample(identifier: $0) }, duplicates: .fail)
        let read = try instanceA.snapshot(ofUser: "u1")
        #expect(try instanceA.save(state("u1", [1], high: read.highWater, erased: read.erasureMark, count: read.donations.count)))
        // B (having read the same snapshot) deletes a donation, unlearns it and saves.
        #expect(try PostgresDonationStore(database: instanceB.database).delete(.identifiers(["a"], app: "com.example.weather")) == 1)
        let changes = try instanceB.changes(ofUser: "u1", after: read.highWater, erasuresAfter: read.erasureMark)
        #expect(try instanceB.save(state("u1", [2], high: changes.highWater, erased: changes.erasureMark, count: 1)))
        // A's copy still holds "a": refused, and B's state stays.
        #expect(try !instanceA.save(state("u1", [3], high: read.highWater, erased: read.erasureMark, count: 2)))
        #expect(try instanceA.load(user: "u1", name: "blend")?.bytes == [2])
    }
}
