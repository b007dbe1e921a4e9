import Foundation
import ProactiveCore
import ProactiveStore
import Testing

// MARK: - The contract every model-state store meets

/// The `ModelStateStore` contract as checks on an empty store and the donation store of the same
/// database, run by each implementation's tests (ProactiveStoreTests: SQLite; ProactivePostgresTests:
/// PostgreSQL): the compare-and-set on a state's key, the erasure journal and the reads a state needs.
///
/// ```swift
/// @Test(arguments: ModelStateStoreConformance.checks)
/// func conformance(check: ModelStateStoreConformance.Check) throws {
///     let database = try ProactiveDatabase.inMemory()
///     try check.run(.init(states: SQLiteModelStateStore(database: database), donations: SQLiteDonationStore(database: database)))
/// }
/// ```
public enum ModelStateStoreConformance {
    /// A model-state store and the donation store of the same database.
    public struct Stores: Sendable {
        public let states: any ModelStateStore
        public let donations: any DonationStore

        public init(states: any ModelStateStore, donations: any DonationStore) {
            self.states = states
            self.donations = donations
        }
    }

    /// One check, named for the test listing.
    public typealias Check = ConformanceCheck<Stores>

    public static let checks: [Check] = [
        Check(name: "statesReadBackExactlyInOneOrTwoParts", run: statesReadBackExactlyInOneOrTwoParts),
        Check(name: "saveIsACompareAndSetOnTheKey", run: saveIsACompareAndSetOnTheKey),
        Check(name: "aStateStillHoldingErasedDonationsIsRefused", run: aStateStillHoldingErasedDonationsIsRefused),
        Check(name: "behindCountsTheDonationsAfterTheHighWaterMark", run: behindCountsTheDonationsAfterTheHighWaterMark),
        Check(name: "recentDonationsAreTheLatestOldestFirst", run: recentDonationsAreTheLatestOldestFirst),
        Check(name: "aDaysDonationsAreHalfOpenInDateOrder", run: aDaysDonationsAreHalfOpenInDateOrder),
    ]

    /// A state of `user` named "blend" keyed with the given marks.
    public static func state(_ user: String, _ bytes: [UInt8], high: Int64, erased: Int64 = 0, count: Int? = nil,
                             heavy: [UInt8]? = nil, options: String = "blend") -> SavedModelState {
        SavedModelState(user: user, name: "blend", bytes: bytes, heavy: heavy, catalogue: "c", key: ModelStateKey(
            highWater: high, erasureMark: erased, donationCount: count ?? Int(high), definitionsDigest: "d", focusDigest: "f", options: options),
            trainedAt: Date(timeIntervalSince1970: 1_800_000_000), savedAt: Date(timeIntervalSince1970: 1_800_000_001.5))
    }

    public static func statesReadBackExactlyInOneOrTwoParts(_ stores: Stores) throws {
        let states = stores.states
        #expect(try states.load(user: "u1", name: "blend") == nil)
        let whole = state("u1", [1, 2, 3], high: 0)
        #expect(try states.save(whole))
        #expect(try states.load(user: "u1", name: "blend") == whole)
        let split = state("u2", [4], high: 0, heavy: [5, 6])
        #expect(try states.save([split]) == [true])
        #expect(try states.load(user: "u2", name: "blend") == split)
        let light = try #require(try states.load(user: "u2", name: "blend", withHeavyPart: false))
        #expect(light.heavy == nil && light.hasHeavyPart && light.bytes == [4])
        #expect(storeError { try states.save(light) }?.code == .invalidRequest, "a light part alone cannot be saved")
        // The start of the heavy part, as long as the light part says (one byte here); all of it for nil or more.
        let start = try #require(try states.load(user: "u2", name: "blend", heavy: .prefix { $0 == [4] ? 1 : nil }))
        #expect(start.heavy == [5] && start.heavyIsPrefix && start.bytes == [4])
        #expect(storeError { try states.save(start) }?.code == .invalidRequest, "the start of a heavy part cannot be saved")
        for length: Int? in [nil, 2, 9] {
            let all = try #require(try states.load(user: "u2", name: "blend", heavy: .prefix { _ in length }))
            #expect(all == split && !all.heavyIsPrefix, "prefix \(String(describing: length))")
        }
        #expect(storeError { try states.save(state("u3", [], high: 0)) }?.code == .database, "empty bytes break a CHECK")
        #expect(try states.list().map { "\($0.user) \($0.bytes)" } == ["u1 3", "u2 3"])
        #expect(try states.delete(user: "u2", name: nil) == 1)
        #expect(try states.list().map(\.user) == ["u1"])
    }

