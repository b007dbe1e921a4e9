import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Store

/// Saved live model states (`model_state`), the erasure journal (`model_erasure`) and the
/// reads a state needs to catch up, on PostgreSQL: the same contract as `SQLiteModelStateStore`.
///
/// Saving is a compare-and-set on the state's key, inside one transaction holding the writer
/// lock: a state is written only when it has unlearned every deletion of its user's donations
/// made since it was read, by any process (else a stale instance would write erased values
/// back), and is at least as far along (high-water and erasure marks) as the stored one fitted
/// for the same inputs (else it would overwrite a newer state). A refused save returns false.
///
/// ```swift
/// let states = PostgresModelStateStore(database: database)
/// let (donations, high, erased) = try states.snapshot(ofUser: "u1")
/// // ... fit a model on `donations`, key it with `high` and `erased` ...
/// if try !states.save(state) { /* stale: read the user's model again */ }
/// ```
public struct PostgresModelStateStore: ModelStateStore {
    public let database: PostgresStoreDatabase

    public init(database: PostgresStoreDatabase) { self.database = database }

    // MARK: States

    /// The saved state, or nil. Both parts of a model saved in two are read in one snapshot (and written in
    /// one transaction), so they are always of the same save; `heavy` says how much of the heavy part is read
    /// (none: `hasHeavyPart` then says whether there is another part, which the caller must read again
    /// together with the light one, never alone; all; or its start, `heavyIsPrefix`), as
    /// `SQLiteModelStateStore.load` does.
    public func load(user: String, name: String, heavy read: HeavyPartRead = .whole) throws(StoreError) -> SavedModelState? {
        try PostgresErrors.wrap("reading the \(name) model state of user \(user)") {
            try database.inTransaction(writing: false) { session in
                guard let row = try session.query("""
                    SELECT bytes, high_water, erasure_mark, donation_count, definitions_digest, focus_digest, options,
                           trained_at_ms, saved_at_ms, catalogue,
                           EXISTS (SELECT 1 FROM model_state_heavy h WHERE h."user" = s."user" AND h.name = s.name)
                    FROM model_state s WHERE "user" = \(user) AND name = \(name)
                    """).rows.first else { return nil }
                let bytes = try row.decode(0, as: PostgresBytes.self)
                let hasHeavyPart = try row.decode(10, as: Bool.self)
                var heavy: [UInt8]?
                var heavyIsPrefix = false
                if read.readsHeavyPart, hasHeavyPart {
                    if let prefix = read.prefixLength(light: bytes.bytes) {
                        // substring() of bytea counts bytes from 1; the stored length says whether it is all of it.
                        let row = try session.query("""
                            SELECT substring(heavy FROM 1 FOR \(Int32(clamping: max(prefix, 0)))), length(heavy) FROM model_state_heavy
                            WHERE "user" = \(user) AND name = \(name)
                            """).rows.first
                        heavy = try row?.decode(0, as: PostgresBytes.self).bytes
                        heavyIsPrefix = try row.map { Int(try $0.decode(1, as: Int32.self)) > prefix } ?? false
                    } else {
                        heavy = try session.query("""
                            SELECT heavy FROM model_state_heavy WHERE "user" = \(user) AND name = \(name)
                            """).rows.first?.decode(0, as: PostgresBytes.self).bytes
                    }
                }
                let key = ModelStateKey(highWater: try row.decode(1, as: Int64.self), erasureMark: try row.decode(2, as: Int64.self),
                                        donationCount: try row.decode(3, as: Int.self), definitionsDigest: try row.decode(4, as: String.self),
                                        focusDigest: try row.decode(5, as: String.self), options: try row.decode(6, as: String.self))
                var state = SavedModelState(user: user, name: name, bytes: bytes.bytes, heavy: heavy, catalogue: try row.decode(9, as: String.self),
                                            key: key, trainedAt: Date(millisecondsSince1970: try row.decode(7, as: Int64.self)),
                                            savedAt: Date(millisecondsSince1970: try row.decode(8, as: Int64.self)))
                state.hasHeavyPart = hasHeavyPart
                state.heavyIsPrefix = heavyIsPrefix
                return state
            }
        }
    }

