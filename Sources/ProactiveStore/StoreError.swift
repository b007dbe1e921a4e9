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

    /// Runs `body`, wrapping whatever it throws with `operation`.
    static func wrap<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw wrapping(error, while: operation()) }
    }
}
