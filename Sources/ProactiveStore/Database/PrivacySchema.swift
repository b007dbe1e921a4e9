import GRDB

// MARK: - Privacy tables

/// Recording pause, retention windows, and the count of deleted donations. Frozen once shipped: change them
/// with new migrations.
enum PrivacySchema {
    /// - `privacy_setting`: exactly one row (`id = 1`): whether recording is
    ///   paused (and since when), and the default retention window in days
    ///   (NULL: keep everything). Stores migrated to v7 start recording with
    ///   a default window of 28 days; `v8RetentionOptIn` clears it for new stores.
    /// - `app_retention`: an app's own window, overriding the default
    ///   (`days` NULL: keep everything of that app).
    /// - `erasure_counter`: exactly one row counting deleted donations (a
    ///   trigger adds one per row). A model trained on donations read before
    ///   a deletion is not saved (`SQLiteModelStore.save(_:ifNoDeletionSince:)`).
    static let v7Privacy = SchemaMigration(name: "v7_privacy") { db in
        try db.execute(sql: """
            CREATE TABLE privacy_setting (
                id INTEGER PRIMARY KEY CONSTRAINT privacy_setting_single_row CHECK (id = 1),
                recording_paused INTEGER NOT NULL DEFAULT 0 CONSTRAINT privacy_setting_paused_flag CHECK (recording_paused IN (0, 1)),
                paused_at_ms INTEGER CONSTRAINT privacy_setting_paused_date CHECK (paused_at_ms BETWEEN 0 AND 7289654399999),
                default_retention_days INTEGER
                    CONSTRAINT privacy_setting_retention_range CHECK (default_retention_days BETWEEN 1 AND 36500)
            ) STRICT;
            INSERT INTO privacy_setting (id, recording_paused, default_retention_days) VALUES (1, 0, 28);
            CREATE TABLE app_retention (
                app TEXT PRIMARY KEY NOT NULL CONSTRAINT app_retention_app_not_empty CHECK (app <> ''),
                days INTEGER CONSTRAINT app_retention_range CHECK (days BETWEEN 1 AND 36500)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE erasure_counter (
                id INTEGER PRIMARY KEY CONSTRAINT erasure_counter_single_row CHECK (id = 1),
                deleted_donations INTEGER NOT NULL CONSTRAINT erasure_counter_not_negative CHECK (deleted_donations >= 0)
            ) STRICT;
            INSERT INTO erasure_counter (id, deleted_donations) VALUES (1, 0);
            CREATE TRIGGER donation_delete_counts_erasure AFTER DELETE ON donation
            BEGIN
                UPDATE erasure_counter SET deleted_donations = deleted_donations + 1 WHERE id = 1;
            END;
            """)
    }

    /// A store starts keeping everything: retention is the owner's choice
    /// (a `RetentionPolicy` the owner sets), never a surprise erasing an
    /// imported history. A store that has never held a donation, feedback or
    /// an app window (a new file, migrated just now) loses v7's 28-day
    /// default; a store in use keeps the window it has been applying.
    static let v8RetentionOptIn = SchemaMigration(name: "v8_retention_opt_in") { db in
        try db.execute(sql: """
            UPDATE privacy_setting SET default_retention_days = NULL
            WHERE id = 1 AND default_retention_days = 28
              AND NOT EXISTS (SELECT 1 FROM donation)
              AND NOT EXISTS (SELECT 1 FROM feedback)
              AND NOT EXISTS (SELECT 1 FROM app_retention);
            """)
    }
}