    /// Saves `state` unless the stored one is further along for the same inputs, or `state` still
    /// holds donations deleted since it was read; then deletes the user's journal entries every
    /// saved state of the user has unlearned.
    /// - Returns: whether it was written (false: the caller's copy is stale; read the user's model again).
    @discardableResult
    public func save(_ state: SavedModelState) throws(StoreError) -> Bool {
        try PostgresErrors.wrap("saving the \(state.name) model state of user \(state.user)") {
            try database.inTransaction(writing: true) { session in try Self.save(state, session) }
        }
    }

    /// Saves several states in one transaction, each as `save(_:)` does.
    /// - Returns: per state, whether it was written.
    @discardableResult
    public func save(_ states: [SavedModelState]) throws(StoreError) -> [Bool] {
        if states.isEmpty { return [] }
        return try PostgresErrors.wrap("saving \(states.count) model states") {
            try database.inTransaction(writing: true) { session in try states.map { try Self.save($0, session) } }
        }
    }

    static func save(_ state: SavedModelState, _ session: PostgresSession) throws -> Bool {
        guard state.heavy != nil || !state.hasHeavyPart, !state.heavyIsPrefix else {
            throw StoreError(.invalidRequest, "the \(state.name) model state of user \(state.user) was read without all of its heavy part; it cannot be saved")
        }
        if try !hasUnlearnedEveryErasure(state, session) { return false }
        if let row = try session.query("""
            SELECT high_water, erasure_mark, definitions_digest, focus_digest, options
            FROM model_state WHERE "user" = \(state.user) AND name = \(state.name)
            """).rows.first {
            let (high, erased): (Int64, Int64) = (try row.decode(0), try row.decode(1))
            let (definitions, focus, options): (String, String, String) = (try row.decode(2), try row.decode(3), try row.decode(4))
            let sameInputs = definitions == state.key.definitionsDigest && focus == state.key.focusDigest && options == state.key.options
            if sameInputs, high > state.key.highWater || erased > state.key.erasureMark { return false }
        }
        try session.query("""
            INSERT INTO model_state ("user", name, bytes, catalogue, high_water, erasure_mark, donation_count, definitions_digest,
                                     focus_digest, options, trained_at_ms, saved_at_ms)
            VALUES (\(state.user), \(state.name), \(PostgresBytes(bytes: state.bytes)), \(state.catalogue), \(state.key.highWater),
                    \(state.key.erasureMark), \(Int64(state.key.donationCount)), \(state.key.definitionsDigest), \(state.key.focusDigest),
                    \(state.key.options), \(state.trainedAt.millisecondsSince1970), \(state.savedAt.millisecondsSince1970))
            ON CONFLICT ("user", name) DO UPDATE SET
                bytes = excluded.bytes, catalogue = excluded.catalogue, high_water = excluded.high_water,
                erasure_mark = excluded.erasure_mark, donation_count = excluded.donation_count,
                definitions_digest = excluded.definitions_digest, focus_digest = excluded.focus_digest, options = excluded.options,
                trained_at_ms = excluded.trained_at_ms, saved_at_ms = excluded.saved_at_ms
            """)
        if let heavy = state.heavy {
            try session.query("""
                INSERT INTO model_state_heavy ("user", name, heavy) VALUES (\(state.user), \(state.name), \(PostgresBytes(bytes: heavy)))
                ON CONFLICT ("user", name) DO UPDATE SET heavy = excluded.heavy
                """)
        } else {
            try session.query("DELETE FROM model_state_heavy WHERE \"user\" = \(state.user) AND name = \(state.name)")
        }
        // Journal rows every saved state of the user has passed are no longer needed.
        try session.query("""
            DELETE FROM model_erasure
            WHERE "user" = \(state.user) AND seq <= (SELECT min(erasure_mark) FROM model_state WHERE "user" = \(state.user))
            """)
        return true
    }

