import Foundation
import GRDB
import ProactiveCore

// MARK: - Android Digital Wellbeing reader

/// Reads Android's Digital Wellbeing `app_usage` database
/// (`com.google.android.apps.wellbeing/databases/app_usage`) into `open`
/// donations, streaming.
///
/// Tables used: `events(_id, timestamp [Unix ms], type, package_id)` and
/// `packages(_id, package_name)`. Foreground events (type 1) go through
/// `AndroidLaunchFilter` (launcher exclusion, deduplication, optional unlock
/// context); every other event type is counted as skipped. A row with a bad
/// timestamp or an unknown package is named in the summary and skipped.
///
/// ```swift
/// let summary = try AndroidUsageReader.read(path: "datasets/device-logs/app_usage",
///                                           options: AndroidUsageOptions(timeZone: newYork)) { donation in
///     try writer.write(donation)
/// }
/// ```
package enum AndroidUsageReader {
    package static let format = "android-usage"

    /// Streams the database's launches to `emit`, oldest first.
    ///
    /// - Throws: `StoreError.io` when the file is not such a database; whatever
    ///   `onProblem` (called for each malformed row after it is recorded) or
    ///   `emit` throws (reading stops there).
    package static func read(path: String, options: AndroidUsageOptions,
                            onProblem: (DeviceLogProblem) throws -> Void = { _ in },
                            emit: (Donation) throws -> Void) throws -> DeviceLogSummary {
        let queue = try DeviceLogDatabase.openSnapshot(path: path)
        var summary = DeviceLogSummary(format: format)
        var filter = AndroidLaunchFilter(options: options)
        do {
            try queue.read { db in
                let tables = try DeviceLogDatabase.tables(db)
                for required in ["events", "packages"] where !tables.contains(required) {
                    throw DeviceLogDatabase.wrongKind(path, "not an Android app_usage database (no table \(required))")
                }
                let cursor = try Row.fetchCursor(db, sql: """
                    SELECT e._id AS id, e.timestamp AS timestamp, e.type AS type, e.package_id AS package_id,
                           p.package_name AS package
                    FROM events e LEFT JOIN packages p ON p._id = e.package_id
                    ORDER BY e.timestamp, e._id
                    """)
                while let row = try cursor.next() {
                    summary.rowsRead += 1
                    let event: AndroidUsageEvent
                    switch Self.event(from: row) {
                    case let .success(value): event = value
                    case let .failure(problem):
                        summary.record(problem)
                        try onProblem(problem)
                        continue
                    }
                    switch filter.offer(event) {
                    case let .launch(donation):
                        summary.kept += 1
                        try emit(donation)
                    case let .dropped(reason): summary.drop(reason)
                    case let .notALaunch(kind): summary.skip(kind)
                    }
                }
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error, while: "reading \(path)")
        }
        if let window = options.unlockWindow { summary.notes.append("context unlocked=recent within \(window) s of a keyguard unlock") }
        summary.notes.append("deduplication: \(options.deduplication); time zone \(options.timeZone.identifier)")
        return summary
    }

    // MARK: Row conversion

    /// Validates one joined row. Only foreground rows need a package name.
    static func event(from row: Row) -> Result<AndroidUsageEvent, DeviceLogProblem> {
        let id = Int64.fromDatabaseValue(row["id"] as DatabaseValue).map(String.init) ?? "?"
        func problem(_ field: String, _ reason: String) -> Result<AndroidUsageEvent, DeviceLogProblem> {
            .failure(DeviceLogProblem(row: "events row \(id)", error: DonationLineError(field: field, reason: reason)))
        }
        let rawTimestamp = row["timestamp"] as DatabaseValue
        guard let milliseconds = Int64.fromDatabaseValue(rawTimestamp) else {
            return problem("timestamp", "must be integer Unix milliseconds, found \(rawTimestamp)")
        }
        do {
            _ = try Timestamp.validateUnixSeconds(Double(milliseconds) / 1000)
        } catch {
            return problem("timestamp", "\(milliseconds) ms: \(error.reason)")
        }
        let rawType = row["type"] as DatabaseValue
        guard let type = Int.fromDatabaseValue(rawType) else { return problem("type", "must be an integer, found \(rawType)") }
        let package = String.fromDatabaseValue(row["package"] as DatabaseValue)
        if type == AndroidUsageEvent.activityResumed, package == nil || package!.isEmpty {
            return problem("package_id", "no package with _id \(row["package_id"] as DatabaseValue)")
        }
        if type == AndroidUsageEvent.activityResumed, let package, let reason = IdentifierRules.bundleIdentifierProblem(package) {
            return problem("package", reason)
        }
        return .success(AndroidUsageEvent(timestampMilliseconds: milliseconds, type: type, package: package ?? ""))
    }
}
