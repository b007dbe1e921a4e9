import Foundation
import GRDB
import GRDBSQLite
import ProactiveCore

// MARK: - What a state was built from

/// The key of a saved model state: what it has learned and under which
/// definitions, Focus timeline and options.
public struct ModelStateKey: Sendable, Hashable {
    /// Every donation with an id up to this one was learned (ids are never reused).
    public var highWater: Int64
    /// Every erasure journal entry up to this sequence number was unlearned.
    public var erasureMark: Int64
    /// How many of the user's donations the state holds.
    public var donationCount: Int
    /// Digest of the intent definitions the targets were resolved with.
    public var definitionsDigest: String
    /// Digest of the Focus timeline the donations were enriched with.
    public var focusDigest: String
    /// The model name and its options (time zone).
    public var options: String

    public init(highWater: Int64, erasureMark: Int64, donationCount: Int, definitionsDigest: String, focusDigest: String, options: String) {
        self.highWater = highWater
        self.erasureMark = erasureMark
        self.donationCount = donationCount
        self.definitionsDigest = definitionsDigest
        self.focusDigest = focusDigest
        self.options = options
    }

    /// Whether a state with this key was fitted for the same inputs (definitions, Focus timeline, options).
    public func isCompatible(with other: ModelStateKey) -> Bool {
        definitionsDigest == other.definitionsDigest && focusDigest == other.focusDigest && options == other.options
    }
}

/// A saved model state row.
public struct SavedModelState: Sendable, Equatable {
    public var user: String
    public var name: String
    /// The model in one piece, or the light part of a model saved in two (`PersistentModel.serializedParts()`).
    public var bytes: [UInt8]
    /// The heavy part of a model saved in two (`model_state_heavy`); nil for one saved in one piece, or read
    /// without it (`ModelStateStore.load(user:name:heavy:)`, then `hasHeavyPart` says whether it has one), or its
    /// start alone (`heavyIsPrefix`).
    public var heavy: [UInt8]?
    /// Whether the stored row has a heavy part (true also when it was not read).
    public var hasHeavyPart: Bool
    /// Whether `heavy` is only the start of the stored heavy part (`HeavyPartRead.prefix`): such a state
    /// cannot be saved.
    public var heavyIsPrefix = false
    /// What ranking needs per target (the engine's target catalogue, text).
    public var catalogue: String
    public var key: ModelStateKey
    /// When the model was last fitted from scratch, and when this state was saved.
    public var trainedAt: Date
    public var savedAt: Date

    public init(user: String, name: String, bytes: [UInt8], heavy: [UInt8]? = nil, catalogue: String, key: ModelStateKey, trainedAt: Date,
                savedAt: Date) {
        self.user = user
        self.name = name
        self.bytes = bytes
        self.heavy = heavy
        hasHeavyPart = heavy != nil
        self.catalogue = catalogue
        self.key = key
        self.trainedAt = trainedAt
        self.savedAt = savedAt
    }
}

/// A donation the store holds, with its row id (learning order).
public struct StoredDonation: Sendable {
    public var id: Int64
    public var donation: Donation
}

/// A deleted donation from the erasure journal.
public struct ErasedDonation: Sendable {
    public var seq: Int64
    public var id: Int64
    public var donation: Donation
}

/// A one-line summary of a saved state (`models list`).
public struct ModelStateSummary: Sendable, Hashable {
    public var user: String
    public var name: String
    public var bytes: Int
    public var donationCount: Int
    public var trainedAt: Date
    public var savedAt: Date
}

// MARK: - Store