    /// Whether `state` has unlearned every deletion of its user's donations the store has made, whichever
    /// process made it (`SQLiteModelStateStore.hasUnlearnedEveryErasure`): current when no erasure was
    /// journalled after its mark, else only when the store still holds exactly `donationCount` of the
    /// user's donations up to its high-water mark.
    static func hasUnlearnedEveryErasure(_ state: SavedModelState, _ session: PostgresSession) throws -> Bool {
        if try erasureMark(session) <= state.key.erasureMark { return true }
        let held = try session.query("""
            SELECT count(*) FROM donation WHERE "user" = \(state.user) AND id <= \(state.key.highWater)
            """).rows.first?.decode(Int.self) ?? 0
        return held == state.key.donationCount
    }

    /// The last journal sequence number ever given (never reused, even once the journal is pruned).
    static func erasureMark(_ session: PostgresSession) throws -> Int64 {
        try session.query("SELECT value FROM proactive_sequence WHERE name = 'model_erasure'").rows.first?.decode(Int64.self) ?? 0
    }

    /// The largest donation id ever given (a committed one: the mark is written in the inserting transaction).
    static func donationMark(_ session: PostgresSession) throws -> Int64 {
        try session.query("SELECT value FROM proactive_sequence WHERE name = 'donation'").rows.first?.decode(Int64.self) ?? 0
    }

    /// Every saved state, one line each, sorted by user and name.
    public func list() throws(StoreError) -> [ModelStateSummary] {
        try PostgresErrors.wrap("listing saved models") {
            try database.withSession { session in
                try session.query("""
                    SELECT "user", name,
                           length(bytes) + coalesce((SELECT length(h.heavy) FROM model_state_heavy h WHERE h."user" = s."user" AND h.name = s.name), 0),
                           donation_count, trained_at_ms, saved_at_ms
                    FROM model_state s ORDER BY "user", name
                    """).rows.map { row in
                    let (user, name, bytes, count): (String, String, Int32, Int64) = (try row.decode(0), try row.decode(1), try row.decode(2), try row.decode(3))
                    let (trained, saved): (Int64, Int64) = (try row.decode(4), try row.decode(5))
                    return ModelStateSummary(user: user, name: name, byteCount: Int(bytes), donationCount: Int(count),
                                             trainedAt: Date(millisecondsSince1970: trained), savedAt: Date(millisecondsSince1970: saved))
                }
            }
        }
    }

    /// States whose high-water mark is behind the store, with the number of the user's donations stored
    /// after it, by user and name (`SQLiteModelStateStore.behind`).
    public func behind() throws(StoreError) -> [(user: String, name: String, pending: Int)] {
        try PostgresErrors.wrap("listing saved models behind the store") {
            try database.withSession { session in
                try session.query("""
                    SELECT "user", name, pending FROM (
                        SELECT s."user", s.name, (SELECT count(*) FROM donation d WHERE d."user" = s."user" AND d.id > s.high_water) AS pending
                        FROM model_state s) behind
                    WHERE pending > 0 ORDER BY "user", name
                    """).rows.map { row in (user: try row.decode(0, as: String.self), name: try row.decode(1, as: String.self),
                                            pending: try row.decode(2, as: Int.self)) }
            }
        }
    }

    /// Deletes a user's states (all names when nil) and, when none is left, their journal. - Returns: how many states.
    @discardableResult
    public func delete(user: String, name: String? = nil) throws(StoreError) -> Int {
        try PostgresErrors.wrap("deleting saved models of user \(user)") {
            try database.inTransaction(writing: true) { session in
                let deleted = try session.query(name.map { name in
                    "DELETE FROM model_state WHERE \"user\" = \(user) AND name = \(name)"
                } ?? "DELETE FROM model_state WHERE \"user\" = \(user)")
                try session.query("""
                    DELETE FROM model_erasure WHERE "user" = \(user) AND NOT EXISTS (SELECT 1 FROM model_state WHERE "user" = \(user))
                    """)
                return deleted.changed
            }
        }
    }

    // MARK: What a state catches up with