    public static func saveIsACompareAndSetOnTheKey(_ stores: Stores) throws {
        let (states, donations) = (stores.states, stores.donations)
        try donations.append((0..<3).map { sample(minutes: Double($0)) }, duplicates: .fail)
        #expect(try states.save(state("u1", [3], high: 3)))
        #expect(try !states.save(state("u1", [2], high: 2)), "an older state for the same inputs is refused")
        #expect(try states.load(user: "u1", name: "blend")?.bytes == [3])
        #expect(try states.save(state("u1", [9], high: 2, options: "other")), "a state fitted for other inputs replaces it")
        #expect(try states.save(state("u1", [4], high: 3, options: "other")))
        #expect(try states.load(user: "u1", name: "blend")?.bytes == [4])
    }

    public static func aStateStillHoldingErasedDonationsIsRefused(_ stores: Stores) throws {
        let (states, donations) = (stores.states, stores.donations)
        try donations.append([sample(minutes: 0, identifier: "a"), sample(minutes: 1, identifier: "b")], duplicates: .fail)
        let (held, high, mark) = try states.snapshot(ofUser: "u1")
        #expect(held.count == 2)
        #expect(try states.save(state("u1", [1], high: high, erased: mark, count: 2)))
        #expect(try donations.delete(.identifiers(["a"], app: "com.example.weather")) == 1)
        #expect(try states.usersWithPendingErasures() == ["u1"])
        #expect(try !states.save(state("u1", [2], high: high, erased: mark, count: 2)), "it still holds the erased donation")
        let changes = try states.changes(ofUser: "u1", after: high, erasuresAfter: mark)
        #expect(changes.added.isEmpty && changes.erased.map(\.donation.identifier) == ["a"])
        #expect(try states.save(state("u1", [3], high: changes.highWater, erased: changes.erasureMark, count: 1)))
        #expect(try states.usersWithPendingErasures().isEmpty, "the journal is pruned once every state has unlearned it")
    }

    public static func behindCountsTheDonationsAfterTheHighWaterMark(_ stores: Stores) throws {
        let (states, donations) = (stores.states, stores.donations)
        try donations.append([sample(minutes: 0)], duplicates: .fail)
        let high = try states.snapshot(ofUser: "u1").highWater
        #expect(try states.save(state("u1", [1], high: high)))
        #expect(try states.save(state("u2", [1], high: high, count: 0)))
        #expect(try states.behind().isEmpty)
        try donations.append([sample(minutes: 1), sample(minutes: 2), sample(user: "u3", minutes: 3)], duplicates: .fail)
        let behind = try states.behind()
        #expect(behind.map { "\($0.user) \($0.name) \($0.pending)" } == ["u1 blend 2"])
    }

    public static func recentDonationsAreTheLatestOldestFirst(_ stores: Stores) throws {
        let (states, donations) = (stores.states, stores.donations)
        try donations.append([sample(minutes: 5, identifier: "late"), sample(minutes: 1, identifier: "m1"),
                              sample(minutes: 3, identifier: "tie-a"), sample(app: "com.example.notes", minutes: 3, identifier: "tie-b"),
                              sample(user: "u2", minutes: 2, identifier: "other")], duplicates: .fail)
        let at = Date(timeIntervalSince1970: sampleDay + 3 * 60)
        #expect(try states.recentDonations(ofUser: "u1", atOrBefore: at, limit: 2).map(\.identifier) == ["tie-a", "tie-b"])
        #expect(try states.recentDonations(ofUser: "u1", atOrBefore: at, limit: 10).map(\.identifier) == ["m1", "tie-a", "tie-b"])
        #expect(try states.recentDonations(ofUser: "u1", atOrBefore: Date(timeIntervalSince1970: sampleDay), limit: 5).isEmpty)
    }

    public static func aDaysDonationsAreHalfOpenInDateOrder(_ stores: Stores) throws {
        let (states, donations) = (stores.states, stores.donations)
        try donations.append((0..<5).reversed().map { sample(minutes: Double($0), identifier: "m\($0)") }, duplicates: .fail)
        let minute = { (m: Double) in Date(timeIntervalSince1970: sampleDay + m * 60) }
        #expect(try states.donations(ofUser: "u1", from: minute(1), to: minute(3)).map(\.identifier) == ["m1", "m2"])
        #expect(try states.donations(ofUser: "u2", from: minute(0), to: minute(9)).isEmpty)
    }
}
