import Foundation
import ProactiveCore
import ProactiveStore

// MARK: - Intent definitions

/// The current intent definitions on PostgreSQL (`intent_definition`): the same contract as
/// `SQLiteIntentDefinitionStore` (the same consistency checks before writing, the same errors).
///
/// ```swift
/// let definitions = PostgresIntentDefinitionStore(database: database)
/// try definitions.replace(with: try plan.apply(to: definitions.all()), apps: ["com.example.coffee"])
/// ```
public struct PostgresIntentDefinitionStore: IntentDefinitionStore {
    public let database: PostgresStoreDatabase

    public init(database: PostgresStoreDatabase) { self.database = database }

    public func all() throws(StoreError) -> [IntentDefinition] {
        let rows = try PostgresErrors.wrap("reading intent definitions") {
            try database.withSession { session in try Self.rows(session) }
        }
        return try SQLiteIntentDefinitionStore.definitions(rows)
    }

    /// Replaces the definitions of `apps` in one transaction holding the writer lock; the
    /// consistency check reads the other apps' definitions inside it, so a concurrent writer
    /// cannot slip an inconsistent set in between.
    /// - Throws: `.invalidRequest` when the resulting set is inconsistent (nothing is written).
    public func replace(with definitions: [IntentDefinition], apps: Set<String>) throws(StoreError) {
        try PostgresErrors.wrap("storing intent definitions of \(apps.sorted().joined(separator: ", "))") {
            try database.inTransaction(writing: true) { session in
                let stored = try SQLiteIntentDefinitionStore.definitions(try Self.rows(session))
                let written = try SQLiteIntentDefinitionStore.written(definitions, apps: apps, stored: stored)
                try session.query("DELETE FROM intent_definition WHERE app = ANY(\(apps.sorted())::text[])")
                for definition in written {
                    try session.query("""
                        INSERT INTO intent_definition (app, name, migrates_from, definition)
                        VALUES (\(definition.app), \(definition.name), \(definition.migratesFrom), \(JSONWriter.string(definition.intentJSON)))
                        """)
                }
            }
        }
    }

    private static func rows(_ session: PostgresSession) throws -> [(app: String, name: String, json: String)] {
        try session.query("SELECT app, name, definition FROM intent_definition ORDER BY app COLLATE \"C\", name COLLATE \"C\"").rows.map { row in
            (app: try row.decode(0, as: String.self), name: try row.decode(1, as: String.self), json: try row.decode(2, as: String.self))
        }
    }
}

// MARK: - Declarations and feedback

/// Relevant shortcuts, widget timelines and feedback on PostgreSQL: the same contract as
/// `SQLiteDeclarationStore` (the tables' CHECK constraints under the same names, the same
/// widget-key check, feedback refused while recording is paused). Each write is one
/// transaction holding the writer lock.
///
/// ```swift
/// let declarations = PostgresDeclarationStore(database: database)
/// try declarations.appendFeedback([StoredFeedback(user: "me", date: now, kind: "tap", scope: "app:com.example.mail",
///                                                 app: "com.example.mail", eventJSON: json)])
/// ```
public struct PostgresDeclarationStore: DeclarationStore {
    public let database: PostgresStoreDatabase

    public init(database: PostgresStoreDatabase) { self.database = database }

    public func replaceShortcutSet(_ set: StoredShortcutSet) throws(StoreError) {
        let isEmpty = set.withdrawsEveryShortcut
        try PostgresErrors.wrap("replacing the relevant shortcuts of \(set.app) for \(set.user)") {
            try database.inTransaction(writing: true) { session in
                try session.query("DELETE FROM relevant_shortcut_set WHERE \"user\" = \(set.user) AND app = \(set.app)")
                guard !isEmpty else { return }
                try session.query("""
                    INSERT INTO relevant_shortcut_set ("user", app, declared_at_ms, shortcuts)
                    VALUES (\(set.user), \(set.app), \(set.declaredAt.millisecondsSince1970), \(set.shortcutsJSON))
                    """)
            }
        }
    }

    public func shortcutSets(user: String) throws(StoreError) -> [StoredShortcutSet] {
        try PostgresErrors.wrap("reading the relevant shortcuts of \(user)") {
            try database.withSession { session in
                try session.query("""
                    SELECT app, declared_at_ms, shortcuts FROM relevant_shortcut_set WHERE "user" = \(user) ORDER BY app COLLATE "C"
                    """).rows.map { row in
                    StoredShortcutSet(user: user, app: try row.decode(0), declaredAt: Date(millisecondsSince1970: try row.decode(1)),
                                      shortcutsJSON: try row.decode(2))
                }
            }
        }
    }

