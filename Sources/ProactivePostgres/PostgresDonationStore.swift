import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - PostgreSQL store

/// The donation store on a PostgreSQL database: the same contract as `SQLiteDonationStore`
/// (the same validation, order, counts and errors; `DonationStore`).
///
/// ```swift
/// let store = PostgresDonationStore(database: try PostgresStoreDatabase(url: url))
/// try store.append([donation], duplicates: .skip)   // a re-import stores nothing new
/// ```
///
/// Each `append` or `delete` is one transaction holding the writer lock. A duplicate (an
/// `(app, identifier)` already stored, or the same donation: `DonationRecord+ContentKey`) is
/// skipped by the statement (`ON CONFLICT DO NOTHING`), so only the UNIQUE indexes cause a
/// skip; under `.fail` it fails the batch, and any other constraint violation is an error.
public struct PostgresDonationStore: DonationStore {
    public let database: PostgresStoreDatabase

    public init(database: PostgresStoreDatabase) { self.database = database }

    // MARK: Appending

    public func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
        let records = try donations.map { donation throws(StoreError) in try DonationRecord(donation) }
        if records.isEmpty { return AppendResult() }
        return try PostgresErrors.wrap("appending \(records.count) donations") {
            try database.inTransaction(writing: true) { session in try Self.insert(records, session, duplicates: duplicates) }
        }
    }

    public func inOneTransaction<Result>(_ body: (any DonationAppender) throws -> Result) throws -> Result {
        try Transactions(database: database).inOneTransaction(body)
    }

    /// Several prepared batches in one writing transaction: one commit for the batches of concurrent
    /// callers (the group commit, `DonationTransactions.appendEach(batches:)`). A batch whose write
    /// fails is answered with its error and stores nothing; the others are stored when this returns.
    /// The second attempt, after a batch failed, writes each donation in a statement of its own.
    /// - Throws: when the transaction cannot be begun or committed (then nothing is stored), or when
    ///   the server went away (nothing is retried: `.unavailable`).
    public func appendEach(batches: [PreparedDonations]) throws(StoreError) -> [Result<[Result<Bool, StoreError>], StoreError>] {
        try Transactions(database: database).appendEach(batches: batches)
    }

    /// The write transactions of the shared algorithms (`DonationTransactions`) on a session.
    private struct Transactions: DonationTransactions {
        let database: PostgresStoreDatabase

        func inWriteTransaction<Result>(_ body: (PostgresSession) throws -> Result) throws -> Result {
            try database.inTransaction(writing: true, body)
        }

        func inSavepoint<Result>(of session: PostgresSession, _ body: () throws -> Result) throws -> Result {
            try session.inSavepoint(body)
        }

        func appender(in session: PostgresSession) -> TransactionAppender { TransactionAppender(session: session) }

        /// One donation a statement, each in a savepoint of its own (`appendOneByOne`).
        func appendAlone(_ batch: PreparedDonations, with appender: TransactionAppender) throws(StoreError) -> [Result<Bool, StoreError>] {
            try appender.appendOneByOne(prepared: batch)
        }

        func storeError(_ error: any Error, while operation: String) -> StoreError { PostgresErrors.wrapping(error, while: operation) }

        func refusesEveryBatch(_ error: StoreError) -> Bool { error.code == .unavailable }
    }

    /// Appends inside a transaction `inOneTransaction` opened; each batch in a savepoint (all or nothing).
    private struct TransactionAppender: DonationAppender {
        let session: PostgresSession

        func append(_ donations: [Donation], duplicates: DuplicatePolicy) throws(StoreError) -> AppendResult {
            let records = try donations.map { donation throws(StoreError) in try DonationRecord(donation) }
            return try PostgresErrors.wrap("appending \(records.count) donations") {
                try session.inSavepoint { try PostgresDonationStore.insert(records, session, duplicates: duplicates) }
            }
        }

        func appendEach(_ donations: [Donation]) throws(StoreError) -> [Result<Bool, StoreError>] {
            try appendEach(prepared: PreparedDonations(donations))
        }

        /// Without a savepoint: a donation the encoding refused is answered with its error, the others
        /// are written by one statement per chunk (duplicates skipped); any other failure throws.
        func appendEach(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>] {
            try prepared.answers { records throws(StoreError) in
                try PostgresErrors.wrap("appending \(records.count) donations") {
                    try PostgresPrivacyStore.requireRecording(session)
                    return try PostgresDonationStore.insertEach(records, session)
                }
            }
        }

        /// One `append` per donation, each in a savepoint (`DonationAppender`'s own `appendEach`).
        func appendOneByOne(prepared: PreparedDonations) throws(StoreError) -> [Result<Bool, StoreError>] {
            try prepared.answers { records throws(StoreError) in
                try records.map { record throws(StoreError) in
                    try PostgresErrors.wrap("appending 1 donations") {
                        try session.inSavepoint { try PostgresDonationStore.insert([record], session, duplicates: .skip).inserted == 1 }
                    }
                }
            }
        }
    }

    static let columns = "\"user\", app, intent, parameters, date_ms, utc_offset, identifier, group_id, context, count, content_hash"

    /// Inserts records; the caller owns the transaction. Under `.skip`, one statement per chunk
    /// (`insertEach`); under `.fail`, one statement a record, stopping at the first duplicate.
    /// - Throws: `.recordingPaused` while recording is paused; under `.fail`, the error for the first duplicate.
    static func insert(_ records: [DonationRecord], _ session: PostgresSession, duplicates: DuplicatePolicy) throws -> AppendResult {
        try PostgresPrivacyStore.requireRecording(session)
        var result = AppendResult()
        if duplicates == .skip {
            for stored in try insertEach(records, session) {
                if stored { result.inserted += 1 } else { result.duplicates += 1 }
            }
            return result
        }
        for record in records {
            let offset = record.utcOffset.map(Int32.init)
            let rows = try session.query("""
                INSERT INTO donation (\(unescaped: columns))
                VALUES (\(record.user), \(record.app), \(record.intent), \(record.parametersJSON), \(record.dateMilliseconds), \(offset),
                        \(record.identifier), \(record.group), \(record.contextJSON), \(Int32(record.count)), \(record.contentHash))
                ON CONFLICT DO NOTHING RETURNING id
                """).rows
            if !rows.isEmpty {
                result.inserted += 1
            } else {
                throw try uniquenessError(record, session)
            }
        }
        return result
    }

    /// How many records one statement of `insertEach` writes at most.
    static let chunkSize = 1000

    /// Inserts records in order, duplicates skipped, one statement per `chunkSize` records: per
    /// record, whether it was stored. The caller owns the transaction and checks recording.
    ///
    /// Each statement is an `INSERT ... SELECT` from `unnest` of one array per column, in the
    /// records' order, `ON CONFLICT DO NOTHING`: a record that meets a row stored before or earlier
    /// in the chunk is skipped, as one statement a record would skip it, and ids are given in order.
    /// It returns the rows it stored, in id order, which are the stored records in their order; a
    /// record is matched to the next returned row by its uniqueness keys (two records with the same
    /// keys are both skipped or the first stored, so the match is the record's own).
    /// - Throws: the server's error for the first record that breaks a constraint (the chunk writes nothing).
    static func insertEach(_ records: [DonationRecord], _ session: PostgresSession) throws -> [Bool] {
        var stored: [Bool] = []
        stored.reserveCapacity(records.count)
        var start = 0
        while start < records.count {
            let chunk = records[start ..< min(start + chunkSize, records.count)]
            start += chunk.count
            let rows = try session.query("""
                INSERT INTO donation (\(unescaped: columns))
                SELECT \(unescaped: columns) FROM unnest(\(PostgresArray(chunk.map { $0.user })), \(PostgresArray(chunk.map { $0.app })),
                    \(PostgresArray(chunk.map { $0.intent })), \(PostgresArray(chunk.map { $0.parametersJSON })),
                    \(PostgresArray(chunk.map { $0.dateMilliseconds })), \(PostgresArray(chunk.map { $0.utcOffset.map(Int32.init) })),
                    \(PostgresArray(chunk.map(\.identifier))), \(PostgresArray(chunk.map(\.group))),
                    \(PostgresArray(chunk.map { $0.contextJSON })), \(PostgresArray(chunk.map { Int32($0.count) })),
                    \(PostgresArray(chunk.map { $0.contentHash })))
                    WITH ORDINALITY AS given (\(unescaped: columns), position)
                ORDER BY position
                ON CONFLICT DO NOTHING RETURNING id, "user", app, identifier, date_ms, content_hash
                """).rows
            let returned = try rows.map { row in
                (id: try row.decode(0, as: Int64.self), user: try row.decode(1, as: String.self), app: try row.decode(2, as: String.self),
                 identifier: try row.decode(3, as: String?.self), date: try row.decode(4, as: Int64.self), hash: try row.decode(5, as: Int64.self))
            }.sorted { $0.id < $1.id }
            var next = returned.makeIterator()
            var candidate = next.next()
            for record in chunk {
                if let row = candidate, row.user == record.user, row.app == record.app, row.identifier == record.identifier,
                   row.date == record.dateMilliseconds, row.hash == record.contentHash {
                    stored.append(true)
                    candidate = next.next()
                } else {
                    stored.append(false)
                }
            }
            guard candidate == nil else { throw PostgresServerError(message: "the stored donations did not match the batch") }
        }
        return stored
    }

    /// The error for a record that a UNIQUE index refused: a taken `(app, identifier)` first
    /// (the other stores' order), else the same donation.
    private static func uniquenessError(_ record: DonationRecord, _ session: PostgresSession) throws -> StoreError {
        if let identifier = record.identifier,
           try !session.query("SELECT 1 FROM donation WHERE app = \(record.app) AND identifier = \(identifier)").rows.isEmpty {
            return DonationStoreChecks.duplicate(record)
        }
        return DonationStoreChecks.sameDonation(record)
    }

    // MARK: Deleting

    /// Deletes donations and, in the same transaction, the feedback that names targets only they
    /// made (`FeedbackScrubbing`, as `SQLiteDonationStore.delete` does).
    public func delete(_ deletion: DonationDeletion) throws(StoreError) -> Int {
        var clause = PostgresWhereClause()
        switch deletion {
        case let .identifiers(identifiers, app):
            if identifiers.isEmpty { return 0 }
            clause.add("app = $", app)
            clause.add("identifier = ANY($::text[])", identifiers)
        case let .group(group, app):
            clause.add("app = $", app)
            clause.add("group_id = $", group)
        case let .matching(filter):
            clause = PostgresWhereClause(filter)
        }
        return try PostgresErrors.wrap("deleting \(deletion)") {
            try database.inTransaction(writing: true) { session in
                let made = try session.madeByDonations(clause)
                let deleted = try session.query(PostgresQuery(unsafeSQL: "DELETE FROM donation" + clause.sql, binds: clause.binds)).changed
                try session.scrubFeedback(deleted: made)
                return deleted
            }
        }
    }

    // MARK: Reading

    public func donations(forUser user: String, in dates: DateSpan) throws(StoreError) -> [Donation] {
        let clause = PostgresWhereClause(DonationFilter(user: user, dates: dates))
        let sql = "SELECT \(Self.columns) FROM donation\(clause.sql) ORDER BY date_ms, id"
        let records = try PostgresErrors.wrap("reading the donations of user \(user)") {
            try database.withSession { session in
                try session.query(PostgresQuery(unsafeSQL: sql, binds: clause.binds)).rows.map { try Self.record($0).record }
            }
        }
        return try records.map { record throws(StoreError) in try record.donation() }
    }

    public func page(matching filter: DonationFilter, after cursor: DonationCursor?, limit: Int) throws(StoreError) -> DonationPage {
        try DonationStoreChecks.validatePageLimit(limit)
        var clause = PostgresWhereClause(filter)
        if let cursor {
            clause.add("(\"user\", date_ms, id) > ($, $, $)", cursor.user, cursor.dateMilliseconds, cursor.rowID)
        }
        var binds = clause.binds
        binds.append(limit)
        let sql = "SELECT \(Self.columns), id FROM donation\(clause.sql) ORDER BY \"user\", date_ms, id LIMIT $\(binds.count)"
        let rows = try PostgresErrors.wrap("reading a page of donations") {
            try database.withSession { session in try session.query(PostgresQuery(unsafeSQL: sql, binds: binds)).rows.map(Self.record) }
        }
        let donations = try rows.map { row throws(StoreError) in try row.record.donation() }
        let next = rows.count < limit ? nil : rows.last.map {
            DonationCursor(user: $0.record.user, dateMilliseconds: $0.record.dateMilliseconds, rowID: $0.id ?? 0)
        }
        return DonationPage(donations: donations, next: next)
    }

    public func statistics(matching filter: DonationFilter) throws(StoreError) -> DonationStatistics {
        let clause = PostgresWhereClause(filter)
        func tallies(_ session: PostgresSession, _ columns: String, app: Bool) throws -> [DonationStatistics.Tally] {
            let sql = "SELECT \(columns), COUNT(*), SUM(count) FROM donation\(clause.sql) GROUP BY \(columns)"
            return try session.query(PostgresQuery(unsafeSQL: sql, binds: clause.binds)).rows.map { row in
                if app {
                    return .init(app: try row.decode(0), name: try row.decode(1), rows: try row.decode(2), donations: try row.decode(3))
                }
                return .init(name: try row.decode(0), rows: try row.decode(1), donations: try row.decode(2))
            }
        }
        return try PostgresErrors.wrap("counting donations") {
            try database.inTransaction(writing: false) { session in
                let totals = try session.query(PostgresQuery(unsafeSQL: """
                    SELECT COUNT(*), COALESCE(SUM(count), 0)::bigint, MIN(date_ms), MAX(date_ms) FROM donation\(clause.sql)
                    """, binds: clause.binds)).rows.first!
                let (rows, donations): (Int, Int) = (try totals.decode(0), try totals.decode(1))
                let (first, last): (Int64?, Int64?) = (try totals.decode(2), try totals.decode(3))
                return DonationStatistics(
                    rows: rows, donations: donations,
                    firstDate: first.map(Date.init(millisecondsSince1970:)), lastDate: last.map(Date.init(millisecondsSince1970:)),
                    byApp: DonationStatistics.sorted(try tallies(session, "app", app: false)),
                    byIntent: DonationStatistics.sorted(try tallies(session, "app, intent", app: true)),
                    byUser: DonationStatistics.sorted(try tallies(session, "\"user\"", app: false)))
            }
        }
    }

    public func users() throws(StoreError) -> [String] {
        try PostgresErrors.wrap("listing users") {
            try database.withSession { session in
                try session.query("SELECT DISTINCT \"user\" FROM donation ORDER BY \"user\"").rows.map { try $0.decode(String.self) }
            }
        }
    }

    // MARK: User settings

    public func timeZone(forUser user: String) throws(StoreError) -> String? {
        try PostgresErrors.wrap("reading the time zone of user \(user)") {
            try database.withSession { session in
                try session.query("SELECT time_zone FROM user_setting WHERE \"user\" = \(user)").rows.first?.decode(String?.self)
            }
        }
    }

    public func setTimeZone(_ identifier: String?, forUser user: String) throws(StoreError) {
        try DonationStoreChecks.validateTimeZone(identifier, user: user)
        try PostgresErrors.wrap("setting the time zone of user \(user)") {
            try database.inTransaction(writing: true) { session in
                _ = try session.query("""
                    INSERT INTO user_setting ("user", time_zone) VALUES (\(user), \(identifier))
                    ON CONFLICT ("user") DO UPDATE SET time_zone = excluded.time_zone
                    """)
            }
        }
    }

    // MARK: Rows

    /// A row selected as `columns`, optionally followed by the id.
    static func record(_ row: PostgresRow) throws -> (record: DonationRecord, id: Int64?) {
        let record = DonationRecord(
            user: try row.decode(0, as: String.self), app: try row.decode(1, as: String.self), intent: try row.decode(2, as: String.self),
            parametersJSON: try row.decode(3, as: String.self), dateMilliseconds: try row.decode(4, as: Int64.self),
            utcOffset: try row.decode(5, as: Int32?.self).map(Int.init), identifier: try row.decode(6, as: String?.self),
            group: try row.decode(7, as: String?.self), contextJSON: try row.decode(8, as: String.self), count: Int(try row.decode(9, as: Int32.self)),
            contentHash: try row.decode(10, as: Int64?.self))
        return (record, row.count > 11 ? try row.decode(11, as: Int64.self) : nil)
    }
}

// MARK: - SQL building

/// `WHERE` conditions with numbered parameters: each `$` in a condition becomes the next `$n`.
struct PostgresWhereClause {
    private var conditions: [String] = []
    private(set) var binds = PostgresBindings()

    init() {}

    /// The conditions of a filter (user, app, date span), as the other stores read it.
    init(_ filter: DonationFilter) {
        if let user = filter.user { add("\"user\" = $", user) }
        if let app = filter.app { add("app = $", app) }
        if let start = filter.dates.startMilliseconds { add("date_ms >= $", start) }
        if let end = filter.dates.endMilliseconds { add("date_ms < $", end) }
    }

    mutating func add(_ condition: String, _ values: any PostgresBindable...) {
        var numbered = ""
        var next = values.makeIterator()
        for character in condition {
            if character == "$", let value = next.next() {
                binds.append(value)
                numbered += "$\(binds.count)"
            } else {
                numbered.append(character)
            }
        }
        conditions.append(numbered)
    }

    var sql: String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }
}
