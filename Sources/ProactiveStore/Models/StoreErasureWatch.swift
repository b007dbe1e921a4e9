import Foundation
import GRDBSQLite

// MARK: - Deletions and donations made by any process

/// Tells a long-running holder of models (the service) that donations were deleted from
/// the store file, by this process or any other (the owner's `proactive forget`,
/// `delete` or `retention apply` beside a running service), so that it unlearns them
/// before its next answer; and that donations were stored (`donationMark`), and for
/// which users (`donors`), so that it learns them before its next answer for those users.
///
/// It reads the erasure journal's last sequence number, which every deletion of a
/// donation advances (a trigger journals each one; the number is never reused, even
/// once the journal is emptied). To keep a question cheap it first asks SQLite's
/// `PRAGMA data_version` on a read-only connection of its own, which changes only when
/// another connection committed; the sequence number is read only then.
///
/// The donations' high-water mark is read the same way, only when the data version changed.
/// It also answers `version()`, the data version alone: a holder of anything else read
/// from the store (declarations, feedback, Focus filters) re-reads it only when that changed.
///
/// ```swift
/// let watch = StoreErasureWatch(path: "proactive.sqlite")!
/// let seen = watch.mark()
/// // ... another process runs `proactive forget --user u` ...
/// if watch.mark() > seen { /* drop held models; their next read unlearns */ }
/// ```
package final class StoreErasureWatch: StoreChangeWatch, @unchecked Sendable {  // the connection, its statements and the cache only under `lock`
    private let lock = NSLock()
    private let database: OpaquePointer
    private let versionStatement: OpaquePointer
    private let sequence: OpaquePointer
    private let donationSequence: OpaquePointer
    private let donorsStatement: OpaquePointer
    private var lastVersion: Int64?
    private var lastMark: Int64 = 0
    private var lastDonationMark: Int64?

    /// Nil when the file cannot be opened read-only (an in-memory store has no other process to watch).
    package init?(path: String) {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let database else {
            sqlite3_close(database)
            return nil
        }
        sqlite3_busy_timeout(database, Int32(ProactiveDatabase.busyTimeout * 1000))
        var statements: [OpaquePointer?] = [nil, nil, nil, nil]
        let texts = [
            "PRAGMA data_version",
            "SELECT seq FROM sqlite_sequence WHERE name = 'model_erasure'",
            // The largest id ever given (AUTOINCREMENT's sequence, what a saved state's high-water mark is), or the largest held.
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'donation'), 0), coalesce((SELECT max(id) FROM donation), 0))",
            "SELECT DISTINCT user FROM donation WHERE id > ?1 AND id <= ?2",
        ]
        for index in texts.indices where sqlite3_prepare_v2(database, texts[index], -1, &statements[index], nil) != SQLITE_OK {
            for statement in statements { sqlite3_finalize(statement) }
            sqlite3_close(database)
            return nil
        }
        self.database = database
        self.versionStatement = statements[0]!
        self.sequence = statements[1]!
        self.donationSequence = statements[2]!
        self.donorsStatement = statements[3]!
    }

    deinit {
        for statement in [versionStatement, sequence, donationSequence, donorsStatement] { sqlite3_finalize(statement) }
        sqlite3_close(database)
    }

    /// The store's data version now: it differs between two answers exactly when a connection (this
    /// process's or another's) committed to the file in between. Nil when SQLite cannot tell (busy, an
    /// error): counted as changed.
    package func version() -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        defer { sqlite3_reset(versionStatement) }
        guard sqlite3_step(versionStatement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(versionStatement, 0)
    }

    /// The erasure journal's last sequence number now: larger than an earlier answer exactly when
    /// donations were deleted in between. When SQLite cannot answer (busy beyond the timeout, an
    /// error) it returns `Int64.max`, which a holder reads as "something was deleted": dropping
    /// held models is always safe.
    package func mark() -> Int64 { marks().erasures }

    /// The donations' high-water mark now: the largest id ever given to a donation. Nil when SQLite cannot tell.
    package func donationMark() -> Int64? { marks().donations }

    /// `mark()` and `donationMark()` with one look at the data version; both are read again only when it changed.
    package func marks() -> (erasures: Int64, donations: Int64?) {
        lock.lock()
        defer { lock.unlock() }
        defer { sqlite3_reset(versionStatement) }
        guard sqlite3_step(versionStatement) == SQLITE_ROW else { return (.max, nil) }
        let current = sqlite3_column_int64(versionStatement, 0)
        if current == lastVersion { return (lastMark, lastDonationMark) }
        defer { sqlite3_reset(sequence) }
        switch sqlite3_step(sequence) {
        case SQLITE_ROW: lastMark = sqlite3_column_int64(sequence, 0)
        case SQLITE_DONE: lastMark = 0  // nothing was ever deleted
        default: return (.max, nil)
        }
        defer { sqlite3_reset(donationSequence) }
        guard sqlite3_step(donationSequence) == SQLITE_ROW else { return (lastMark, nil) }
        lastDonationMark = sqlite3_column_int64(donationSequence, 0)
        lastVersion = current
        return (lastMark, lastDonationMark)
    }

    /// The users with a donation whose id is above `after` and at most `through`; nil when SQLite cannot tell.
    package func donors(after: Int64, through: Int64) -> Set<String>? {
        lock.lock()
        defer { lock.unlock() }
        defer {
            sqlite3_reset(donorsStatement)
            sqlite3_clear_bindings(donorsStatement)
        }
        sqlite3_bind_int64(donorsStatement, 1, after)
        sqlite3_bind_int64(donorsStatement, 2, through)
        var users = Set<String>()
        while true {
            switch sqlite3_step(donorsStatement) {
            case SQLITE_ROW:
                if let text = sqlite3_column_text(donorsStatement, 0) { users.insert(String(cString: text)) }
            case SQLITE_DONE: return users
            default: return nil
            }
        }
    }
}