    /// Every donation of the user with its id (id order) and the store's marks, read in one snapshot:
    /// a state fitted on these donations is exactly "everything up to these marks".
    public func snapshot(ofUser user: String) throws(StoreError) -> (donations: [StoredDonation], highWater: Int64, erasureMark: Int64) {
        let (rows, high, erased) = try PostgresErrors.wrap("reading the donations of user \(user)") {
            try database.inTransaction(writing: false) { session in
                let rows = try session.query("""
                    SELECT \(unescaped: PostgresDonationStore.columns), id FROM donation WHERE "user" = \(user) ORDER BY id
                    """).rows.map(PostgresDonationStore.record)
                return (rows, max(try Self.donationMark(session), rows.last?.id ?? 0), try Self.erasureMark(session))
            }
        }
        let donations = try rows.map { row throws(StoreError) in StoredDonation(rowID: row.id ?? 0, donation: try row.record.donation()) }
        return (donations, high, erased)
    }

    /// What happened to the user's donations since a state's marks, read in one snapshot:
    /// donations with an id above `highWater` (id order) and journal entries after `erasureMark`.
    public func changes(ofUser user: String, after highWater: Int64, erasuresAfter erasureMark: Int64) throws(StoreError)
        -> (added: [StoredDonation], erased: [ErasedDonation], highWater: Int64, erasureMark: Int64) {
        let (added, erased, high, mark) = try PostgresErrors.wrap("reading the changes to user \(user)'s donations") {
            try database.inTransaction(writing: false) { session in
                let added = try session.query("""
                    SELECT \(unescaped: PostgresDonationStore.columns), id FROM donation WHERE id > \(highWater) AND "user" = \(user) ORDER BY id
                    """).rows.map(PostgresDonationStore.record)
                let erased = try session.query("""
                    SELECT \(unescaped: PostgresDonationStore.columns), donation_id, seq FROM model_erasure
                    WHERE "user" = \(user) AND seq > \(erasureMark) ORDER BY seq
                    """).rows.map { row in
                    (entry: try PostgresDonationStore.record(row), seq: try row.decode(12, as: Int64.self))
                }
                return (added, erased, max(try Self.donationMark(session), highWater, added.last?.id ?? 0),
                        max(try Self.erasureMark(session), erasureMark))
            }
        }
        return (try added.map { row throws(StoreError) in StoredDonation(rowID: row.id ?? 0, donation: try row.record.donation()) },
                try erased.map { row throws(StoreError) in
                    ErasedDonation(journalSequence: row.seq, rowID: row.entry.id ?? 0, donation: try row.entry.record.donation())
                },
                high, mark)
    }

    /// The user's latest `limit` donations at or before `date`, oldest first (ties in id order).
    public func recentDonations(ofUser user: String, atOrBefore date: Date, limit: Int) throws(StoreError) -> [Donation] {
        let records = try PostgresErrors.wrap("reading the recent donations of user \(user)") {
            try database.withSession { session in
                try session.query("""
                    SELECT \(unescaped: PostgresDonationStore.columns) FROM donation
                    WHERE "user" = \(user) AND date_ms <= \(date.millisecondsSince1970) ORDER BY date_ms DESC, id DESC LIMIT \(limit)
                    """).rows.map { try PostgresDonationStore.record($0).record }
            }
        }
        return try records.reversed().map { record throws(StoreError) in try record.donation() }
    }

    /// The user's donations in `[start, end)`, in date order (ties in id order): a day's history.
    public func donations(ofUser user: String, from start: Date, to end: Date) throws(StoreError) -> [Donation] {
        let records = try PostgresErrors.wrap("reading the donations of user \(user)") {
            try database.withSession { session in
                try session.query("""
                    SELECT \(unescaped: PostgresDonationStore.columns) FROM donation
                    WHERE "user" = \(user) AND date_ms >= \(start.millisecondsSince1970) AND date_ms < \(end.millisecondsSince1970)
                    ORDER BY date_ms, id
                    """).rows.map { try PostgresDonationStore.record($0).record }
            }
        }
        return try records.map { record throws(StoreError) in try record.donation() }
    }

    /// Users with journal entries not yet pruned (they need to unlearn).
    public func usersWithPendingErasures() throws(StoreError) -> [String] {
        try PostgresErrors.wrap("reading the erasure journal") {
            try database.withSession { session in
                try session.query("SELECT DISTINCT \"user\" FROM model_erasure ORDER BY \"user\"").rows.map { try $0.decode(String.self) }
            }
        }
    }
}
