import Foundation
import GRDB
import GRDBSQLite
import ProactiveCore

// MARK: - SQLite store

/// The donation store on a `ProactiveDatabase` file (GRDB, WAL).
///
/// Each `append` or `delete` is one transaction; appends reuse one prepared
/// statement per transaction. Duplicates (an `(app, identifier)` already
/// stored, or the same donation already stored: `DonationRecord+ContentKey`)
/// are skipped with an upsert (`ON CONFLICT DO NOTHING`), so only the UNIQUE
/// indexes can cause a skip; any other constraint violation is an error.
public struct SQLiteDonationStore: DonationStore, DonationRecordAppender {
    public let database: ProactiveDatabase

    public init(database: ProactiveDatabase) {
        self.database = database
    }

    /// Opens (creating or migrating) the store file at `path`.
    public init(path: String, mode: ProactiveDatabase.OpenMode = .createIfMissing) throws(StoreError) {
        self.init(database: try ProactiveDatabase(path: path, mode: mode))
    }

    private var writer: any DatabaseWriter { database.writer }

    // MARK: Appending

    public func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        try appendEncoded(donations.map { donation throws(StoreError) in try DonationRecord(donation) }, duplicates: duplicates)
    }

    func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        if records.isEmpty { return AppendResult() }
        return try StoreError.wrap("appending \(records.count) donations") {
            try writer.write { db in try Self.insert(records, into: db, duplicates: duplicates) }
        }
    }

    /// Runs `body` with the write connection tuned for bulk work
    /// (`ProactiveDatabase.bulkTuned`: a larger page cache, rarer WAL checkpoints).
    public func bulkLoading<Result>(_ body: () throws -> Result) rethrows -> Result {
        try database.bulkTuned(body)
    }

    public func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result {
        try Transactions(writer: writer).inOneTransaction(body)
    }

    /// Several prepared batches in one write transaction: one commit for the batches of
    /// concurrent requests (the service's group commit, `DonationTransactions.appendEach(batches:)`).
    /// A batch whose insert fails is answered with its error and stores nothing; the others are
    /// stored (in the WAL) when this returns. A full disk refuses every batch alike (SQLite rolls
    /// the whole transaction back): then this throws.
    /// - Throws: when the transaction cannot be begun or committed (then nothing is stored).
    public func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [Result<[Result<Bool, StoreError>], StoreError>] {
        try Transactions(writer: writer).appendEach(batches: batches)
    }

    /// The write transactions of the shared algorithms (`DonationTransactions`) on GRDB.
    private struct Transactions: DonationTransactions {
        let writer: any DatabaseWriter

        func inWriteTransaction<Result>(_ body: (Database) throws -> Result) throws -> Result {
            try writer.write(body)
        }

        func inSavepoint<Result>(of db: Database, _ body: () throws -> Result) throws -> Result {
            var result: Result?
            try db.inSavepoint {
                result = try body()
                return .commit
            }
            return result!
        }

        func appender(in db: Database) -> TransactionAppender { TransactionAppender(db: db) }

        func storeError(_ error: any Error, while operation: String) -> StoreError { StoreError.wrapping(error, while: operation) }

        func refusesEveryBatch(_ error: StoreError) -> Bool { error.code == .diskFull }
    }

    /// Appends inside a transaction someone else opened.
    private struct TransactionAppender: DonationAppender, DonationRecordAppender {
        let db: Database

        func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            try appendEncoded(donations.map { donation throws(StoreError) in try DonationRecord(donation) }, duplicates: duplicates)
        }

        /// Without a savepoint per donation: a refused one is refused before SQLite sees it, and a
        /// duplicate is skipped by the statement (`ON CONFLICT DO NOTHING`).
        func appendEach(_ donations: [Donation]) throws(StoreError) -> [Result<Bool, StoreError>] {
            try appendEach(prepared: PreparedDonations(donations))
        }

        func appendEach(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>] {
            try prepared.answers { records throws(StoreError) in
                try StoreError.wrap("appending \(records.count) donations") { try SQLiteDonationStore.insertEach(records, into: db) }
            }
        }

        func appendEncoded(_ records: [DonationRecord], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            try StoreError.wrap("appending \(records.count) donations") {
                // A savepoint keeps the batch all-or-nothing inside the outer transaction.
                var result = AppendResult()
                try db.inSavepoint {
                    result = try SQLiteDonationStore.insert(records, into: db, duplicates: duplicates)
                    return .commit
                }
                return result
            }
        }
    }

    private static let insertSQL = "INSERT INTO donation (\(DonationRecord.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    /// Skips on either uniqueness rule: `(app, identifier)` and the content key
    /// `(user, date_ms, content_hash)`. An upsert only ever catches UNIQUE
    /// violations, so a CHECK failure is still an error.
    private static let insertSkippingSQL = insertSQL + " ON CONFLICT DO NOTHING"

    /// Inserts records with one cached statement, bound and stepped through
    /// the C API; the caller owns the transaction.
    /// Refuses (`.recordingPaused`) while recording is paused (`SQLitePrivacyStore`).
    fileprivate static func insert(_ records: [DonationRecord], into db: Database, duplicates: DuplicatePolicy) throws -> AppendResult {
        var result = AppendResult()
        try insert(records, into: db, sql: duplicates == .skip ? insertSkippingSQL : insertSQL) { stored in
            if stored { result.inserted += 1 } else { result.duplicates += 1 }
        }
        return result
    }

    /// Inserts records one by one, duplicates skipped: per record, whether it was stored.
    fileprivate static func insertEach(_ records: [DonationRecord], into db: Database) throws -> [Bool] {
        var stored: [Bool] = []
        stored.reserveCapacity(records.count)
        try insert(records, into: db, sql: insertSkippingSQL) { stored.append($0) }
        return stored
    }

    /// Steps `sql` once per record; `inserted` says whether each one added a row.
    private static func insert(_ records: [DonationRecord], into db: Database, sql: String, inserted: (Bool) -> Void) throws {
        try SQLitePrivacyStore.requireRecording(db)
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        let connection = db.sqliteConnection
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)  // no pointer into `scratch` outlives it
        }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(1024)
        for record in records {
            sqlite3_reset(statement)
            let code = record.withBindings(to: statement, scratch: &scratch) { sqlite3_step(statement) }
            guard code == SQLITE_DONE else {
                let extended = sqlite3_extended_errcode(connection)
                if ResultCode(rawValue: extended) == .SQLITE_CONSTRAINT_UNIQUE { throw try uniquenessError(record, db) }
                throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
            }
            inserted(sqlite3_changes(connection) == 1)
        }
    }

    /// The error for a record that broke a UNIQUE index. A taken `(app,
    /// identifier)` is named first, whichever index SQLite checked first
    /// (the in-memory store's order).
    private static func uniquenessError(_ record: DonationRecord, _ db: Database) throws -> StoreError {
        if let identifier = record.identifier, try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM donation WHERE app = ? AND identifier = ?)
            """, arguments: [record.app, identifier]) == true {
            return DonationStoreChecks.duplicate(record)
        }
        return DonationStoreChecks.sameDonation(record)
    }

    // MARK: Deleting

    /// Deletes donations and, in the same transaction, the feedback that names
    /// targets only they made (`FeedbackScrubbing`).
    public func delete(_ deletion: DonationDeletion) throws(StoreError) -> Int {
        let (condition, arguments): (String, StatementArguments)
        switch deletion {
        case let .identifiers(identifiers, app):
            if identifiers.isEmpty { return 0 }
            var list = ""
            JSONWriter.append(.array(identifiers.map { .string($0) }), to: &list)
            condition = " WHERE app = ? AND identifier IN (SELECT value FROM json_each(?))"
            arguments = [app, list]
        case let .group(group, app):
            condition = " WHERE app = ? AND group_id = ?"
            arguments = [app, group]
        case let .matching(filter):
            let clause = Self.whereClause(filter)
            condition = clause.sql
            arguments = clause.arguments
        }
        return try StoreError.wrap("deleting \(deletion)") {
            try writer.write { db in
                let made = try FeedbackScrubbing.made(db, where: condition, arguments)
                try db.execute(sql: "DELETE FROM donation" + condition, arguments: arguments)
                let deleted = db.changesCount
                try FeedbackScrubbing.scrub(db, deleted: made)
                return deleted
            }
        }
    }

    // MARK: Reading

    public func donations(forUser user: String, in dates: DateSpan) throws(StoreError) -> [Donation] {
        let clause = Self.whereClause(DonationFilter(user: user, dates: dates))
        let sql = "SELECT \(DonationRecord.columns) FROM donation\(clause.sql) ORDER BY date_ms, id"
        let records = try StoreError.wrap("reading the donations of user \(user)") {
            try writer.read { db in try Row.fetchAll(db, sql: sql, arguments: clause.arguments).map(DonationRecord.init(row:)) }
        }
        return try records.map { record throws(StoreError) in try record.donation() }
    }

    public func page(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws(StoreError) -> DonationPage {
        try DonationStoreChecks.validatePageLimit(limit)
        var clause = Self.whereClause(filter)
        if let cursor {
            clause.add("(user, date_ms, id) > (?, ?, ?)", [cursor.user, cursor.dateMilliseconds, cursor.rowID])
        }
        let sql = "SELECT \(DonationRecord.columns), id FROM donation\(clause.sql) ORDER BY user, date_ms, id LIMIT ?"
        let rows = try StoreError.wrap("reading a page of donations") {
            try writer.read { db in
                try Row.fetchAll(db, sql: sql, arguments: clause.arguments + [limit]).map { row in
                    (DonationRecord(row: row), row[11] as Int64)
                }
            }
        }
        let donations = try rows.map { row throws(StoreError) in try row.0.donation() }
        let next = rows.count < limit ? nil : rows.last.map { DonationCursor(user: $0.0.user, dateMilliseconds: $0.0.dateMilliseconds, rowID: $0.1) }
        return DonationPage(donations: donations, next: next)
    }

    public func statistics(matching filter: DonationFilter) throws(StoreError) -> DonationStatistics {
        let clause = Self.whereClause(filter)
        func tallies(_ db: Database, _ columns: String, app: Bool) throws -> [DonationStatistics.Tally] {
            let sql = "SELECT \(columns), COUNT(*), SUM(count) FROM donation\(clause.sql) GROUP BY \(columns)"
            return try Row.fetchAll(db, sql: sql, arguments: clause.arguments).map { row in
                app ? .init(app: row[0], name: row[1], rows: row[2], donations: row[3])
                    : .init(name: row[0], rows: row[1], donations: row[2])
            }
        }
        return try StoreError.wrap("counting donations") {
            try writer.read { db in
                let totals = try Row.fetchOne(db, sql: """
                    SELECT COUNT(*), COALESCE(SUM(count), 0), MIN(date_ms), MAX(date_ms) FROM donation\(clause.sql)
                    """, arguments: clause.arguments)!
                return DonationStatistics(
                    rows: totals[0], donations: totals[1],
                    firstDate: (totals[2] as Int64?).map(Date.init(millisecondsSince1970:)), lastDate: (totals[3] as Int64?).map(Date.init(millisecondsSince1970:)),
                    byApp: DonationStatistics.sorted(try tallies(db, "app", app: false)),
                    byIntent: DonationStatistics.sorted(try tallies(db, "app, intent", app: true)),
                    byUser: DonationStatistics.sorted(try tallies(db, "user", app: false)))
            }
        }
    }

    public func users() throws(StoreError) -> [String] {
        try StoreError.wrap("listing users") {
            try writer.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT user FROM donation ORDER BY user") }
        }
    }

    // MARK: User settings

    public func timeZone(forUser user: String) throws(StoreError) -> String? {
        try StoreError.wrap("reading the time zone of user \(user)") {
            try writer.read { db in
                try String.fetchOne(db, sql: "SELECT time_zone FROM user_setting WHERE user = ?", arguments: [user])
            }
        }
    }

    public func setTimeZone(_ identifier: String?, forUser user: String) throws(StoreError) {
        try DonationStoreChecks.validateTimeZone(identifier, user: user)
        try StoreError.wrap("setting the time zone of user \(user)") {
            try writer.write { db in
                try db.execute(sql: """
                    INSERT INTO user_setting (user, time_zone) VALUES (?, ?)
                    ON CONFLICT (user) DO UPDATE SET time_zone = excluded.time_zone
                    """, arguments: [user, identifier])
            }
        }
    }

    // MARK: SQL building

    private struct WhereClause {
        var conditions: [String] = []
        var arguments = StatementArguments()

        mutating func add(_ condition: String, _ values: StatementArguments) {
            conditions.append(condition)
            arguments += values
        }

        var sql: String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }
    }

    private static func whereClause(_ filter: DonationFilter) -> WhereClause {
        var clause = WhereClause()
        if let user = filter.user { clause.add("user = ?", [user]) }
        if let app = filter.app { clause.add("app = ?", [app]) }
        if let start = filter.dates.startMilliseconds { clause.add("date_ms >= ?", [start]) }
        if let end = filter.dates.endMilliseconds { clause.add("date_ms < ?", [end]) }
        return clause
    }
}
