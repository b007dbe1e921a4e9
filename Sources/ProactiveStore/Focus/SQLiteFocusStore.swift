import Foundation
import GRDB
import ProactiveCore

// MARK: - Focus store

/// Focus schedules, manual Focus changes, apps' Focus filters (declarations,
/// per-Focus values, app contexts with badge counts) in the store file.
///
/// The store keeps rows; meaning (which Focus is on, what a filter allows)
/// belongs to `FocusTimeline` and `FocusFilterEngine` in ProactiveRanking,
/// which callers build from these rows.
///
/// **App isolation.** Every filter method takes the app and reads or writes
/// only that app's rows; values and contexts can only exist for an app that
/// declared a filter (foreign keys), and go away with its declaration.
///
/// ```swift
/// let focus = SQLiteFocusStore(database: try ProactiveDatabase(path: "proactive.sqlite"))
/// try focus.recordChange(StoredFocusChange(date: now, focus: "personal"))
/// try focus.replaceValues(app: "com.example.mail", focus: "personal", ["account": .entity(id: "personal", display: "Personal")])
/// ```
package struct SQLiteFocusStore: Sendable {
    package let database: ProactiveDatabase

    package init(database: ProactiveDatabase) {
        self.database = database
    }

    private var writer: any DatabaseWriter { database.writer }

    // MARK: Schedules

    /// Stores a schedule and returns its id.
    /// - Throws: `StoreError` (`.database` when a CHECK fails: empty weekdays, minutes out of range, a name not normalized).
    @discardableResult
    package func addSchedule(_ schedule: StoredFocusSchedule) throws(StoreError) -> Int64 {
        try StoreError.wrap("adding the \(schedule.focus) Focus schedule") {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO focus_schedule (focus, weekdays, start_minute, end_minute, time_zone) VALUES (?, ?, ?, ?, ?)",
                               arguments: [schedule.focus, schedule.weekdayMask, schedule.startMinute, schedule.endMinute, schedule.timeZone])
                return db.lastInsertedRowID
            }
        }
    }

    /// Every schedule, by id.
    package func schedules() throws(StoreError) -> [StoredFocusSchedule] {
        try StoreError.wrap("reading Focus schedules") {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT id, focus, weekdays, start_minute, end_minute, time_zone FROM focus_schedule ORDER BY id").map { row in
                    StoredFocusSchedule(id: row[0], focus: row[1], weekdays: StoredFocusSchedule.weekdays(fromMask: row[2]),
                                        startMinute: row[3], endMinute: row[4], timeZone: row[5])
                }
            }
        }
    }

    /// Removes a schedule; false when no schedule has that id.
    @discardableResult
    package func removeSchedule(id: Int64) throws(StoreError) -> Bool {
        try StoreError.wrap("removing Focus schedule \(id)") {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM focus_schedule WHERE id = ?", arguments: [id])
                return db.changesCount > 0
            }
        }
    }

    // MARK: Manual changes

    /// Records a Focus turned on (or off, `focus` nil) by hand.
    package func recordChange(_ change: StoredFocusChange) throws(StoreError) {
        try StoreError.wrap("recording a Focus change") {
            try writer.write { db in
                try db.execute(sql: "INSERT INTO focus_change (date_ms, focus) VALUES (?, ?)",
                               arguments: [change.date.millisecondsSince1970, change.focus])
            }
        }
    }

    /// Every manual change, oldest first (equal dates in recording order).
    package func changes() throws(StoreError) -> [StoredFocusChange] {
        try StoreError.wrap("reading Focus changes") {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT date_ms, focus FROM focus_change ORDER BY date_ms, id").map { row in
                    StoredFocusChange(date: Date(millisecondsSince1970: row[0] as Int64), focus: row[1])
                }
            }
        }
    }


    // MARK: Filters (each call is about one app)

    /// Stores (or replaces) `app`'s filter declaration and, in the same
    /// transaction, the values it keeps per Focus (replacing all earlier values:
    /// pass what still fits the new declaration).
    package func declareFilter(app: String, declaration: String, keeping values: [String: [String: ParameterValue]] = [:]) throws(StoreError) {
        try StoreError.wrap("declaring the Focus filter of \(app)") {
            try writer.write { db in
                try db.execute(sql: """
                    INSERT INTO focus_filter (app, declaration) VALUES (?, ?)
                    ON CONFLICT (app) DO UPDATE SET declaration = excluded.declaration
                    """, arguments: [app, declaration])
                try db.execute(sql: "DELETE FROM focus_filter_value WHERE app = ?", arguments: [app])
                for (focus, byName) in values { try Self.insertValues(byName, app: app, focus: focus, db: db) }
            }
        }
    }

    /// Removes `app`'s filter with its values and app contexts; false when it had none.
    @discardableResult
    package func removeFilter(app: String) throws(StoreError) -> Bool {
        try StoreError.wrap("removing the Focus filter of \(app)") {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM focus_filter WHERE app = ?", arguments: [app])
                return db.changesCount > 0
            }
        }
    }

    /// Replaces the values `app`'s filter has in `focus` (empty: none configured).
    /// - Throws: `StoreError(.invalidRequest)` when `app` declared no filter.
    package func replaceValues(app: String, focus: String, _ values: [String: ParameterValue]) throws(StoreError) {
        try StoreError.wrap("configuring the Focus filter of \(app) in \(focus)") {
            try writer.write { db in
                try Self.requireFilter(app, db: db)
                try db.execute(sql: "DELETE FROM focus_filter_value WHERE app = ? AND focus = ?", arguments: [app, focus])
                try Self.insertValues(values, app: app, focus: focus, db: db)
            }
        }
    }

    /// Stores the app context `app` returned for `focus`; both nil removes it.
    /// - Throws: `StoreError(.invalidRequest)` when `app` declared no filter.
    package func setAppContext(_ context: StoredAppContext) throws(StoreError) {
        try StoreError.wrap("setting the app context of \(context.app) in \(context.focus)") {
            try writer.write { db in
                try Self.requireFilter(context.app, db: db)
                try db.execute(sql: "DELETE FROM focus_app_context WHERE app = ? AND focus = ?", arguments: [context.app, context.focus])
                guard context.filterPredicate != nil || context.badgeCount != nil else { return }
                try db.execute(sql: "INSERT INTO focus_app_context (app, focus, filter_predicate, badge_count) VALUES (?, ?, ?, ?)",
                               arguments: [context.app, context.focus, context.filterPredicate, context.badgeCount])
            }
        }
    }

    /// `app`'s filter with its values and contexts, nil when it declared none.
    package func filter(app: String) throws(StoreError) -> StoredFocusFilter? {
        try StoreError.wrap("reading the Focus filter of \(app)") {
            try writer.read { db in try Self.readFilters(db, app: app).first }
        }
    }

    /// Every app's filter, by app. For the user's own settings view and for
    /// building the engine that decides for all apps; never hand one app's rows to another.
    package func allFilters() throws(StoreError) -> [StoredFocusFilter] {
        try StoreError.wrap("reading Focus filters") {
            try writer.read { db in try Self.readFilters(db, app: nil) }
        }
    }

    // MARK: Rows

    private static func requireFilter(_ app: String, db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM focus_filter WHERE app = ?", arguments: [app]) != nil else {
            throw StoreError(.invalidRequest, "\(app) has not declared a Focus filter")
        }
    }

    private static func insertValues(_ values: [String: ParameterValue], app: String, focus: String, db: Database) throws {
        for name in values.keys.sorted() {
            try db.execute(sql: "INSERT INTO focus_filter_value (app, focus, parameter, value) VALUES (?, ?, ?, ?)",
                           arguments: [app, focus, name, StoredFocusFilter.valueJSON(values[name]!)])
        }
    }

    private static func readFilters(_ db: Database, app: String?) throws -> [StoredFocusFilter] {
        let scope = app == nil ? "" : " WHERE app = ?"
        let arguments: StatementArguments = app.map { [$0] } ?? []
        var filters: [String: StoredFocusFilter] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT app, declaration FROM focus_filter" + scope, arguments: arguments) {
            filters[row[0]] = StoredFocusFilter(app: row[0], declaration: row[1])
        }
        for row in try Row.fetchAll(db, sql: "SELECT app, focus, parameter, value FROM focus_filter_value" + scope, arguments: arguments) {
            filters[row[0]]?.values[row[1], default: [:]][row[2]] = try StoredFocusFilter.value(row[3], app: row[0], focus: row[1], parameter: row[2])
        }
        for row in try Row.fetchAll(db, sql: "SELECT app, focus, filter_predicate, badge_count FROM focus_app_context" + scope + " ORDER BY focus",
                                    arguments: arguments) {
            filters[row[0]]?.contexts.append(StoredAppContext(app: row[0], focus: row[1], filterPredicate: row[2], badgeCount: row[3]))
        }
        return filters.keys.sorted().map { filters[$0]! }
    }
}

extension StoredFocusFilter {
    /// A stored `focus_filter_value.value` (JSON) as a value.
    /// - Throws: `StoreError(.corrupt)` naming the value when it no longer parses.
    package static func value(_ json: String, app: String, focus: String, parameter: String) throws(StoreError) -> ParameterValue {
        do { return try ParameterValue(json: try JSONParser.parse(json)) } catch {
            throw StoreError(.corrupt, "Focus filter value \(app).\(focus).\(parameter) is unreadable: \(error)")
        }
    }

    /// A value as stored in `focus_filter_value.value` (canonical JSON).
    package static func valueJSON(_ value: ParameterValue) -> String { JSONWriter.string(value.json) }
}
