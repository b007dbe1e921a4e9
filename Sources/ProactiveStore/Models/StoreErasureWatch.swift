import Foundation
import GRDBSQLite

// MARK: - Deletions made by any process

/// Tells a long-running holder of models (the service) that donations were deleted from
/// the store file, by this process or any other (the owner's `proactive forget`,
/// `delete` or `retention apply` beside a running service), so that it unlearns them
/// before its next answer.
///
/// It reads the erasure journal's last sequence number, which every deletion of a
/// donation advances (a trigger journals each one; the number is never reused, even
/// once the journal is emptied). To keep a question cheap it first asks SQLite's
/// `PRAGMA data_version` on a read-only connection of its own, which changes only when
/// another connection committed; the sequence number is read only then.
///
/// It also answers `version()`, the data version alone: a holder of anything else read
/// from the store (declarations, feedback, Focus filters) re-reads it only when that changed.
///
/// ```swift
/// let watch = StoreErasureWatch(path: "proactive.sqlite")!
/// let seen = watch.mark()
/// // ... another process runs `proactive forget --user u` ...
/// if watch.mark() > seen { /* drop held models; their next read unlearns */ }
/// ```
public final class StoreErasureWatch: StoreChangeWatch, @unchecked Sendable {  // the connection, its statements and the cache only under `lock`
    private let lock = NSLock()
    private let database: OpaquePointer
    private let versionStatement: OpaquePointer
    private let sequence: OpaquePointer
    private var lastVersion: Int64?
    private var lastMark: Int64 = 0

    /// Nil when the file cannot be opened read-only (an in-memory store has no other process to watch).
    public init?(path: String) {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let database else {
            sqlite3_close(database)
            return nil
        }
        sqlite3_busy_timeout(database, Int32(ProactiveDatabase.busyTimeout * 1000))
        var version: OpaquePointer?
        var sequence: OpaquePointer?
        guard sqlite3_prepare_v2(database, "PRAGMA data_version", -1, &version, nil) == SQLITE_OK, let version,
              sqlite3_prepare_v2(database, "SELECT seq FROM sqlite_sequence WHERE name = 'model_erasure'", -1, &sequence, nil) == SQLITE_OK,
              let sequence else {
            sqlite3_finalize(version)
            sqlite3_close(database)
            return nil
        }
        self.database = database
        self.versionStatement = version
        self.sequence = sequence
    }

    deinit {
        sqlite3_finalize(versionStatement)
        sqlite3_finalize(sequence)
        sqlite3_close(database)
    }

    /// The store's data version now: it differs between two answers exactly when a connection (this
    /// process's or another's) committed to the file in between. Nil when SQLite cannot tell (busy, an
    /// error): counted as changed.
    public func version() -> Int64? {
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
    public func mark() -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        defer { sqlite3_reset(versionStatement) }
        guard sqlite3_step(versionStatement) == SQLITE_ROW else { return .max }
        let current = sqlite3_column_int64(versionStatement, 0)
        if current == lastVersion { return lastMark }
        defer { sqlite3_reset(sequence) }
        switch sqlite3_step(sequence) {
        case SQLITE_ROW: lastMark = sqlite3_column_int64(sequence, 0)
        case SQLITE_DONE: lastMark = 0  // nothing was ever deleted
        default: return .max
        }
        lastVersion = current
        return lastMark
    }
}

// MARK: - The seam a long-running holder watches

/// How a holder of what it read from a store (live models, declarations) learns that the store
/// changed under it, whoever wrote: a commit (`version`) and a deletion of donations (`mark`).
/// `StoreErasureWatch` is the SQLite file's; another store kind supplies its own.
public protocol StoreChangeWatch: AnyObject, Sendable {
    /// A number that differs from an earlier answer when anything was committed in between; nil: cannot tell (treat as changed).
    func version() -> Int64?
    /// A number that grows exactly when donations were deleted; `Int64.max` when it cannot tell (treat as deleted).
    func mark() -> Int64
}
