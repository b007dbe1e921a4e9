import GRDB

// MARK: - Declaration and feedback tables

/// What apps declare for the Smart Stack and what users say about
/// suggestions. Frozen once shipped: change them with new migrations.
enum DeclarationSchema {
    /// - `relevant_shortcut_set`: one row per (user, app): the app's whole set
    ///   of relevant shortcuts as a canonical JSON array (`RelevantShortcutCodec`)
    ///   and when it was declared. Replacing the row replaces the set.
    /// - `widget_timeline`: one row per (user, widget key): the widget's
    ///   timeline as a canonical JSON object (`WidgetTimelineCodec`).
    /// - `feedback`: one row per event with its kind, scope and the canonical
    ///   JSON object (`FeedbackCodec`); indexed by (user, date_ms).
    /// Dates are milliseconds since 1970 UTC within the years 1970-2200.
    static let v3 = SchemaMigration(name: "v3_relevant_shortcuts_timelines_feedback") { db in
        try db.execute(sql: """
            CREATE TABLE relevant_shortcut_set (
                user TEXT NOT NULL CONSTRAINT shortcut_set_user_not_empty CHECK (user <> ''),
                app TEXT NOT NULL CONSTRAINT shortcut_set_app_not_empty CHECK (app <> ''),
                declared_at_ms INTEGER NOT NULL CONSTRAINT shortcut_set_date_supported CHECK (declared_at_ms BETWEEN 0 AND 7289654399999),
                shortcuts TEXT NOT NULL
                    CONSTRAINT shortcut_set_nonempty_array CHECK (json_valid(shortcuts) AND json_type(shortcuts) = 'array' AND json_array_length(shortcuts) > 0),
                PRIMARY KEY (user, app)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE widget_timeline (
                user TEXT NOT NULL CONSTRAINT timeline_user_not_empty CHECK (user <> ''),
                widget TEXT NOT NULL CONSTRAINT timeline_widget_not_empty CHECK (widget <> ''),
                app TEXT NOT NULL CONSTRAINT timeline_app_not_empty CHECK (app <> ''),
                timeline TEXT NOT NULL
                    CONSTRAINT timeline_object CHECK (json_valid(timeline) AND json_type(timeline) = 'object' AND json_type(timeline, '$.entries') = 'array'),
                PRIMARY KEY (user, widget)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE feedback (
                id INTEGER PRIMARY KEY,
                user TEXT NOT NULL CONSTRAINT feedback_user_not_empty CHECK (user <> ''),
                date_ms INTEGER NOT NULL CONSTRAINT feedback_date_supported CHECK (date_ms BETWEEN 0 AND 7289654399999),
                kind TEXT NOT NULL CONSTRAINT feedback_kind CHECK (kind IN ('impression', 'tap', 'dismiss', 'never', 'undo-never')),
                scope TEXT NOT NULL
                    CONSTRAINT feedback_scope CHECK (scope LIKE 'target:_%' OR scope LIKE 'widget:_%' OR scope LIKE 'app:_%'),
                app TEXT NOT NULL CONSTRAINT feedback_app_not_empty CHECK (app <> ''),
                event TEXT NOT NULL CONSTRAINT feedback_event_object CHECK (json_valid(event) AND json_type(event) = 'object'),
                CONSTRAINT feedback_app_scope_kind CHECK (scope NOT LIKE 'app:%' OR kind IN ('never', 'undo-never'))
            ) STRICT;
            CREATE INDEX feedback_user_date ON feedback(user, date_ms);
            """)
    }
}
