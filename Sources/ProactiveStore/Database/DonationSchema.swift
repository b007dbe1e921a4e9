import GRDB

// MARK: - Donation tables

/// The donation tables. Frozen once shipped: change them with new migrations.
enum DonationSchema {
    /// `donation`: one row per stored donation (see `DonationRecord` for the
    /// encoding). Constraints mirror `DonationRecord.init(_:)`:
    /// - non-empty `user`, `app`, `intent`; `identifier`/`group_id` NULL or non-empty;
    /// - `count` in 1...2^31-1; `date_ms` within the years 1970-2200
    ///   (`Timestamp.supportedYears`, written out here so the migration never changes);
    /// - `parameters`/`context` valid JSON objects;
    /// - `(app, identifier)` unique when an identifier is set (deletion by id, idempotent re-import).
    /// Indexes: `(user, date_ms)` for per-user history and export order,
    /// `(app, group_id)` for deletion by app and by group.
    static let v1 = SchemaMigration(name: "v1_donations") { db in
        try db.execute(sql: """
            PRAGMA application_id = \(ProactiveDatabase.applicationID);
            CREATE TABLE donation (
                id INTEGER PRIMARY KEY,
                user TEXT NOT NULL CONSTRAINT donation_user_not_empty CHECK (user <> ''),
                app TEXT NOT NULL CONSTRAINT donation_app_not_empty CHECK (app <> ''),
                intent TEXT NOT NULL CONSTRAINT donation_intent_not_empty CHECK (intent <> ''),
                parameters TEXT NOT NULL DEFAULT '{}'
                    CONSTRAINT donation_parameters_object CHECK (json_valid(parameters) AND json_type(parameters) = 'object'),
                date_ms INTEGER NOT NULL CONSTRAINT donation_date_supported CHECK (date_ms BETWEEN 0 AND 7289654399999),
                utc_offset INTEGER CONSTRAINT donation_utc_offset_range CHECK (utc_offset BETWEEN -64800 AND 64800),
                identifier TEXT CONSTRAINT donation_identifier_not_empty CHECK (identifier <> ''),
                group_id TEXT CONSTRAINT donation_group_not_empty CHECK (group_id <> ''),
                context TEXT NOT NULL DEFAULT '{}'
                    CONSTRAINT donation_context_object CHECK (json_valid(context) AND json_type(context) = 'object'),
                count INTEGER NOT NULL DEFAULT 1 CONSTRAINT donation_count_positive CHECK (count BETWEEN 1 AND 2147483647)
            ) STRICT;
            CREATE UNIQUE INDEX donation_app_identifier ON donation(app, identifier) WHERE identifier IS NOT NULL;
            CREATE INDEX donation_user_date ON donation(user, date_ms);
            CREATE INDEX donation_app_group ON donation(app, group_id);
            """)
    }

    /// `user_setting`: per-user configuration; for now the IANA time zone
    /// whose clock the user's donations are read in (FORMATS.md: "unless a
    /// time zone is configured for the user").
    static let v2UserSettings = SchemaMigration(name: "v2_user_settings") { db in
        try db.execute(sql: """
            CREATE TABLE user_setting (
                user TEXT PRIMARY KEY NOT NULL CONSTRAINT user_setting_user_not_empty CHECK (user <> ''),
                time_zone TEXT CONSTRAINT user_setting_time_zone_not_empty CHECK (time_zone <> '')
            ) STRICT, WITHOUT ROWID;
            """)
    }
}
