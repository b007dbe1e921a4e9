import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Focus

/// Focus schedules, manual Focus changes and apps' Focus filters on PostgreSQL: the same contract
/// as `SQLiteFocusStore` (the same CHECK constraints, values and contexts only for an app with a
/// declared filter, going away with it through the foreign keys). Each write is one transaction
/// holding the writer lock.
///
/// ```swift
/// let focus = PostgresFocusStore(database: database)
/// try focus.recordChange(StoredFocusChange(date: now, focus: "personal"))
/// ```
public struct PostgresFocusStore: FocusStore {
    public let database: PostgresStoreDatabase

    public init(database: PostgresStoreDatabase) { self.database = database }

    // MARK: Schedules

    /// - Throws: `.database` when a CHECK fails (empty weekdays, minutes out of range, a name not normalized).
    @discardableResult
    public func addSchedule(_ schedule: StoredFocusSchedule) throws(StoreError) -> Int64 {
        try PostgresErrors.wrap("adding the \(schedule.focus) Focus schedule") {
            try database.inTransaction(writing: true) { session in
                try session.query("""
                    INSERT INTO focus_schedule (focus, weekdays, start_minute, end_minute, time_zone)
                    VALUES (\(schedule.focus), \(schedule.weekdayMask), \(schedule.startMinute), \(schedule.endMinute), \(schedule.timeZone))
                    RETURNING id
                    """).rows[0].decode(Int64.self)
            }
        }
    }

    public func schedules() throws(StoreError) -> [StoredFocusSchedule] {
        try PostgresErrors.wrap("reading Focus schedules") {
            try database.withSession { session in
                try session.query("SELECT id, focus, weekdays, start_minute, end_minute, time_zone FROM focus_schedule ORDER BY id").rows.map { row in
                    StoredFocusSchedule(id: try row.decode(0), focus: try row.decode(1),
                                        weekdays: StoredFocusSchedule.weekdays(fromMask: try row.decode(2)),
                                        startMinute: try row.decode(3), endMinute: try row.decode(4), timeZone: try row.decode(5))
                }
            }
        }
    }

    @discardableResult
    public func removeSchedule(id: Int64) throws(StoreError) -> Bool {
        try PostgresErrors.wrap("removing Focus schedule \(id)") {
            try database.inTransaction(writing: true) { session in try session.query("DELETE FROM focus_schedule WHERE id = \(id)").changed > 0 }
        }
    }

    // MARK: Manual changes

    public func recordChange(_ change: StoredFocusChange) throws(StoreError) {
        try PostgresErrors.wrap("recording a Focus change") {
            try database.inTransaction(writing: true) { session in
                try session.query("INSERT INTO focus_change (date_ms, focus) VALUES (\(change.date.millisecondsSince1970), \(change.focus))")
            }
        }
    }

    public func changes() throws(StoreError) -> [StoredFocusChange] {
        try PostgresErrors.wrap("reading Focus changes") {
            try database.withSession { session in
                try session.query("SELECT date_ms, focus FROM focus_change ORDER BY date_ms, id").rows.map { row in
                    StoredFocusChange(date: Date(millisecondsSince1970: try row.decode(0)), focus: try row.decode(1))
                }
            }
        }
    }

    // MARK: Filters (each call is about one app)

    public func declareFilter(app: String, declaration: String, keeping values: [String: [String: ParameterValue]]) throws(StoreError) {
        try PostgresErrors.wrap("declaring the Focus filter of \(app)") {
            try database.inTransaction(writing: true) { session in
                try session.query("""
                    INSERT INTO focus_filter (app, declaration) VALUES (\(app), \(declaration))
                    ON CONFLICT (app) DO UPDATE SET declaration = excluded.declaration
                    """)
                try session.query("DELETE FROM focus_filter_value WHERE app = \(app)")
                for (focus, byName) in values { try Self.insertValues(byName, app: app, focus: focus, session) }
            }
        }
    }

    @discardableResult
    public func removeFilter(app: String) throws(StoreError) -> Bool {
        try PostgresErrors.wrap("removing the Focus filter of \(app)") {
            try database.inTransaction(writing: true) { session in try session.query("DELETE FROM focus_filter WHERE app = \(app)").changed > 0 }
        }
    }

