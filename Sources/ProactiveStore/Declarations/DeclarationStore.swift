import Foundation
import GRDB
import ProactiveCore

// MARK: - Stored declarations

/// An app's relevant-shortcut set as stored: the canonical JSON array of its
/// shortcuts (written and read by `RelevantShortcutCodec` in ProactiveRanking).
public struct StoredShortcutSet: Sendable, Hashable {
    public var user: String
    public var app: String
    public var declaredAt: Date
    /// A JSON array; empty (`[]`) withdraws the app's set.
    public var shortcutsJSON: String

    public init(user: String, app: String, declaredAt: Date, shortcutsJSON: String) {
        self.user = user
        self.app = app
        self.declaredAt = declaredAt
        self.shortcutsJSON = shortcutsJSON
    }
}

/// A widget's timeline as stored: its key (`WidgetID.key`), app, and canonical JSON object.
public struct StoredTimeline: Sendable, Hashable {
    public var user: String
    public var widget: String
    public var app: String
    /// A JSON object with an `entries` array; no entries removes the timeline.
    public var timelineJSON: String

    public init(user: String, widget: String, app: String, timelineJSON: String) {
        self.user = user
        self.widget = widget
        self.app = app
        self.timelineJSON = timelineJSON
    }
}

/// One feedback event as stored.
public struct StoredFeedback: Sendable, Hashable {
    public var user: String
    public var date: Date
    /// `impression`, `tap`, `dismiss`, `never` or `undo-never`.
    public var kind: String
    /// `target:KEY`, `widget:KEY` or `app:BUNDLE`.
    public var scope: String
    public var app: String
    /// The canonical JSON object of the event.
    public var eventJSON: String

    public init(user: String, date: Date, kind: String, scope: String, app: String, eventJSON: String) {
        self.user = user
        self.date = date
        self.kind = kind
        self.scope = scope
        self.app = app
        self.eventJSON = eventJSON
    }
}

extension StoredShortcutSet {
    /// Whether the set is the empty JSON array (replacing with it deletes the app's set).
    package var withdrawsEveryShortcut: Bool { (try? JSONParser.parse(shortcutsJSON)) == .array([]) }
}

extension StoredTimeline {
    /// Whether the timeline has no entries (replacing with it deletes the widget's timeline).
    /// - Throws: `.invalidRequest` unless the app is a bundle identifier (no `/`) and the widget
    ///   key is that app's (`APP/KIND...`).
    package func validatedIsEmpty() throws(StoreError) -> Bool {
        if let problem = IdentifierRules.bundleIdentifierProblem(app) {
            throw StoreError(.invalidRequest, "timeline of \(widget): app: \(problem)")
        }
        guard widget.utf8.starts(with: (app + "/").utf8), widget.utf8.count > app.utf8.count + 1 else {
            throw StoreError(.invalidRequest, "timeline of \(widget): the widget key is not \(app)/KIND")
        }
        return (try? JSONParser.parse(timelineJSON))?["entries"] == .array([])
    }
}

// MARK: - Store

