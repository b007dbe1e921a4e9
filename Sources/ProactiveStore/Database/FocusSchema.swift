import GRDB

// MARK: - Focus tables

/// Focus state, Focus filters and migrated intent definitions. Frozen once
/// shipped: change them with new migrations.
enum FocusSchema {
    /// - `focus_schedule`: a Focus turned on at local times on weekdays
    ///   (`weekdays` is a bit mask, bit 0 = Monday; minutes after local midnight;
    ///   an IANA `time_zone`). Focus names are stored normalized (lowercased, trimmed).
    /// - `focus_change`: Focus turned on by hand (`focus`) or off (`focus` NULL) at `date_ms`.
    /// - `focus_filter`: an app's filter declaration (JSON object, `FocusFilter.json`).
    /// - `focus_filter_value`: one parameter value (JSON, `ParameterValue.json`) an app's
    ///   filter has in one Focus; removed with the declaration.
    /// - `focus_app_context`: the filter predicate (text) and badge count an app
    ///   returned for one Focus; at least one of them is set; removed with the declaration.
    static let v4Focus = SchemaMigration(name: "v4_focus") { db in
        try db.execute(sql: """
            CREATE TABLE focus_schedule (
                id INTEGER PRIMARY KEY,
                focus TEXT NOT NULL CONSTRAINT focus_schedule_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus))),
                weekdays INTEGER NOT NULL CONSTRAINT focus_schedule_weekdays_mask CHECK (weekdays BETWEEN 1 AND 127),
                start_minute INTEGER NOT NULL CONSTRAINT focus_schedule_start_range CHECK (start_minute BETWEEN 0 AND 1439),
                end_minute INTEGER NOT NULL CONSTRAINT focus_schedule_end_range CHECK (end_minute BETWEEN 0 AND 1439),
                time_zone TEXT NOT NULL CONSTRAINT focus_schedule_time_zone_not_empty CHECK (time_zone <> '')
            ) STRICT;
            CREATE TABLE focus_change (
                id INTEGER PRIMARY KEY,
                date_ms INTEGER NOT NULL CONSTRAINT focus_change_date_supported CHECK (date_ms BETWEEN 0 AND 7289654399999),
                focus TEXT CONSTRAINT focus_change_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus)))
            ) STRICT;
            CREATE INDEX focus_change_date ON focus_change(date_ms, id);
            CREATE TABLE focus_filter (
                app TEXT PRIMARY KEY NOT NULL CONSTRAINT focus_filter_app_not_empty CHECK (app <> ''),
                declaration TEXT NOT NULL
                    CONSTRAINT focus_filter_declaration_object CHECK (json_valid(declaration) AND json_type(declaration) = 'object')
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE focus_filter_value (
                app TEXT NOT NULL REFERENCES focus_filter(app) ON DELETE CASCADE,
                focus TEXT NOT NULL CONSTRAINT focus_filter_value_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus))),
                parameter TEXT NOT NULL CONSTRAINT focus_filter_value_parameter_not_empty CHECK (parameter <> ''),
                value TEXT NOT NULL CONSTRAINT focus_filter_value_json CHECK (json_valid(value)),
                PRIMARY KEY (app, focus, parameter)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE focus_app_context (
                app TEXT NOT NULL REFERENCES focus_filter(app) ON DELETE CASCADE,
                focus TEXT NOT NULL CONSTRAINT focus_app_context_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus))),
                filter_predicate TEXT CONSTRAINT focus_app_context_predicate_not_empty CHECK (filter_predicate <> ''),
                badge_count INTEGER CONSTRAINT focus_app_context_badge_not_negative CHECK (badge_count >= 0),
                PRIMARY KEY (app, focus),
                CONSTRAINT focus_app_context_not_empty CHECK (filter_predicate IS NOT NULL OR badge_count IS NOT NULL)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    /// `intent_definition`: the current intent definitions (one JSON object per
    /// intent, the form of a definitions file's `intents` elements), e.g. stored by
    /// `proactive migrate apply`. A legacy class name is migrated by at most one
    /// intent of its app, and is not itself a current intent of that app (checked
    /// by `SQLiteIntentDefinitionStore` before writing).
    static let v5IntentDefinitions = SchemaMigration(name: "v5_intent_definitions") { db in
        try db.execute(sql: """
            CREATE TABLE intent_definition (
                app TEXT NOT NULL CONSTRAINT intent_definition_app_not_empty CHECK (app <> ''),
                name TEXT NOT NULL CONSTRAINT intent_definition_name_not_empty CHECK (name <> ''),
                migrates_from TEXT CONSTRAINT intent_definition_migrates_from_valid CHECK (migrates_from <> '' AND migrates_from <> name),
                definition TEXT NOT NULL
                    CONSTRAINT intent_definition_object CHECK (json_valid(definition) AND json_type(definition) = 'object'),
                PRIMARY KEY (app, name)
            ) STRICT, WITHOUT ROWID;
            CREATE UNIQUE INDEX intent_definition_legacy ON intent_definition(app, migrates_from) WHERE migrates_from IS NOT NULL;
            """)
    }
}