    /// - Throws: `.invalidRequest` when `app` declared no filter.
    public func replaceValues(app: String, focus: String, _ values: [String: ParameterValue]) throws(StoreError) {
        try PostgresErrors.wrap("configuring the Focus filter of \(app) in \(focus)") {
            try database.inTransaction(writing: true) { session in
                try Self.requireFilter(app, session)
                try session.query("DELETE FROM focus_filter_value WHERE app = \(app) AND focus = \(focus)")
                try Self.insertValues(values, app: app, focus: focus, session)
            }
        }
    }

    /// Stores the context; both fields nil removes it.
    /// - Throws: `.invalidRequest` when the app declared no filter.
    public func setAppContext(_ context: StoredAppContext) throws(StoreError) {
        try PostgresErrors.wrap("setting the app context of \(context.app) in \(context.focus)") {
            try database.inTransaction(writing: true) { session in
                try Self.requireFilter(context.app, session)
                try session.query("DELETE FROM focus_app_context WHERE app = \(context.app) AND focus = \(context.focus)")
                guard context.filterPredicate != nil || context.badgeCount != nil else { return }
                try session.query("""
                    INSERT INTO focus_app_context (app, focus, filter_predicate, badge_count)
                    VALUES (\(context.app), \(context.focus), \(context.filterPredicate), \(context.badgeCount))
                    """)
            }
        }
    }

    public func filter(app: String) throws(StoreError) -> StoredFocusFilter? {
        try PostgresErrors.wrap("reading the Focus filter of \(app)") {
            try database.inTransaction(writing: false) { session in try Self.readFilters(session, app: app).first }
        }
    }

    public func allFilters() throws(StoreError) -> [StoredFocusFilter] {
        try PostgresErrors.wrap("reading Focus filters") {
            try database.inTransaction(writing: false) { session in try Self.readFilters(session, app: nil) }
        }
    }

    // MARK: Rows

    private static func requireFilter(_ app: String, _ session: PostgresSession) throws {
        if try session.query("SELECT 1 FROM focus_filter WHERE app = \(app)").rows.isEmpty {
            throw StoreError(.invalidRequest, "\(app) has not declared a Focus filter")
        }
    }

    private static func insertValues(_ values: [String: ParameterValue], app: String, focus: String, _ session: PostgresSession) throws {
        for name in values.keys.sorted() {
            try session.query("""
                INSERT INTO focus_filter_value (app, focus, parameter, value)
                VALUES (\(app), \(focus), \(name), \(StoredFocusFilter.valueJSON(values[name]!)))
                """)
        }
    }

    /// Every filter (or `app`'s), read in the caller's snapshot.
    private static func readFilters(_ session: PostgresSession, app: String?) throws -> [StoredFocusFilter] {
        var scope = PostgresWhereClause()
        if let app { scope.add("app = $", app) }
        func rows(_ sql: String) throws -> [PostgresRow] { try session.query(PostgresQuery(unsafeSQL: sql + scope.sql, binds: scope.binds)).rows }
        var filters: [String: StoredFocusFilter] = [:]
        for row in try rows("SELECT app, declaration FROM focus_filter") {
            let app: String = try row.decode(0)
            filters[app] = StoredFocusFilter(app: app, declaration: try row.decode(1))
        }
        for row in try rows("SELECT app, focus, parameter, value FROM focus_filter_value") {
            let (app, focus, parameter): (String, String, String) = (try row.decode(0), try row.decode(1), try row.decode(2))
            filters[app]?.values[focus, default: [:]][parameter] = try StoredFocusFilter.value(try row.decode(3), app: app, focus: focus,
                                                                                                  parameter: parameter)
        }
        let contexts = try session.query(PostgresQuery(
            unsafeSQL: "SELECT app, focus, filter_predicate, badge_count FROM focus_app_context" + scope.sql + " ORDER BY focus COLLATE \"C\"",
            binds: scope.binds)).rows
        for row in contexts {
            let app: String = try row.decode(0)
            filters[app]?.contexts.append(StoredAppContext(app: app, focus: try row.decode(1), filterPredicate: try row.decode(2),
                                                           badgeCount: try row.decode(3, as: Int?.self)))
        }
        return filters.keys.sorted().map { filters[$0]! }
    }
}
