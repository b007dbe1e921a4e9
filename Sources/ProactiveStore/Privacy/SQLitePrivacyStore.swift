import Foundation
import GRDB

// MARK: - Privacy operations on the store file

/// Pausing, retention, forgetting a user and physical erasure.
///
/// ```swift
/// let privacy = SQLitePrivacyStore(database: database)
/// try privacy.setRecordingPaused(true, at: now)        // donations are refused from now on
/// try privacy.setRetention(.days(7), app: "com.example.health")
/// let erased = try privacy.applyRetention(now: now)
/// let forgotten = try privacy.forget(user: "u1")
/// let compacted = try privacy.compact()               // VACUUM + WAL truncate
/// ```
///
/// **Physical erasure.** Every connection runs with `secure_delete = ON`,
/// so a deleted row's bytes are overwritten in the page that held it. Older
/// copies of that page can still sit in the write-ahead log until a
/// checkpoint; `eraseTraces()` (run after retention and forgetting, and by
/// the CLI after `delete`) checkpoints and truncates the log, and
/// `compact()` also rebuilds the file (VACUUM) so no free page keeps history.
package struct SQLitePrivacyStore: Sendable {
    package let database: ProactiveDatabase

    package init(database: ProactiveDatabase) {
        self.database = database
    }

    private var writer: any DatabaseWriter { database.writer }

    // MARK: Pause

    /// Whether donations are currently refused.
    package func isRecordingPaused() throws(StoreError) -> Bool {
        try StoreError.wrap("reading the recording state") {
            try writer.read { db in try Bool.fetchOne(db, sql: "SELECT recording_paused FROM privacy_setting WHERE id = 1") ?? false }
        }
    }

    /// Pauses (refuses every donation from now on) or resumes recording.
    /// Nothing stored is deleted.
    package func setRecordingPaused(_ paused: Bool, at date: Date) throws(StoreError) {
        try StoreError.wrap("\(paused ? "pausing" : "resuming") recording") {
            try writer.write { db in
                try db.execute(sql: "UPDATE privacy_setting SET recording_paused = ?, paused_at_ms = ? WHERE id = 1",
                               arguments: [paused, paused ? date.millisecondsSince1970 : nil])
            }
        }
    }

    /// When recording was paused, if it is.
    package func pausedSince() throws(StoreError) -> Date? {
        try StoreError.wrap("reading the recording state") {
            try writer.read { db in
                try Int64.fetchOne(db, sql: "SELECT paused_at_ms FROM privacy_setting WHERE id = 1 AND recording_paused = 1")
            }
        }.map { Date(millisecondsSince1970: $0) }
    }

    /// Throws `.recordingPaused` when recording is paused. Called inside every
    /// donation and feedback write transaction, so a pause takes effect for the next batch
    /// of an import already running.
    static func requireRecording(_ db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT recording_paused FROM privacy_setting WHERE id = 1") == true { throw pausedError }
    }

    /// The error a donation or feedback write gets while recording is paused.
    package static let pausedError = StoreError(.recordingPaused, "recording is paused: donations and feedback are refused and nothing was stored")

    // MARK: Retention

    /// The default window and every app's override.
    package func retentionPolicy() throws(StoreError) -> RetentionPolicy {
        try StoreError.wrap("reading the retention policy") {
            try writer.read { db in
                let defaultDays = try Int.fetchOne(db, sql: "SELECT default_retention_days FROM privacy_setting WHERE id = 1")
                var byApp: [String: RetentionWindow] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT app, days FROM app_retention") {
                    byApp[row[0]] = RetentionWindow(storedDays: row[1])
                }
                return RetentionPolicy(defaultWindow: RetentionWindow(storedDays: defaultDays), byApp: byApp)
            }
        }
    }

    /// Sets the default window (`app` nil) or one app's window.
    /// - Throws: `.invalidRequest` for days outside 1...36500 or an empty app.
    package func setRetention(_ window: RetentionWindow, app: String? = nil) throws(StoreError) {
        let days = try window.validated().storedDays
        if app?.isEmpty == true { throw StoreError(.invalidRequest, "a retention window needs a non-empty app") }
        try StoreError.wrap("setting the retention window of \(app ?? "all apps")") {
            try writer.write { db in
                if let app {
                    try db.execute(sql: "INSERT INTO app_retention (app, days) VALUES (?, ?) ON CONFLICT (app) DO UPDATE SET days = excluded.days",
                                   arguments: [app, days])
                } else {
                    try db.execute(sql: "UPDATE privacy_setting SET default_retention_days = ? WHERE id = 1", arguments: [days])
                }
            }
        }
    }

    /// Removes an app's override (it follows the default again); false when it had none.
    @discardableResult
    package func clearRetention(app: String) throws(StoreError) -> Bool {
        try StoreError.wrap("clearing the retention window of \(app)") {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM app_retention WHERE app = ?", arguments: [app])
                return db.changesCount > 0
            }
        }
    }

    /// Erases donations and feedback older than their app's window at `now`,
    /// and the feedback naming targets only the erased donations made, as a
    /// deletion does (`FeedbackScrubbing`; counted in `feedback`)
    /// (one transaction, with the write connection tuned for bulk work: an
    /// import of old logs may leave a million rows to erase). A policy that
    /// keeps everything writes nothing. `bulk` false skips the tuning: for a
    /// caller that applies it often, such as the service after a batch.
    /// The erasure journal then holds copies of the erased donations until saved
    /// states unlearn them, and the write-ahead log older pages: use
    /// `Engine.applyRetention`, which settles both in that order.
    package func applyRetention(now: Date, bulk: Bool = true) throws(StoreError) -> RetentionReport {
        let policy = try retentionPolicy()
        if policy.keepsEverything { return RetentionReport() }
        let erase = { () throws -> RetentionReport in
            try writer.write { db in
                var report = RetentionReport()
                var made: [FeedbackScrubbing.UserApp: Set<FeedbackScrubbing.Made>] = [:]
                for (app, window) in policy.byApp {
                    guard let cutoff = window.cutoff(now: now).map(\.millisecondsSince1970) else { continue }
                    made.merge(try FeedbackScrubbing.made(db, where: " WHERE app = ? AND date_ms < ?", [app, cutoff])) { $0.union($1) }
                    try db.execute(sql: "DELETE FROM donation WHERE app = ? AND date_ms < ?", arguments: [app, cutoff])
                    if db.changesCount > 0 { report.donationsByApp[app] = db.changesCount }
                    try db.execute(sql: "DELETE FROM feedback WHERE app = ? AND date_ms < ?", arguments: [app, cutoff])
                    report.feedback += db.changesCount
                }
                if let cutoff = policy.defaultWindow.cutoff(now: now).map(\.millisecondsSince1970) {
                    let others = "date_ms < ? AND app NOT IN (SELECT app FROM app_retention)"
                    made.merge(try FeedbackScrubbing.made(db, where: " WHERE " + others, [cutoff])) { $0.union($1) }
                    for row in try Row.fetchAll(db, sql: "SELECT app, COUNT(*) FROM donation WHERE \(others) GROUP BY app", arguments: [cutoff]) {
                        report.donationsByApp[row[0]] = row[1]
                    }
                    try db.execute(sql: "DELETE FROM donation WHERE \(others)", arguments: [cutoff])
                    try db.execute(sql: "DELETE FROM feedback WHERE \(others)", arguments: [cutoff])
                    report.feedback += db.changesCount
                }
                report.feedback += try FeedbackScrubbing.scrub(db, deleted: made)
                return report
            }
        }
        return try StoreError.wrap("applying the retention policy") { bulk ? try database.bulkTuned(erase) : try erase() }
    }

    // MARK: Forgetting a user

    /// Every table that holds a user's own data, by its `user` column.
    /// A new per-user table must be added here (a test checks that every
    /// table with a `user` column is listed).
    package static let userTables = ["model_state", "model_state_heavy", "model_erasure", "donation", "feedback", "relevant_shortcut_set", "widget_timeline", "user_setting"]

    /// Erases everything the store holds about `user` in one transaction:
    /// donations, feedback, relevant shortcuts, widget timelines, settings
    /// and saved models; then erases the traces from the write-ahead log.
    /// - Returns: rows erased per table (tables with none are omitted).
    package func forget(user: String) throws(StoreError) -> [String: Int] {
        try forget(user: user, app: nil)
    }

    /// Every table that holds one app's data of a user, by its `user` and `app` columns: what
    /// `forget(user:app:)` erases for an app (saved models are the user's, fitted across apps: they
    /// unlearn the app's donations through the erasure journal instead).
    package static let userAppTables = ["donation", "feedback", "relevant_shortcut_set", "widget_timeline"]

    /// `forget(user:)` with `app` nil; with an app, erases in one transaction only that app's rows of
    /// `user` (`userAppTables`: donations, feedback, relevant shortcuts, widget timelines), then the
    /// write-ahead log's traces. Saved models keep the erased donations' journal entries until
    /// they unlearn them (`Engine.erase(user:)` settles them, then truncates the log again).
    /// - Returns: rows erased per table (tables with none are omitted).
    /// - Throws: `.invalidRequest` for an empty user or app; store failures.
    package func forget(user: String, app: String?) throws(StoreError) -> [String: Int] {
        guard !user.isEmpty else { throw StoreError(.invalidRequest, "forget needs a non-empty user") }
        if let app {
            guard !app.isEmpty else { throw StoreError(.invalidRequest, "forget needs a non-empty app") }
            let erased = try StoreError.wrap("erasing \(app)'s data of user \(user)") {
                try writer.write { db in
                    var erased: [String: Int] = [:]
                    for table in Self.userAppTables {
                        try db.execute(sql: "DELETE FROM \(table) WHERE user = ? AND app = ?", arguments: [user, app])
                        if db.changesCount > 0 { erased[table] = db.changesCount }
                    }
                    return erased
                }
            }
            try eraseTraces()
            return erased
        }
        let erased = try StoreError.wrap("forgetting user \(user)") {
            try writer.write { db in
                var erased: [String: Int] = [:]
                // Donations first, while the user's saved states still exist: their deletion then advances the
                // erasure journal's sequence (the entries themselves go with the states below), which is how a
                // process holding the user's model in memory learns that it must drop it (`StoreErasureWatch`)
                // and how the store refuses its save (`SQLiteModelStateStore.save`).
                for table in ["donation"] + Self.userTables.filter({ $0 != "donation" }) {
                    try db.execute(sql: "DELETE FROM \(table) WHERE user = ?", arguments: [user])
                    // The journal's entries are copies of the donations just erased, not data of their own.
                    if db.changesCount > 0, table != "model_erasure" { erased[table] = db.changesCount }
                }
                return erased
            }
        }
        try eraseTraces()
        return erased
    }

    // MARK: Physical erasure

    /// How a checkpoint or compaction went.
    package typealias CompactionReport = StoreCompactionReport

    /// Copies the write-ahead log into the file and truncates the log to zero
    /// bytes, so that page versions from before a deletion are gone.
    /// Waits (busy timeout) for other connections' reads to finish.
    @discardableResult
    package func eraseTraces() throws(StoreError) -> Bool {
        try StoreError.wrap("truncating the write-ahead log") {
            try writer.barrierWriteWithoutTransaction { db in try Self.checkpoint(db) }
        }
    }

    /// Rebuilds the store file without free pages (VACUUM) and truncates the
    /// write-ahead log: nothing deleted survives anywhere in the files.
    package func compact() throws(StoreError) -> CompactionReport {
        var report = CompactionReport()
        (report.fileBytesBefore, report.walBytesBefore) = sizes()
        report.logTruncated = try StoreError.wrap("compacting the store") {
            try writer.barrierWriteWithoutTransaction { db in
                _ = try Self.checkpoint(db)
                try db.execute(sql: "VACUUM")
                return try Self.checkpoint(db)
            }
        }
        (report.fileBytesAfter, report.walBytesAfter) = sizes()
        return report
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`; true when the log was emptied
    /// (always true outside WAL mode, where there is no log).
    private static func checkpoint(_ db: Database) throws -> Bool {
        guard let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") else { return true }
        return (row[0] as Int?) == 0
    }

    private func sizes() -> (file: Int64, wal: Int64) {
        guard let path = database.path else { return (0, 0) }
        func size(_ file: String) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return (size(path), size(path + "-wal"))
    }

}
