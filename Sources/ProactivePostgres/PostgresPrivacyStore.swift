import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Privacy

/// Pausing, retention, forgetting a user and physical erasure on PostgreSQL: the same contract
/// as `SQLitePrivacyStore`. Each write is one transaction holding the writer lock.
///
/// ```swift
/// let privacy = PostgresPrivacyStore(database: database)
/// try privacy.setRecordingPaused(true, at: now)   // donations and feedback are refused from now on
/// let erased = try privacy.forget(user: "u1")     // every row of the user, in one transaction
/// ```
///
/// **Physical erasure.** PostgreSQL never overwrites a row in place: a deleted row stays in its
/// table's pages, and its keys in the indexes' pages, until `VACUUM` prunes them, and pruning frees
/// the space without zeroing it. So `eraseTraces()` (a plain `VACUUM` of `userTables`, with
/// `ANALYZE` so the planner's statistics sample only rows still stored) does not make the bytes
/// unreadable: a deleted row can stay in its page's free space and in the indexes, and it returns
/// false. `compact()` runs `VACUUM FULL`, which writes each table and its indexes into new files and
/// unlinks the old ones: afterwards no relation file of the database holds a deleted row (tested by
/// `PostgresErasureTests`). Beyond the tables, the server keeps the write-ahead log: its segments
/// (and their archive or replicas when configured) hold the inserted rows until they are recycled
/// after later checkpoints, and an unlinked file's blocks stay on the disk until reused.
/// docs/ARCHITECTURE.md records what was measured.
public struct PostgresPrivacyStore: PrivacyStore {
    public let database: PostgresStoreDatabase

    public init(database: PostgresStoreDatabase) { self.database = database }

    // MARK: Pause

    public func isRecordingPaused() throws(StoreError) -> Bool {
        try PostgresErrors.wrap("reading the recording state") {
            try database.withSession { session in try Self.isPaused(session) }
        }
    }

    public func setRecordingPaused(_ paused: Bool, at date: Date) throws(StoreError) {
        try PostgresErrors.wrap("\(paused ? "pausing" : "resuming") recording") {
            try database.inTransaction(writing: true) { session in
                try session.query("""
                    UPDATE privacy_setting SET recording_paused = \(paused), paused_at_ms = \(paused ? date.millisecondsSince1970 : nil) WHERE id = 1
                    """)
            }
        }
    }

    public func pausedSince() throws(StoreError) -> Date? {
        try PostgresErrors.wrap("reading the recording state") {
            try database.withSession { session in
                try session.query("SELECT paused_at_ms FROM privacy_setting WHERE id = 1 AND recording_paused").rows.first?.decode(Int64?.self)
            }
        }.map { Date(millisecondsSince1970: $0) }
    }

    private static func isPaused(_ session: PostgresSession) throws -> Bool {
        try session.query("SELECT recording_paused FROM privacy_setting WHERE id = 1").rows.first?.decode(Bool.self) ?? false
    }

    /// Throws `.recordingPaused` when recording is paused; called inside every donation and feedback write transaction.
    static func requireRecording(_ session: PostgresSession) throws {
        if try isPaused(session) { throw SQLitePrivacyStore.pausedError }
    }

    // MARK: Retention

    public func retentionPolicy() throws(StoreError) -> RetentionPolicy {
        try PostgresErrors.wrap("reading the retention policy") {
            try database.inTransaction(writing: false) { session in try Self.policy(session) }
        }
    }

    private static func policy(_ session: PostgresSession) throws -> RetentionPolicy {
        let defaultDays = try session.query("SELECT default_retention_days FROM privacy_setting WHERE id = 1").rows.first?.decode(Int?.self) ?? nil
        var byApp: [String: RetentionWindow] = [:]
        for row in try session.query("SELECT app, days FROM app_retention").rows {
            byApp[try row.decode(0)] = RetentionWindow(storedDays: try row.decode(1, as: Int?.self))
        }
        return RetentionPolicy(defaultWindow: RetentionWindow(storedDays: defaultDays), byApp: byApp)
    }