// MARK: - The seam a long-running holder watches

/// How recent a look at the store's marks (`StoreChangeWatch`, a credential store's `version`) must
/// be for the current task. A request handler sets `since` to the instant the request arrived: every
/// write acknowledged before then must be seen, so a store that asks a server may answer with what it
/// read by a query sent at or after `since` (one round trip shared by the request's checks, and by
/// concurrent requests) instead of asking again. nil (the default, and for background work): ask now.
///
/// ```swift
/// try await StoreFreshness.$since.withValue(.now) { try await answer(request) }
/// ```
package enum StoreFreshness {
    @TaskLocal package static var since: ContinuousClock.Instant?
}


/// How a holder of what it read from a store (live models, declarations) learns that the store
/// changed under it, whoever wrote: a commit (`version`), a deletion of donations (`mark`), and
/// donations stored (`donationMark`) and for whom (`donors`). `StoreErasureWatch` is the SQLite
/// file's; another store kind supplies its own (its donations' ids need only grow with each one stored).
public protocol StoreChangeWatch: AnyObject, Sendable {
    /// A number that differs from an earlier answer when anything was committed in between; nil: cannot tell (treat as changed).
    func version() -> Int64?
    /// A number that grows exactly when donations were deleted; `Int64.max` when it cannot tell (treat as deleted).
    func mark() -> Int64
    /// The donations' high-water mark: the largest id given to a donation so far, which grows with each one
    /// stored and is never given again; nil: cannot tell now (look again later).
    func donationMark() -> Int64?
    /// The users with a donation whose id is above `after` and at most `through`; nil: cannot tell.
    func donors(after: Int64, through: Int64) -> Set<String>?
    /// `mark()` and `donationMark()` together: what a holder looks at before each answer, as cheaply as the store can.
    func marks() -> (erasures: Int64, donations: Int64?)
}

extension StoreChangeWatch {
    public func marks() -> (erasures: Int64, donations: Int64?) { (mark(), donationMark()) }
}
