import Foundation
import ProactiveStore
import Synchronization

// MARK: - One open database

/// A PostgreSQL database holding Proactive's tables: a pool of libpq connections, migrated on open.
///
/// ```swift
/// let database = try PostgresStoreDatabase(url: "postgres://proactive@/proactive?host=/tmp/cluster")
/// let donations = PostgresDonationStore(database: database)
/// try donations.append([donation], duplicates: .skip)
/// ```
///
/// The stores' protocols are synchronous, as SQLite's are: every call blocks its thread until the
/// server answers. Each call (`withSession`, `inTransaction`) borrows one connection for its whole
/// length; concurrent calls run on connections of their own, made on demand up to the URL's
/// `pool` (`PostgresLocation.poolSize`, default 4), and wait for a free one beyond that. Each
/// write transaction also takes the database-wide writer lock (`pg_advisory_xact_lock`), so
/// writers from every process commit in the order they were given ids, as SQLite's single writer
/// does: a reader's high-water mark never passes a donation that commits later.
///
/// When the server goes away (restarted, the connection terminated, paused past the URL's
/// `timeout`), the call that meets it throws `StoreError.unavailable` and its connection is
/// dropped; the next call connects again (one attempt, bounded by `timeout`). Nothing is retried
/// behind the caller's back: a transaction lost mid-way was rolled back by the server, except
/// when the connection was lost during its `COMMIT` (the message says so), and running its body
/// again could repeat what it did outside the database. An idle connection is checked before it
/// is lent (`PostgresConnection.isIdleAndHealthy`: one `poll`, no round trip), so a call after a
/// restart or a terminated connection is not failed by a connection the server already closed.
public final class PostgresStoreDatabase: @unchecked Sendable {  // the pool only under `condition`
    private let location: PostgresLocation
    /// Guards `idle` and `open`; signalled when a connection is returned or dropped.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    /// Connections made and not dropped: idle or lent out.
    private var open = 0
    /// The URL it was opened with, password hidden.
    public let displayURL: String
    private let sent = PostgresStatementCounter()
    private let lastCommit = Mutex<ContinuousClock.Instant?>(nil)

    /// When a writing transaction through this handle last committed (nil: none yet): a look at the
    /// store's marks taken before then does not show it (`PostgresStoreMarks`).
    var lastWriteCommitted: ContinuousClock.Instant? { lastCommit.withLock { $0 } }

    /// How many statements its calls have sent to the server so far (each one round trip): what a
    /// test or a measurement compares before and after a call.
    public var statementsSent: Int { sent.count.load(ordering: .relaxed) }

    /// Connects and brings the schema up to date (`PostgresSchema.migrations`). With a `mode` other
    /// than `.createIfMissing` a database without Proactive's schema is refused (as a missing store
    /// file is), and a database an earlier version migrated is brought up to date.
    /// - Throws: `StoreError.invalidRequest` for a bad URL (or `timeout`, `pool`); `.unavailable`
    ///   when the server cannot be reached, refuses, or does not answer within `timeout` (the
    ///   message names the URL, password hidden, and libpq's reason); `.missingStore` for a
    ///   database without the schema when it must exist; `.newerSchema` when the database was
    ///   migrated by a newer version of Proactive.
    public init(url: String, mode: StoreOpenMode = .createIfMissing) throws(StoreError) {
        location = try PostgresLocation(url: url)
        displayURL = location.displayURL
        let first = try PostgresErrors.wrap("connecting") { try PostgresConnection(location) }
        idle = [first]
        open = 1
        if mode != .createIfMissing, try PostgresSchema.applied(self).isEmpty {
            throw StoreError(.missingStore, "\(displayURL) holds no Proactive store (a command that writes, such as "
                             + "`proactive import`, creates one)")
        }
        try PostgresSchema.migrate(self)
    }

    /// How many connections are open now (idle or lent out): at most the URL's `pool`.
    public var openConnections: Int {
        condition.lock()
        defer { condition.unlock() }
        return open
    }

    // MARK: The pool

    /// A connection for one call: an idle one that is still up, else a new one when fewer than
    /// `poolSize` are open, else the first returned. Idle connections the server closed are dropped.
    /// - Throws: `PostgresServerError` (`unavailable`) when a new connection cannot be made.
    private func borrow() throws -> PostgresConnection {
        condition.lock()
        while true {
            while let connection = idle.popLast() {
                if connection.isIdleAndHealthy {
                    condition.unlock()
                    return connection
                }
                open -= 1  // closed by the server while idle: dropped (PQfinish when released)
            }
            if open < location.poolSize { break }
            condition.wait()
        }
        open += 1  // reserved before connecting, so concurrent borrowers do not pass the limit
        condition.unlock()
        do {
            return try PostgresConnection(location)
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// Returns `connection` to the pool, or drops it when it is broken.
    private func giveBack(_ connection: PostgresConnection) {
        condition.lock()
        if connection.isBroken { open -= 1 } else { idle.append(connection) }
        condition.signal()
        condition.unlock()
    }

    // MARK: Running statements

    /// Runs `body` on a connection of the pool, borrowed for the whole call (no transaction: each
    /// statement commits on its own). Not re-entrant: `body` must not call `withSession` or
    /// `inTransaction` of the same database (it would wait for a second connection).
    /// - Throws: what `body` throws; `PostgresServerError` (`unavailable`) when no connection can be made.
    func withSession<Result>(_ body: (PostgresSession) throws -> Result) throws -> Result {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(PostgresSession(connection: connection, sent: sent))
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
                if writing { lastCommit.withLock { $0 = .now } }
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
    let sent: PostgresStatementCounter

    /// Runs a statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> PostgresResult {
        sent.count.add(1, ordering: .relaxed)
        return try connection.run(query)
    }

    /// Runs SQL text without parameters (DDL, transaction control).
    func execute(_ sql: String) throws { try query(PostgresQuery(unsafeSQL: sql)) }

    /// Runs maintenance SQL (`VACUUM FULL`) that may take longer than the URL's `timeout`: it waits
    /// for the server however long it takes.
    func maintain(_ sql: String) throws {
        sent.count.add(1, ordering: .relaxed)
        _ = try connection.run(PostgresQuery(unsafeSQL: sql), bounded: false)
    }

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

/// Statements sent through a database's sessions (`PostgresStoreDatabase.statementsSent`).
final class PostgresStatementCounter: Sendable {
    let count = Atomic<Int>(0)
}

// MARK: - Errors

enum PostgresErrors {
    /// Wraps an error thrown while doing `operation` as a `StoreError` (which passes unchanged):
    /// the server's message, its SQLSTATE and the constraint when it names one.
    static func wrapping(_ error: any Error, while operation: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresServerError {
            if error.unavailable { return StoreError(.unavailable, "\(operation): \(error.message)") }
            var detail = error.message
            if let constraint = error.constraint { detail += " (constraint \(constraint))" }
            guard let state = error.sqlState else { return StoreError(.database, "\(operation): \(detail)") }
            // disk_full: the server could not extend a file (its disk or its quota); the transaction was rolled back.
            if state == "53100" { return StoreError.diskFull(while: operation, detail: "PostgreSQL error 53100: \(detail)") }
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
