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
    /// whose clock the user's donations are read in (docs/FORMATS.md: "unless a
    /// time zone is configured for the user").
    static let v2UserSettings = SchemaMigration(name: "v2_user_settings") { db in
        try db.execute(sql: """
            CREATE TABLE user_setting (
                user TEXT PRIMARY KEY NOT NULL CONSTRAINT user_setting_user_not_empty CHECK (user <> ''),
                time_zone TEXT CONSTRAINT user_setting_time_zone_not_empty CHECK (time_zone <> '')
            ) STRICT, WITHOUT ROWID;
            """)
    }

    /// `content_hash`: what makes two donations the same donation
    /// (`DonationRecord+ContentKey.swift`), so that re-importing an export
    /// stores nothing new even for donations without an identifier.
    /// - fills the column for the rows already stored (the hash is computed
    ///   by the same Swift function the store uses on insert);
    /// - keeps the first (lowest id) of rows that are the same donation and
    ///   deletes the others (the erasure counter and the saved-model trigger
    ///   see these deletions, as any deletion);
    /// - replaces `donation_user_date` by the UNIQUE index
    ///   `donation_user_date_content (user, date_ms, content_hash)`: the same
    ///   prefix serves per-user history and export order.
    /// The column stays NULL-able (SQLite cannot add a NOT NULL column
    /// without a default to a filled table): both stores always write it; a
    /// row written by hand without it is never taken for a duplicate.
    static let v9ContentKey = SchemaMigration(name: "v9_donation_content_key") { db in
        try db.execute(sql: "ALTER TABLE donation ADD COLUMN content_hash INTEGER")
        let hash = DatabaseFunction("proactive_content_hash", argumentCount: 10, pure: true) { values in
            DonationRecord.contentHash(
                user: String.fromDatabaseValue(values[0]) ?? "", app: String.fromDatabaseValue(values[1]) ?? "",
                intent: String.fromDatabaseValue(values[2]) ?? "", parametersJSON: String.fromDatabaseValue(values[3]) ?? "",
                dateMilliseconds: Int64.fromDatabaseValue(values[4]) ?? 0, utcOffset: Int.fromDatabaseValue(values[5]),
                identifier: String.fromDatabaseValue(values[6]), group: String.fromDatabaseValue(values[7]),
                contextJSON: String.fromDatabaseValue(values[8]) ?? "", count: Int.fromDatabaseValue(values[9]) ?? 1)
        }
        db.add(function: hash)
        defer { db.remove(function: hash) }
        try db.execute(sql: """
            UPDATE donation SET content_hash = proactive_content_hash(
                user, app, intent, parameters, date_ms, utc_offset, identifier, group_id, context, count);
            DELETE FROM donation WHERE id NOT IN (SELECT MIN(id) FROM donation GROUP BY user, date_ms, content_hash);
            DROP INDEX donation_user_date;
            CREATE UNIQUE INDEX donation_user_date_content ON donation(user, date_ms, content_hash);
            """)
    }
}