/// Relevant shortcuts, widget timelines and feedback on a `ProactiveDatabase`.
///
/// Writes are one transaction each; the tables' CHECK constraints reject
/// malformed rows (see `DeclarationSchema.v3`). The JSON columns hold the
/// canonical forms of ProactiveRanking's codecs, which validate on the way in.
package struct SQLiteDeclarationStore: Sendable {
    package let database: ProactiveDatabase

    package init(database: ProactiveDatabase) { self.database = database }

    private var writer: any DatabaseWriter { database.writer }


    // MARK: Relevant shortcuts

    /// Replaces the app's whole set; an empty JSON array deletes it (withdraws every shortcut).
    package func replaceShortcutSet(_ set: StoredShortcutSet) throws(StoreError) {
        let isEmpty = set.withdrawsEveryShortcut
        try StoreError.wrap("replacing the relevant shortcuts of \(set.app) for \(set.user)") {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM relevant_shortcut_set WHERE user = ? AND app = ?", arguments: [set.user, set.app])
                guard !isEmpty else { return }
                try db.execute(sql: "INSERT INTO relevant_shortcut_set (user, app, declared_at_ms, shortcuts) VALUES (?, ?, ?, ?)",
                               arguments: [set.user, set.app, set.declaredAt.millisecondsSince1970, set.shortcutsJSON])
            }
        }
    }

    /// The user's current sets, by app.
    package func shortcutSets(user: String) throws(StoreError) -> [StoredShortcutSet] {
        try StoreError.wrap("reading the relevant shortcuts of \(user)") {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT app, declared_at_ms, shortcuts FROM relevant_shortcut_set WHERE user = ? ORDER BY app",
                                 arguments: [user]).map {
                    StoredShortcutSet(user: user, app: $0["app"], declaredAt: Date(millisecondsSince1970: $0["declared_at_ms"]), shortcutsJSON: $0["shortcuts"])
                }
            }
        }
    }

    // MARK: Timelines

    /// Replaces the widget's timeline; a timeline without entries deletes it.
    /// - Throws: `.invalidRequest` unless the app is a bundle identifier (no
    ///   `/`) and the widget key is that app's (`APP/KIND...`): the key then
    ///   names one (app, kind) pair, so one app cannot replace another's timeline.
    package func replaceTimeline(_ timeline: StoredTimeline) throws(StoreError) {
        let isEmpty = try timeline.validatedIsEmpty()
        try StoreError.wrap("replacing the timeline of \(timeline.widget) for \(timeline.user)") {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM widget_timeline WHERE user = ? AND widget = ?", arguments: [timeline.user, timeline.widget])
                guard !isEmpty else { return }
                try db.execute(sql: "INSERT INTO widget_timeline (user, widget, app, timeline) VALUES (?, ?, ?, ?)",
                               arguments: [timeline.user, timeline.widget, timeline.app, timeline.timelineJSON])
            }
        }
    }

    /// The user's timelines, by widget key.
    package func timelines(user: String) throws(StoreError) -> [StoredTimeline] {
        try StoreError.wrap("reading the widget timelines of \(user)") {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT widget, app, timeline FROM widget_timeline WHERE user = ? ORDER BY widget", arguments: [user]).map {
                    StoredTimeline(user: user, widget: $0["widget"], app: $0["app"], timelineJSON: $0["timeline"])
                }
            }
        }
    }

    // MARK: Feedback

    /// Appends events in one transaction.
    /// Refuses (`.recordingPaused`) while recording is paused: feedback is what
    /// the user did, recorded no more than donations are.
    package func appendFeedback(_ events: [StoredFeedback]) throws(StoreError) {
        guard !events.isEmpty else { return }
        try StoreError.wrap("recording \(events.count) feedback events") {
            try writer.write { db in
                try SQLitePrivacyStore.requireRecording(db)
                let statement = try db.cachedStatement(sql: "INSERT INTO feedback (user, date_ms, kind, scope, app, event) VALUES (?, ?, ?, ?, ?, ?)")
                for event in events {
                    try statement.execute(arguments: [event.user, event.date.millisecondsSince1970, event.kind, event.scope, event.app, event.eventJSON])
                }
            }
        }
    }

    /// The user's feedback, oldest first (recording order among equal dates).
    package func feedback(user: String) throws(StoreError) -> [StoredFeedback] {
        try StoreError.wrap("reading the feedback of \(user)") {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT date_ms, kind, scope, app, event FROM feedback WHERE user = ? ORDER BY date_ms, id", arguments: [user]).map {
                    StoredFeedback(user: user, date: Date(millisecondsSince1970: $0["date_ms"]), kind: $0["kind"], scope: $0["scope"], app: $0["app"], eventJSON: $0["event"])
                }
            }
        }
    }
}
