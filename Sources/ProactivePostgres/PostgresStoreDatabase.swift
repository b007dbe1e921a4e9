import Foundation
import ProactiveStore

// MARK: - One open database

/// A PostgreSQL database holding Proactive's tables: one libpq connection, migrated on open.
///
/// ```swift
/// let database = try PostgresStoreDatabase(url: "postgres://proactive@/proactive?host=/tmp/cluster")
/// let donations = PostgresDonationStore(database: database)
/// try donations.append([donation], duplicates: .skip)
/// ```
///
/// The stores' protocols are synchronous, as SQLite's are: every call blocks its thread until the
/// server answers. Calls through one `PostgresStoreDatabase` run one at a time on its connection;
/// each write transaction also takes the database-wide writer lock (`pg_advisory_xact_lock`), so
/// writers from every process commit in the order they were given ids, as SQLite's single writer
/// does: a reader's high-water mark never passes a donation that commits later.
public final class PostgresStoreDatabase: @unchecked Sendable {  // the connection only under `lock`
    private let lock = NSLock()
    private let connection: PostgresConnection
    /// The URL it was opened with, password hidden.
    public let displayURL: String

    /// Connects and brings the schema up to date (`PostgresSchema.migrations`). With a `mode` other
    /// than `.createIfMissing` a database without Proactive's schema is refused (as a missing store
    /// file is), and a database an earlier version migrated is brought up to date.
    /// - Throws: `StoreError.invalidRequest` for a bad URL; `.database` when the server cannot be
    ///   reached or refuses (the message names the URL, password hidden); `.missingStore` for a
    ///   database without the schema when it must exist; `.newerSchema` when the database was
    ///   migrated by a newer version of Proactive.
    public init(url: String, mode: StoreOpenMode = .createIfMissing) throws(StoreError) {
        let location = try PostgresLocation(url: url)
        displayURL = PostgresLocation.redacted(url)
        connection = try PostgresErrors.wrap("connecting to \(displayURL)") { try PostgresConnection(location) }
        if mode != .createIfMissing, try PostgresSchema.applied(self).isEmpty {
            throw StoreError(.missingStore, "\(displayURL) holds no Proactive store (a command that writes, such as "
                             + "`proactive import`, creates one)")
        }
        try PostgresSchema.migrate(self)
    }

    // MARK: Running statements

    /// Runs `body` on the connection (no transaction: each statement commits on its own).
    func withSession<Result>(_ body: (PostgresSession) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(PostgresSession(connection: connection))
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws
    /// (its error passes unchanged). A writing transaction takes the writer lock first.
    func inTransaction<Result>(writing: Bool, _ body: (PostgresSession) throws -> Result) throws -> Result {
        try withSession { session in
            try session.execute(writing ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                if writing { try session.execute("SELECT pg_advisory_xact_lock(\(Self.writerLock))") }
                let result = try body(session)
                try session.execute("COMMIT")
                return result
            } catch {
                try? session.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The advisory lock every writing transaction holds ("PROACTIV" in ASCII).
    static let writerLock: Int64 = 0x5052_4F41_4354_4956
}

// MARK: - Statements on the connection

/// The connection inside `withSession`/`inTransaction`: blocking calls, errors as `PostgresServerError`.
struct PostgresSession {
    let connection: PostgresConnection

    /// Runs a statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> PostgresResult { try connection.run(query) }

    /// Runs SQL text without parameters (DDL, transaction control).
    func execute(_ sql: String) throws { _ = try connection.run(PostgresQuery(unsafeSQL: sql)) }

    /// Runs `body` in a savepoint: rolled back alone when it throws, so the enclosing transaction goes on.
    func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("SAVEPOINT batch")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT batch")
            return result
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT batch")
            try? execute("RELEASE SAVEPOINT batch")
            throw error
        }
    }
}

// MARK: - Errors

enum PostgresErrors {
    /// Wraps an error thrown while doing `operation` as a `StoreError` (which passes unchanged):
    /// the server's message, its SQLSTATE and the constraint when it names one.
    static func wrapping(_ error: any Error, while operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresServerError {
            var detail = error.message
            if let constraint = error.constraint { detail += " (constraint \(constraint))" }
            guard let state = error.sqlState else { return StoreError(.database, "\(operation): \(detail)") }
            return StoreError(.database, "\(operation): PostgreSQL error \(state): \(detail)")
        }
        return StoreError(.database, "\(operation): \(error)")
    }

    /// Runs `body`, wrapping whatever it throws with `operation`.
    @discardableResult
    static func wrap<T>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw wrapping(error, while: operation()) }
    }
}