    /// - Throws: `.invalidRequest` unless the app is a bundle identifier and the widget key is the app's (`APP/KIND`).
    public func replaceTimeline(_ timeline: StoredTimeline) throws(StoreError) {
        let isEmpty = try timeline.validatedIsEmpty()
        try PostgresErrors.wrap("replacing the timeline of \(timeline.widget) for \(timeline.user)") {
            try database.inTransaction(writing: true) { session in
                try session.query("DELETE FROM widget_timeline WHERE \"user\" = \(timeline.user) AND widget = \(timeline.widget)")
                guard !isEmpty else { return }
                try session.query("""
                    INSERT INTO widget_timeline ("user", widget, app, timeline)
                    VALUES (\(timeline.user), \(timeline.widget), \(timeline.app), \(timeline.timelineJSON))
                    """)
            }
        }
    }

    public func timelines(user: String) throws(StoreError) -> [StoredTimeline] {
        try PostgresErrors.wrap("reading the widget timelines of \(user)") {
            try database.withSession { session in
                try session.query("""
                    SELECT widget, app, timeline FROM widget_timeline WHERE "user" = \(user) ORDER BY widget COLLATE "C"
                    """).rows.map { row in
                    StoredTimeline(user: user, widget: try row.decode(0), app: try row.decode(1), timelineJSON: try row.decode(2))
                }
            }
        }
    }

    /// - Throws: `.recordingPaused` while recording is paused (nothing is stored).
    public func appendFeedback(_ events: [StoredFeedback]) throws(StoreError) {
        guard !events.isEmpty else { return }
        try PostgresErrors.wrap("recording \(events.count) feedback events") {
            try database.inTransaction(writing: true) { session in
                try PostgresPrivacyStore.requireRecording(session)
                for event in events {
                    try session.query("""
                        INSERT INTO feedback ("user", date_ms, kind, scope, app, event)
                        VALUES (\(event.user), \(event.date.millisecondsSince1970), \(event.kind), \(event.scope), \(event.app), \(event.eventJSON))
                        """)
                }
            }
        }
    }

    public func feedback(user: String) throws(StoreError) -> [StoredFeedback] {
        try PostgresErrors.wrap("reading the feedback of \(user)") {
            try database.withSession { session in
                try session.query("""
                    SELECT date_ms, kind, scope, app, event FROM feedback WHERE "user" = \(user) ORDER BY date_ms, id
                    """).rows.map { row in
                    StoredFeedback(user: user, date: Date(millisecondsSince1970: try row.decode(0)), kind: try row.decode(1),
                                   scope: try row.decode(2), app: try row.decode(3), eventJSON: try row.decode(4))
                }
            }
        }
    }
}

// MARK: - Feedback naming deleted donations

extension PostgresSession {
    /// What the donations selected by `clause` make (`FeedbackScrubbing`), read before deleting them
    /// (only for users and apps with feedback naming a target: the others have nothing to scrub).
    func madeByDonations(_ clause: PostgresWhereClause) throws -> [FeedbackScrubbing.UserApp: Set<FeedbackScrubbing.Made>] {
        if try !query("SELECT EXISTS (SELECT 1 FROM feedback WHERE scope NOT LIKE 'app:%')").rows[0].decode(Bool.self) { return [:] }
        var selected = clause
        selected.add(FeedbackScrubbing.hasTargetFeedback)
        let rows = try query(PostgresQuery(unsafeSQL: "SELECT DISTINCT \"user\", app, intent, parameters FROM donation" + selected.sql,
                                           binds: selected.binds)).rows
        return FeedbackScrubbing.made(try rows.map { row in
            (user: try row.decode(0, as: String.self), app: try row.decode(1, as: String.self), intent: try row.decode(2, as: String.self),
             parametersJSON: try row.decode(3, as: String.self))
        })
    }

    /// Deletes the feedback naming targets only deleted donations made (`FeedbackScrubbing.scrub`),
    /// in the transaction that deleted them. - Returns: how many events were deleted.
    @discardableResult
    func scrubFeedback(deleted: [FeedbackScrubbing.UserApp: Set<FeedbackScrubbing.Made>]) throws -> Int {
        try FeedbackScrubbing.scrub(FeedbackScrubbing.Access(
            remainingParameters: { user, app, intent in
                try query("""
                    SELECT DISTINCT parameters FROM donation WHERE "user" = \(user) AND app = \(app) AND intent = \(intent)
                    """).rows.map { try $0.decode(String.self) }
            },
            feedback: { user, app in
                try query("""
                    SELECT id, scope, event FROM feedback WHERE "user" = \(user) AND app = \(app) AND scope NOT LIKE 'app:%' ORDER BY id
                    """).rows.map { row in (id: try row.decode(0, as: Int64.self), scope: try row.decode(1, as: String.self),
                                            event: try row.decode(2, as: String.self)) }
            },
            delete: { id in try query("DELETE FROM feedback WHERE id = \(id)") }),
            deleted: deleted)
    }
}
