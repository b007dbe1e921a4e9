import GRDB

// MARK: - Store errors

/// Why a store operation failed: a stable `code` plus a message naming what
/// was being done and what went wrong.
///
/// ```swift
/// do { try store.append([donation]) }
/// catch let error as StoreError where error.code == .duplicateIdentifier { ... }
/// ```
///
/// Every error thrown by `ProactiveStore` types is a `StoreError`; SQLite
/// (GRDB) errors are wrapped with the operation that was running.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable category callers can switch on.
    public enum Code: String, Sendable, Hashable {
        /// A donation breaks a store rule (empty app, count < 1, ...).
        case invalidDonation
        /// An app already has a donation with this identifier (`DuplicatePolicy.fail`).
        case duplicateIdentifier
        /// The same donation (every field equal, `DonationRecord+ContentKey`) is already stored (`DuplicatePolicy.fail`).
        case duplicateDonation
        /// A request the store refuses (bad page size, empty identifier list, ...).
        case invalidRequest
        /// The file is not a SQLite database or holds another program's data.
        case notAProactiveStore
        /// The store was written by a newer version of Proactive (unknown migrations).
        case newerSchema
        /// The store file does not exist and the caller asked not to create it.
        case missingStore
        /// SQLite reported an error.
        case database
        /// Reading or writing a file other than the database failed.
        case io
        /// `PRAGMA integrity_check` found damage.
        case corrupt
        /// Recording is paused (`proactive pause on`): donations are refused, nothing is deleted.
        case recordingPaused
        /// An app asked for another app's data, or for an operation only the device owner may run.
        case accessDenied
        /// Another process held the store's lock longer than the busy timeout; nothing was changed.
        case busy
        /// The database server cannot be reached now (down, restarting, paused, or it did not
        /// answer in time): the call's writes were not committed, unless the message says the
        /// commit may have been applied. The next call connects again; the service answers 503.
        case unavailable
        /// The disk holding the store is full (SQLite's SQLITE_FULL, PostgreSQL's SQLSTATE 53100):
        /// the write was rolled back and nothing of it was stored; it may succeed once space is freed.
        case diskFull
        /// The store can only be read here (a read-only file, folder or mount): a write was refused.
        case readOnly
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    // MARK: Wrapping

    /// Wraps any error thrown while doing `operation` ("appending 5,000 donations").
    /// `StoreError`s pass through unchanged.
    static func wrapping(_ error: any Error, while operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB:
                return StoreError(.notAProactiveStore, "\(operation): the file is not a SQLite database")
            case .SQLITE_CORRUPT:
                return StoreError(.corrupt, "\(operation): the database file is damaged (\(error.message ?? "SQLITE_CORRUPT"))")
            case .SQLITE_READONLY:
                return StoreError(.readOnly, "\(operation): the store is read-only (SQLite error \(error.extendedResultCode.rawValue): "
                                  + "\(error.message ?? "attempt to write a readonly database"))")
            case .SQLITE_FULL:
                return diskFull(while: operation, detail: "SQLite error 13: \(error.message ?? "database or disk is full")")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return StoreError(.busy, "\(operation): another process kept the store busy for more than "
                                  + "\(Int(ProactiveDatabase.busyTimeout)) s; nothing was changed, try again")
            default:
                let detail = error.message ?? "\(error.resultCode)"
                return StoreError(.database, "\(operation): SQLite error \(error.extendedResultCode.rawValue): \(detail)")
            }
        }
        return StoreError(.database, "\(operation): \(error)")
    }

    /// The error of a write refused for lack of disk space (`.diskFull`), in words a person acts on,
    /// with the database's own report (`detail`) kept at the end.
    package static func diskFull(while operation: String, detail: String) -> StoreError {
        StoreError(.diskFull, "\(operation): the disk is full, so nothing of this write was stored; free space on the disk "
                   + "holding the store, then try again (\(detail))")
    }

    /// Runs `body`, wrapping whatever it throws with `operation`.
    static func wrap<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw wrapping(error, while: operation()) }
    }
}