/// Saved live model states (`model_state`), the erasure journal
/// (`model_erasure`) and the reads a state needs to catch up with the store.
///
/// Saving is monotone: a state is written only when it is at least as far
/// along (high-water mark and erasure mark) as the stored one, or fitted for
/// other inputs, so two processes folding the same donations can both save
/// and the model never goes backwards; every donation is learned once
/// because a state is always "everything up to its marks".
package struct SQLiteModelStateStore: Sendable {
    package let database: ProactiveDatabase

    package init(database: ProactiveDatabase) { self.database = database }

    // MARK: States

    /// The saved state, or nil. Both parts of a model saved in two are read in one transaction (and written in
    /// one), so they are always of the same save; `heavy` says how much of the heavy part is read: none
    /// (`hasHeavyPart` then says whether there is another part, which the caller must read again together with
    /// the light one, never alone), all of it, or its start (`heavyIsPrefix`).
    package func load(user: String, name: String, heavy read: HeavyPartRead = .whole) throws(StoreError) -> SavedModelState? {
        try StoreError.wrap("reading the \(name) model state of user \(user)") {
            try database.writer.read { db in
                // A cursor's row reads SQLite's own buffer: the state (megabytes for a heavy user) is copied
                // once, into the array, where a fetched row would copy it first into a `Data`.
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT bytes, high_water, erasure_mark, donation_count, definitions_digest, focus_digest, options,
                           trained_at_ms, saved_at_ms, catalogue,
                           EXISTS (SELECT 1 FROM model_state_heavy h WHERE h.user = s.user AND h.name = s.name)
                    FROM model_state s WHERE user = ? AND name = ?
                    """, arguments: [user, name])
                guard let row = try rows.next() else { return nil }
                let bytes = try row.withUnsafeData(atIndex: 0) { data in data.map { [UInt8]($0) } ?? [] }
                var heavy: [UInt8]?
                var heavyIsPrefix = false
                if read.readsHeavyPart, row[10] as Bool,
                   let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM model_state_heavy WHERE user = ? AND name = ?", arguments: [user, name]) {
                    (heavy, heavyIsPrefix) = try Self.readBlob(db, table: "model_state_heavy", column: "heavy", rowid: rowid,
                                                               prefix: read.prefixLength(light: bytes))
                }
                let key = ModelStateKey(highWater: row[1], erasureMark: row[2], donationCount: row[3], definitionsDigest: row[4],
                                        focusDigest: row[5], options: row[6])
                var state = SavedModelState(user: user, name: name, bytes: bytes, heavy: heavy, catalogue: row[9], key: key,
                                            trainedAt: Date(millisecondsSince1970: row[7]), savedAt: Date(millisecondsSince1970: row[8]))
                state.hasHeavyPart = row[10]
                state.heavyIsPrefix = heavyIsPrefix
                return state
            }
        }
    }

    /// The bytes of a blob, read straight from the database pages into the array (SQLite's incremental blob
    /// I/O): selecting the column would first assemble the blob in a buffer of SQLite's own, megabytes of
    /// fresh memory for a heavy user's state, and copy it again. With `prefix`, its first `prefix` bytes.
    /// - Returns: the bytes, and whether they are fewer than the blob's.
    /// - Throws: `DatabaseError` when the row is gone or the read fails.
    static func readBlob(_ db: Database, table: String, column: String, rowid: Int64, prefix: Int? = nil) throws -> (bytes: [UInt8], isPrefix: Bool) {
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(db.sqliteConnection, "main", table, column, rowid, 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else {
            throw DatabaseError(resultCode: ResultCode(rawValue: opened), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        let whole = Int(sqlite3_blob_bytes(blob))
        let length = min(whole, max(prefix ?? whole, 0))
        return (try [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            if length > 0 {
                let read = sqlite3_blob_read(blob, buffer.baseAddress, Int32(length), 0)
                guard read == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: read), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
            }
            count = length
        }, length < whole)
    }

    /// Saves `state` unless the stored one is further along for the same inputs, or `state` still holds
    /// donations the store has deleted since it was read (`hasUnlearnedEveryErasure`); then deletes the
    /// user's journal entries the state has unlearned.
    /// - Returns: whether it was written (false: the caller's copy is stale; read the user's model again).
    @discardableResult
    package func save(_ state: SavedModelState) throws(StoreError) -> Bool {
        try StoreError.wrap("saving the \(state.name) model state of user \(state.user)") {
            try database.writer.write { db in try Self.save(state, db) }
        }
    }

    /// Saves several states in one transaction, each as `save(_:)` does.
    /// - Returns: per state, whether it was written.
    @discardableResult
    package func save(_ states: [SavedModelState]) throws(StoreError) -> [Bool] {
        if states.isEmpty { return [] }
        return try StoreError.wrap("saving \(states.count) model states") {
            try database.writer.write { db in try states.map { try Self.save($0, db) } }
        }
    }

    static func save(_ state: SavedModelState, _ db: Database) throws -> Bool {
        guard state.heavy != nil || !state.hasHeavyPart, !state.heavyIsPrefix else {
            throw StoreError(.invalidRequest, "the \(state.name) model state of user \(state.user) was read without all of its heavy part; it cannot be saved")
        }
        if try !hasUnlearnedEveryErasure(state, db) { return false }
        if let row = try Row.fetchOne(db, sql: """
            SELECT high_water, erasure_mark, definitions_digest, focus_digest, options FROM model_state WHERE user = ? AND name = ?
            """, arguments: [state.user, state.name]) {
            let (high, erased): (Int64, Int64) = (row[0], row[1])
            let sameInputs = (row[2] as String) == state.key.definitionsDigest && (row[3] as String) == state.key.focusDigest
                && (row[4] as String) == state.key.options
            if sameInputs, high > state.key.highWater || erased > state.key.erasureMark { return false }
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO model_state (user, name, bytes, catalogue, high_water, erasure_mark, donation_count, definitions_digest,
                                                focus_digest, options, trained_at_ms, saved_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [state.user, state.name, Data(state.bytes), state.catalogue, state.key.highWater, state.key.erasureMark,
                             state.key.donationCount, state.key.definitionsDigest, state.key.focusDigest, state.key.options,
                             state.trainedAt.millisecondsSince1970, state.savedAt.millisecondsSince1970])
        if let heavy = state.heavy {
            try db.execute(sql: "INSERT OR REPLACE INTO model_state_heavy (user, name, heavy) VALUES (?, ?, ?)",
                           arguments: [state.user, state.name, Data(heavy)])
        } else {
            try db.execute(sql: "DELETE FROM model_state_heavy WHERE user = ? AND name = ?", arguments: [state.user, state.name])
        }
        // Journal rows every saved state of the user has passed are no longer needed.
        try db.execute(sql: """
            DELETE FROM model_erasure WHERE user = ? AND seq <= (SELECT min(erasure_mark) FROM model_state WHERE user = ?)
            """, arguments: [state.user, state.user])
        return true
    }

    /// Whether `state` has unlearned every deletion of its user's donations that the store has made,
    /// whichever process made it: the compare-and-set that keeps a stale holder (a service that did not
    /// see the CLI's `forget`) from writing deleted values back.
    ///
    /// A state has learned exactly the user's donations with ids up to its high-water mark, minus those it
    /// unlearned (`donationCount`). When no donation was deleted anywhere since its erasure mark (the
    /// journal's last sequence number is that mark) it is current; otherwise it is current only if the
    /// store still holds exactly `donationCount` of the user's donations up to that mark. This holds even
    /// when the journal entries are gone (forgetting a user erases them with the donations).
    static func hasUnlearnedEveryErasure(_ state: SavedModelState, _ db: Database) throws -> Bool {
        if try erasureMark(db) <= state.key.erasureMark { return true }
        let held = try Int.fetchOne(db, sql: "SELECT count(*) FROM donation WHERE user = ? AND id <= ?",
                                    arguments: [state.user, state.key.highWater]) ?? 0
        return held == state.key.donationCount
    }

    /// The size of the heavy part of the state `s` (0 for a state in one piece), as SQL.
    static let heavyLengthSQL = "ifnull((SELECT length(h.heavy) FROM model_state_heavy h WHERE h.user = s.user AND h.name = s.name), 0)"

    /// Every saved state, one line each, sorted by user and name.
    package func list() throws(StoreError) -> [ModelStateSummary] {
        try StoreError.wrap("listing saved models") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT user, name, length(bytes) + \(Self.heavyLengthSQL), donation_count, trained_at_ms, saved_at_ms FROM model_state s
                    ORDER BY user, name
                    """).map {
                    ModelStateSummary(user: $0[0], name: $0[1], bytes: $0[2], donationCount: $0[3], trainedAt: Date(millisecondsSince1970: $0[4]),
                                      savedAt: Date(millisecondsSince1970: $0[5]))
                }
            }
        }
    }

    /// The saved states that donations stored since their high-water mark have left behind,
    /// with how many such donations each user has, sorted by user and name.
    package func behind() throws(StoreError) -> [(user: String, name: String, pending: Int)] {
        try StoreError.wrap("listing saved models behind the store") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT s.user, s.name, (SELECT count(*) FROM donation d WHERE d.user = s.user AND d.id > s.high_water) AS pending
                    FROM model_state s WHERE pending > 0 ORDER BY s.user, s.name
                    """).map { (user: $0[0], name: $0[1], pending: $0[2]) }
            }
        }
    }

    /// Deletes a user's states (all names when nil) and their journal. - Returns: how many states.
    @discardableResult
    package func delete(user: String, name: String? = nil) throws(StoreError) -> Int {
        try StoreError.wrap("deleting saved models of user \(user)") {
            try database.writer.write { db in
                let count: Int
                if let name {
                    try db.execute(sql: "DELETE FROM model_state WHERE user = ? AND name = ?", arguments: [user, name])
                    count = db.changesCount
                    try db.execute(sql: "DELETE FROM model_state_heavy WHERE user = ? AND name = ?", arguments: [user, name])
                } else {
                    try db.execute(sql: "DELETE FROM model_state WHERE user = ?", arguments: [user])
                    count = db.changesCount
                    try db.execute(sql: "DELETE FROM model_state_heavy WHERE user = ?", arguments: [user])
                }
                try db.execute(sql: "DELETE FROM model_erasure WHERE user = ? AND NOT EXISTS (SELECT 1 FROM model_state WHERE user = ?)",
                               arguments: [user, user])
                return count
            }
        }
    }

    // MARK: What a state catches up with

    /// Every donation of the user with its id (id order) and the store's marks, read in one snapshot:
    /// a state fitted on these donations is exactly "everything up to these marks".
    package func snapshot(ofUser user: String) throws(StoreError) -> (donations: [StoredDonation], highWater: Int64, erasureMark: Int64) {
        let (records, high, erased) = try StoreError.wrap("reading the donations of user \(user)") {
            try database.writer.read { db in
                let records = try Row.fetchAll(db, sql: "SELECT \(DonationRecord.columns), id FROM donation WHERE user = ? ORDER BY id",
                                               arguments: [user]).map { (id: $0["id"] as Int64, record: DonationRecord(row: $0)) }
                let high = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'donation'") ?? 0
                return (records, max(high, records.last?.id ?? 0), try Self.erasureMark(db))
            }
        }
        let donations = try records.map { entry throws(StoreError) in StoredDonation(id: entry.id, donation: try entry.record.donation()) }
        return (donations, high, erased)
    }

    /// What happened to the user's donations since a state's marks, read in one snapshot:
    /// donations with an id above `highWater` (id order) and journal entries after `erasureMark`.
    package func changes(ofUser user: String, after highWater: Int64, erasuresAfter erasureMark: Int64) throws(StoreError)
        -> (added: [StoredDonation], erased: [ErasedDonation], highWater: Int64, erasureMark: Int64) {
        let (added, erased, high, mark) = try StoreError.wrap("reading the changes to user \(user)'s donations") {
            try database.writer.read { db in
                let added = try Row.fetchAll(db, sql: Self.addedSQL, arguments: [highWater, user]).map { (id: $0["id"] as Int64, record: DonationRecord(row: $0)) }
                let erased = try Row.fetchAll(db, sql: """
                    SELECT \(DonationRecord.columns), seq, donation_id FROM model_erasure WHERE user = ? AND seq > ? ORDER BY seq
                    """, arguments: [user, erasureMark]).map { (seq: $0["seq"] as Int64, id: $0["donation_id"] as Int64, record: DonationRecord(row: $0)) }
                let high = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'donation'") ?? 0
                return (added, erased, max(high, highWater, added.last?.id ?? 0), max(try Self.erasureMark(db), erasureMark))
            }
        }
        return (try added.map { entry throws(StoreError) in StoredDonation(id: entry.id, donation: try entry.record.donation()) },
                try erased.map { entry throws(StoreError) in ErasedDonation(seq: entry.seq, id: entry.id, donation: try entry.record.donation()) },
                high, mark)
    }

    /// The donations above a high-water mark, found by the id range (`+user` keeps SQLite from walking
    /// the user's index: every donation the user has, where the range holds only the new ones).
    static let addedSQL = "SELECT \(DonationRecord.columns), id FROM donation WHERE id > ? AND +user = ? ORDER BY id"

    /// The last journal sequence number ever given (AUTOINCREMENT keeps it in
    /// `sqlite_sequence`), not the largest one left: once settled states prune
    /// the journal, `max(seq)` falls back to 0 and a state fitted then would look
    /// behind the saved one, which `save` refuses to overwrite.
    static func erasureMark(_ db: Database) throws -> Int64 {
        let given = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'model_erasure'") ?? 0
        return max(given, try Int64.fetchOne(db, sql: "SELECT max(seq) FROM model_erasure") ?? 0)
    }

    /// Users with journal entries after their saved states' marks (they need to unlearn).
    package func usersWithPendingErasures() throws(StoreError) -> [String] {
        try StoreError.wrap("reading the erasure journal") {
            try database.writer.read { db in
                try String.fetchAll(db, sql: "SELECT DISTINCT user FROM model_erasure ORDER BY user")
            }
        }
    }

    /// The user's last `limit` donations at or before `date`, oldest first (a moment's recent history).
    package func recentDonations(ofUser user: String, atOrBefore date: Date, limit: Int) throws(StoreError) -> [Donation] {
        let records = try StoreError.wrap("reading the recent donations of user \(user)") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(DonationRecord.columns) FROM donation WHERE user = ? AND date_ms <= ? ORDER BY date_ms DESC, id DESC LIMIT ?
                    """, arguments: [user, date.millisecondsSince1970, limit]).map(DonationRecord.init(row:))
            }
        }
        return try records.reversed().map { record throws(StoreError) in try record.donation() }
    }

    /// The user's donations in `[start, end)`, in date order (a day's history).
    package func donations(ofUser user: String, from start: Date, to end: Date) throws(StoreError) -> [Donation] {
        let records = try StoreError.wrap("reading the donations of user \(user)") {
            try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(DonationRecord.columns) FROM donation WHERE user = ? AND date_ms >= ? AND date_ms < ? ORDER BY date_ms, id
                    """, arguments: [user, start.millisecondsSince1970, end.millisecondsSince1970]).map(DonationRecord.init(row:))
            }
        }
        return try records.map { record throws(StoreError) in try record.donation() }
    }

}