    /// - Throws: `.invalidRequest` for days outside 1...36500 or an empty app.
    public func setRetention(_ window: RetentionWindow, app: String?) throws(StoreError) {
        let days = try window.validated().storedDays
        if app?.isEmpty == true { throw StoreError(.invalidRequest, "a retention window needs a non-empty app") }
        try PostgresErrors.wrap("setting the retention window of \(app ?? "all apps")") {
            try database.inTransaction(writing: true) { session in
                if let app {
                    try session.query("""
                        INSERT INTO app_retention (app, days) VALUES (\(app), \(days)) ON CONFLICT (app) DO UPDATE SET days = excluded.days
                        """)
                } else {
                    try session.query("UPDATE privacy_setting SET default_retention_days = \(days) WHERE id = 1")
                }
            }
        }
    }

    @discardableResult
    public func clearRetention(app: String) throws(StoreError) -> Bool {
        try PostgresErrors.wrap("clearing the retention window of \(app)") {
            try database.inTransaction(writing: true) { session in try session.query("DELETE FROM app_retention WHERE app = \(app)").changed > 0 }
        }
    }

    /// Erases donations and feedback older than their app's window at `now`, in one transaction, as a
    /// deletion does (the feedback naming targets only the erased donations made is scrubbed and counted in `feedback`, and
    /// the erasure journal records the donations for users with saved states). A policy that keeps
    /// everything writes nothing. `bulk` changes nothing here (SQLite tunes its connection with it).
    /// The journal's copies and the dead rows stay until saved states unlearn them and
    /// `eraseTraces()` runs: `Engine.applyRetention` settles both in that order.
    public func applyRetention(now: Date, bulk: Bool) throws(StoreError) -> RetentionReport {
        try PostgresErrors.wrap("applying the retention policy") {
            try database.inTransaction(writing: true) { session in
                let policy = try Self.policy(session)
                var report = RetentionReport()
                if policy.keepsEverything { return report }
                var made: [FeedbackScrubbing.UserApp: Set<FeedbackScrubbing.Made>] = [:]
                func erase(_ clause: PostgresWhereClause) throws -> (donations: [String: Int], feedback: Int) {
                    made.merge(try session.madeByDonations(clause)) { $0.union($1) }
                    let rows = try session.query(PostgresQuery(
                        unsafeSQL: "WITH erased AS (DELETE FROM donation\(clause.sql) RETURNING app) SELECT app, count(*) FROM erased GROUP BY app",
                        binds: clause.binds)).rows
                    var donations: [String: Int] = [:]
                    for row in rows { donations[try row.decode(0)] = try row.decode(1, as: Int.self) }
                    let feedback = try session.query(PostgresQuery(unsafeSQL: "DELETE FROM feedback" + clause.sql, binds: clause.binds)).changed
                    return (donations, feedback)
                }
                for (app, window) in policy.byApp {
                    guard let cutoff = window.cutoff(now: now)?.millisecondsSince1970 else { continue }
                    var clause = PostgresWhereClause()
                    clause.add("app = $", app)
                    clause.add("date_ms < $", cutoff)
                    let erased = try erase(clause)
                    report.donationsByApp.merge(erased.donations) { $0 + $1 }
                    report.feedback += erased.feedback
                }
                if let cutoff = policy.defaultWindow.cutoff(now: now)?.millisecondsSince1970 {
                    var clause = PostgresWhereClause()
                    clause.add("date_ms < $", cutoff)
                    clause.add("app NOT IN (SELECT app FROM app_retention)")
                    let erased = try erase(clause)
                    report.donationsByApp.merge(erased.donations) { $0 + $1 }
                    report.feedback += erased.feedback
                }
                report.feedback += try session.scrubFeedback(deleted: made)
                return report
            }
        }
    }

    // MARK: Forgetting a user

    /// Every table that holds a user's own data, by its `user` column (`SQLitePrivacyStore.userTables`;
    /// a test checks that every table with a `user` column is listed).
    public static let userTables = SQLitePrivacyStore.userTables

    /// Erases everything the store holds about `user` in one transaction holding the writer lock,
    /// donations first (while the user's saved states still exist, so their deletion advances the
    /// erasure journal's sequence: how every instance holding the user's model learns it must drop
    /// it, and how a stale save is refused), then every other table in `userTables`; then
    /// `eraseTraces()`.
    /// - Returns: rows erased per table (tables with none, and the journal's copies, are omitted).
    /// - Throws: `.invalidRequest` for an empty user.
    public func forget(user: String) throws(StoreError) -> [String: Int] {
        try forget(user: user, app: nil)
    }

    /// `forget(user:)` with `app` nil; with an app, only that app's rows of `user` in one transaction
    /// holding the writer lock (`SQLitePrivacyStore.userAppTables`), then `eraseTraces()`.
    /// - Returns: rows erased per table (tables with none are omitted).
    /// - Throws: `.invalidRequest` for an empty user or app.
    public func forget(user: String, app: String?) throws(StoreError) -> [String: Int] {
        guard !user.isEmpty else { throw StoreError(.invalidRequest, "forget needs a non-empty user") }
        if let app {
            guard !app.isEmpty else { throw StoreError(.invalidRequest, "forget needs a non-empty app") }
            let erased = try PostgresErrors.wrap("erasing \(app)'s data of user \(user)") {
                try database.inTransaction(writing: true) { session in
                    var erased: [String: Int] = [:]
                    for table in SQLitePrivacyStore.userAppTables {
                        let changed = try session.query("DELETE FROM \(unescaped: table) WHERE \"user\" = \(user) AND app = \(app)").changed
                        if changed > 0 { erased[table] = changed }
                    }
                    return erased
                }
            }
            try eraseTraces()
            return erased
        }
        // The heavy parts before their states: deleting a state cascades to its heavy part, which would then count as none.
        let order = ["donation", "model_state_heavy"] + Self.userTables.filter { $0 != "donation" && $0 != "model_state_heavy" }
        let erased = try PostgresErrors.wrap("forgetting user \(user)") {
            try database.inTransaction(writing: true) { session in
                var erased: [String: Int] = [:]
                for table in order {
                    let changed = try session.query("DELETE FROM \(unescaped: table) WHERE \"user\" = \(user)").changed
                    if changed > 0, table != "model_erasure" { erased[table] = changed }
                }
                return erased
            }
        }
        try eraseTraces()
        return erased
    }

    // MARK: Physical erasure

    /// Vacuums and analyzes the tables that hold users' data (`userTables`), pruning their dead rows.
    /// - Returns: false: pruned space is not zeroed (a deleted row can stay readable in its page and
    ///   its index entries until `compact()`), the write-ahead log keeps rows until its segments are
    ///   recycled, and a transaction open elsewhere keeps the dead rows it can still see.
    @discardableResult
    public func eraseTraces() throws(StoreError) -> Bool {
        try PostgresErrors.wrap("vacuuming \(database.displayURL)") {
            try database.withSession { session in try session.maintain("VACUUM (ANALYZE) " + Self.userTables.joined(separator: ", ")) }
        }
        return false
    }

    /// Rewrites the tables that hold users' data and their indexes into new files (`VACUUM FULL`, then
    /// `ANALYZE`), so no relation file of the database keeps a deleted row. It locks each table
    /// against every other use while it is rewritten. Sizes are the database's (`pg_database_size`); the write-ahead log is the server's,
    /// shared by its databases and never truncated here (its sizes stay 0 and `logTruncated` false).
    public func compact() throws(StoreError) -> StoreCompactionReport {
        try PostgresErrors.wrap("compacting \(database.displayURL)") {
            try database.withSession { session in
                func size() throws -> Int64 {
                    try session.query("SELECT pg_database_size(current_database())").rows.first?.decode(Int64.self) ?? 0
                }
                var report = StoreCompactionReport()
                report.fileBytesBefore = try size()
                try session.maintain("VACUUM (FULL, ANALYZE) " + Self.userTables.joined(separator: ", "))
                report.fileBytesAfter = try size()
                report.logTruncated = false
                return report
            }
        }
    }
}
