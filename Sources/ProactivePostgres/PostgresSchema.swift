import Foundation
import ProactiveStore

// MARK: - Versioned migrations

/// The PostgreSQL schema, as named migrations applied once each, in order, and recorded in
/// `proactive_migration`. Frozen once shipped: change it with new migrations.
///
/// `v1_schema` creates the tables at the shape the SQLite migrations end at (ProactiveStore's
/// `DonationSchema` ... `LiveModelSchema`), with the same constraints under the same names:
/// non-empty texts, date ranges, JSON objects and arrays, `(app, identifier)` unique when set,
/// the content key `(user, date_ms, content_hash)` unique (what makes re-import idempotent).
/// What SQLite keeps in `sqlite_sequence` is the table `proactive_sequence`, written in the
/// writing transaction, so a reader's marks are those of committed rows:
/// - `donation`: the largest donation id ever stored (the high-water mark's upper bound);
/// - `model_erasure`: the last erasure journal sequence number ever given;
/// - `credential` (from `v3_service_credentials`): advanced by every change of the credentials.
/// Texts holding JSON stay `TEXT` (the canonical bytes the stores wrote, as in SQLite). `user`
/// is a reserved word in PostgreSQL and is quoted.
enum PostgresSchema {
    struct Migration {
        var name: String
        var statements: [String]
    }

    static let migrations: [Migration] = [v1, v2, v3]

    /// The names of the migrations applied to `database`, in the order applied; empty when it
    /// has none (no `proactive_migration` table).
    static func applied(_ database: PostgresStoreDatabase) throws(StoreError) -> [String] {
        try PostgresErrors.wrap("reading the schema version of \(database.displayURL)") {
            try database.withSession { session in
                guard try session.query("SELECT to_regclass('proactive_migration') IS NOT NULL").rows.first?.decode(Bool.self) == true
                else { return [] }
                return try session.query("SELECT name FROM proactive_migration ORDER BY applied_at, name").rows.map { row in
                    try row.decode(String.self)
                }
            }
        }
    }

    /// Applies the migrations `database` lacks, in one transaction holding the writer lock.
    /// - Throws: `StoreError.newerSchema` when it holds migrations this version does not know.
    static func migrate(_ database: PostgresStoreDatabase) throws(StoreError) {
        try PostgresErrors.wrap("migrating \(database.displayURL)") {
            try database.inTransaction(writing: true) { session in
                try session.execute("""
                    CREATE TABLE IF NOT EXISTS proactive_migration (
                        name TEXT PRIMARY KEY,
                        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                    )
                    """)
                var applied: [String] = []
                for row in try session.query("SELECT name FROM proactive_migration ORDER BY applied_at, name").rows {
                    applied.append(try row.decode(String.self))
                }
                let known = Set(migrations.map(\.name))
                if let unknown = applied.first(where: { !known.contains($0) }) {
                    throw StoreError(.newerSchema, "\(database.displayURL) was migrated by a newer version of Proactive "
                                     + "(migration \(unknown) is unknown here); upgrade proactive")
                }
                for migration in migrations where !applied.contains(migration.name) {
                    for statement in migration.statements { try session.execute(statement) }
                    try session.query("INSERT INTO proactive_migration (name) VALUES (\(migration.name))")
                }
            }
        }
    }

    // MARK: v1

    static let v1 = Migration(name: "v1_schema", statements: [
        // Donations (DonationSchema v1, v2, v9; LiveModelSchema's never-reused ids).
        """
        CREATE TABLE donation (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            "user" TEXT COLLATE "C" NOT NULL CONSTRAINT donation_user_not_empty CHECK ("user" <> ''),
            app TEXT COLLATE "C" NOT NULL CONSTRAINT donation_app_not_empty CHECK (app <> ''),
            intent TEXT COLLATE "C" NOT NULL CONSTRAINT donation_intent_not_empty CHECK (intent <> ''),
            parameters TEXT NOT NULL DEFAULT '{}' CONSTRAINT donation_parameters_object CHECK (json_typeof(parameters::json) = 'object'),
            date_ms BIGINT NOT NULL CONSTRAINT donation_date_supported CHECK (date_ms BETWEEN 0 AND 7289654399999),
            utc_offset INTEGER CONSTRAINT donation_utc_offset_range CHECK (utc_offset BETWEEN -64800 AND 64800),
            identifier TEXT CONSTRAINT donation_identifier_not_empty CHECK (identifier <> ''),
            group_id TEXT CONSTRAINT donation_group_not_empty CHECK (group_id <> ''),
            context TEXT NOT NULL DEFAULT '{}' CONSTRAINT donation_context_object CHECK (json_typeof(context::json) = 'object'),
            count INTEGER NOT NULL DEFAULT 1 CONSTRAINT donation_count_positive CHECK (count BETWEEN 1 AND 2147483647),
            content_hash BIGINT NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX donation_app_identifier ON donation (app, identifier) WHERE identifier IS NOT NULL",
        "CREATE UNIQUE INDEX donation_user_date_content ON donation (\"user\", date_ms, content_hash)",
        "CREATE INDEX donation_app_group ON donation (app, group_id)",
        """
        CREATE TABLE user_setting (
            "user" TEXT COLLATE "C" PRIMARY KEY CONSTRAINT user_setting_user_not_empty CHECK ("user" <> ''),
            time_zone TEXT CONSTRAINT user_setting_time_zone_not_empty CHECK (time_zone <> '')
        )
        """,
        // Declarations and feedback (DeclarationSchema v3).
        """
        CREATE TABLE relevant_shortcut_set (
            "user" TEXT COLLATE "C" NOT NULL CONSTRAINT shortcut_set_user_not_empty CHECK ("user" <> ''),
            app TEXT NOT NULL CONSTRAINT shortcut_set_app_not_empty CHECK (app <> ''),
            declared_at_ms BIGINT NOT NULL CONSTRAINT shortcut_set_date_supported CHECK (declared_at_ms BETWEEN 0 AND 7289654399999),
            shortcuts TEXT NOT NULL CONSTRAINT shortcut_set_nonempty_array
                CHECK (json_typeof(shortcuts::json) = 'array' AND json_array_length(shortcuts::json) > 0),
            PRIMARY KEY ("user", app)
        )
        """,
        """
        CREATE TABLE widget_timeline (
            "user" TEXT COLLATE "C" NOT NULL CONSTRAINT timeline_user_not_empty CHECK ("user" <> ''),
            widget TEXT NOT NULL CONSTRAINT timeline_widget_not_empty CHECK (widget <> ''),
            app TEXT NOT NULL CONSTRAINT timeline_app_not_empty CHECK (app <> ''),
            timeline TEXT NOT NULL CONSTRAINT timeline_object
                CHECK (json_typeof(timeline::json) = 'object' AND json_typeof(timeline::json -> 'entries') = 'array'),
            PRIMARY KEY ("user", widget)
        )
        """,
        """
        CREATE TABLE feedback (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            "user" TEXT COLLATE "C" NOT NULL CONSTRAINT feedback_user_not_empty CHECK ("user" <> ''),
            date_ms BIGINT NOT NULL CONSTRAINT feedback_date_supported CHECK (date_ms BETWEEN 0 AND 7289654399999),
            kind TEXT NOT NULL CONSTRAINT feedback_kind CHECK (kind IN ('impression', 'tap', 'dismiss', 'never', 'undo-never')),
            scope TEXT NOT NULL CONSTRAINT feedback_scope CHECK (scope LIKE 'target:_%' OR scope LIKE 'widget:_%' OR scope LIKE 'app:_%'),
            app TEXT NOT NULL CONSTRAINT feedback_app_not_empty CHECK (app <> ''),
            event TEXT NOT NULL CONSTRAINT feedback_event_object CHECK (json_typeof(event::json) = 'object'),
            CONSTRAINT feedback_app_scope_kind CHECK (scope NOT LIKE 'app:%' OR kind IN ('never', 'undo-never'))
        )
        """,
        "CREATE INDEX feedback_user_date ON feedback (\"user\", date_ms)",
        // Focus (FocusSchema v4, v5).
        """
        CREATE TABLE focus_schedule (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            focus TEXT NOT NULL CONSTRAINT focus_schedule_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus))),
            weekdays INTEGER NOT NULL CONSTRAINT focus_schedule_weekdays_mask CHECK (weekdays BETWEEN 1 AND 127),
            start_minute INTEGER NOT NULL CONSTRAINT focus_schedule_start_range CHECK (start_minute BETWEEN 0 AND 1439),
            end_minute INTEGER NOT NULL CONSTRAINT focus_schedule_end_range CHECK (end_minute BETWEEN 0 AND 1439),
            time_zone TEXT NOT NULL CONSTRAINT focus_schedule_time_zone_not_empty CHECK (time_zone <> '')
        )
        """,
        """
        CREATE TABLE focus_change (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            date_ms BIGINT NOT NULL CONSTRAINT focus_change_date_supported CHECK (date_ms BETWEEN 0 AND 7289654399999),
            focus TEXT CONSTRAINT focus_change_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus)))
        )
        """,
        "CREATE INDEX focus_change_date ON focus_change (date_ms, id)",
        """
        CREATE TABLE focus_filter (
            app TEXT PRIMARY KEY CONSTRAINT focus_filter_app_not_empty CHECK (app <> ''),
            declaration TEXT NOT NULL CONSTRAINT focus_filter_declaration_object CHECK (json_typeof(declaration::json) = 'object')
        )
        """,
        """
        CREATE TABLE focus_filter_value (
            app TEXT NOT NULL REFERENCES focus_filter (app) ON DELETE CASCADE,
            focus TEXT NOT NULL CONSTRAINT focus_filter_value_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus))),
            parameter TEXT NOT NULL CONSTRAINT focus_filter_value_parameter_not_empty CHECK (parameter <> ''),
            value TEXT NOT NULL CONSTRAINT focus_filter_value_json CHECK (json_typeof(value::json) IS NOT NULL),
            PRIMARY KEY (app, focus, parameter)
        )
        """,
        """
        CREATE TABLE focus_app_context (
            app TEXT NOT NULL REFERENCES focus_filter (app) ON DELETE CASCADE,
            focus TEXT NOT NULL CONSTRAINT focus_app_context_focus_normalized CHECK (focus <> '' AND focus = lower(trim(focus))),
            filter_predicate TEXT CONSTRAINT focus_app_context_predicate_not_empty CHECK (filter_predicate <> ''),
            badge_count INTEGER CONSTRAINT focus_app_context_badge_not_negative CHECK (badge_count >= 0),
            PRIMARY KEY (app, focus),
            CONSTRAINT focus_app_context_not_empty CHECK (filter_predicate IS NOT NULL OR badge_count IS NOT NULL)
        )
        """,
        """
        CREATE TABLE intent_definition (
            app TEXT NOT NULL CONSTRAINT intent_definition_app_not_empty CHECK (app <> ''),
            name TEXT NOT NULL CONSTRAINT intent_definition_name_not_empty CHECK (name <> ''),
            migrates_from TEXT CONSTRAINT intent_definition_migrates_from_valid CHECK (migrates_from <> '' AND migrates_from <> name),
            definition TEXT NOT NULL CONSTRAINT intent_definition_object CHECK (json_typeof(definition::json) = 'object'),
            PRIMARY KEY (app, name)
        )
        """,
        "CREATE UNIQUE INDEX intent_definition_legacy ON intent_definition (app, migrates_from) WHERE migrates_from IS NOT NULL",
        // Privacy (PrivacySchema v7, v8: a new store keeps everything).
        """
        CREATE TABLE privacy_setting (
            id INTEGER PRIMARY KEY CONSTRAINT privacy_setting_single_row CHECK (id = 1),
            recording_paused BOOLEAN NOT NULL DEFAULT false,
            paused_at_ms BIGINT CONSTRAINT privacy_setting_paused_date CHECK (paused_at_ms BETWEEN 0 AND 7289654399999),
            default_retention_days INTEGER CONSTRAINT privacy_setting_retention_range CHECK (default_retention_days BETWEEN 1 AND 36500)
        )
        """,
        "INSERT INTO privacy_setting (id, recording_paused, default_retention_days) VALUES (1, false, NULL)",
        """
        CREATE TABLE app_retention (
            app TEXT PRIMARY KEY CONSTRAINT app_retention_app_not_empty CHECK (app <> ''),
            days INTEGER CONSTRAINT app_retention_range CHECK (days BETWEEN 1 AND 36500)
        )
        """,
        """
        CREATE TABLE erasure_counter (
            id INTEGER PRIMARY KEY CONSTRAINT erasure_counter_single_row CHECK (id = 1),
            deleted_donations BIGINT NOT NULL CONSTRAINT erasure_counter_not_negative CHECK (deleted_donations >= 0)
        )
        """,
        "INSERT INTO erasure_counter (id, deleted_donations) VALUES (1, 0)",
        // Live model states and the erasure journal (LiveModelSchema v10).
        """
        CREATE TABLE model_state (
            "user" TEXT COLLATE "C" NOT NULL CONSTRAINT model_state_user_not_empty CHECK ("user" <> ''),
            name TEXT NOT NULL CONSTRAINT model_state_name_not_empty CHECK (name <> ''),
            bytes BYTEA NOT NULL CONSTRAINT model_state_bytes_not_empty CHECK (length(bytes) > 0),
            catalogue TEXT NOT NULL,
            high_water BIGINT NOT NULL CONSTRAINT model_state_high_water CHECK (high_water >= 0),
            erasure_mark BIGINT NOT NULL CONSTRAINT model_state_erasure_mark CHECK (erasure_mark >= 0),
            donation_count BIGINT NOT NULL CONSTRAINT model_state_donation_count CHECK (donation_count >= 0),
            definitions_digest TEXT NOT NULL,
            focus_digest TEXT NOT NULL,
            options TEXT NOT NULL,
            trained_at_ms BIGINT NOT NULL,
            saved_at_ms BIGINT NOT NULL,
            PRIMARY KEY ("user", name)
        )
        """,
        """
        CREATE TABLE model_erasure (
            seq BIGINT PRIMARY KEY,
            donation_id BIGINT NOT NULL,
            "user" TEXT COLLATE "C" NOT NULL,
            app TEXT NOT NULL,
            intent TEXT NOT NULL,
            parameters TEXT NOT NULL,
            date_ms BIGINT NOT NULL,
            utc_offset INTEGER,
            identifier TEXT,
            group_id TEXT,
            context TEXT NOT NULL,
            count INTEGER NOT NULL,
            content_hash BIGINT
        )
        """,
        "CREATE INDEX model_erasure_user ON model_erasure (\"user\", seq)",
        """
        CREATE TABLE proactive_sequence (
            name TEXT PRIMARY KEY,
            value BIGINT NOT NULL CONSTRAINT proactive_sequence_not_negative CHECK (value >= 0)
        )
        """,
        "INSERT INTO proactive_sequence (name, value) VALUES ('donation', 0), ('model_erasure', 0)",
        // Every insert raises the donation mark to its largest id.
        """
        CREATE FUNCTION donation_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE proactive_sequence SET value = GREATEST(value, (SELECT max(id) FROM inserted)) WHERE name = 'donation';
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER donation_insert_raises_mark AFTER INSERT ON donation
        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION donation_inserted()
        """,
        // Every deletion counts, and is journalled (sequence numbers in id order) for users with a saved state.
        """
        CREATE FUNCTION donation_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            journalled BIGINT;
            last_given BIGINT;
        BEGIN
            UPDATE erasure_counter SET deleted_donations = deleted_donations + (SELECT count(*) FROM deleted) WHERE id = 1;
            SELECT count(*) INTO journalled FROM deleted d WHERE EXISTS (SELECT 1 FROM model_state s WHERE s."user" = d."user");
            IF journalled > 0 THEN
                UPDATE proactive_sequence SET value = value + journalled WHERE name = 'model_erasure' RETURNING value INTO last_given;
                INSERT INTO model_erasure (seq, donation_id, "user", app, intent, parameters, date_ms, utc_offset, identifier, group_id,
                                           context, count, content_hash)
                SELECT last_given - journalled + row_number() OVER (ORDER BY d.id), d.id, d."user", d.app, d.intent, d.parameters,
                       d.date_ms, d.utc_offset, d.identifier, d.group_id, d.context, d.count, d.content_hash
                FROM deleted d WHERE EXISTS (SELECT 1 FROM model_state s WHERE s."user" = d."user");
            END IF;
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER donation_delete_journals AFTER DELETE ON donation
        REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION donation_deleted()
        """,
    ])

    // MARK: v2

    /// `model_state_heavy` (LiveModelSchema v11): the heavy part of a model saved in two (training rows,
    /// log records), read only when learning needs it; `model_state.bytes` then holds the light part. It
    /// goes with its state: deleting the state deletes it.
    static let v2 = Migration(name: "v2_model_state_heavy_part", statements: [
        """
        CREATE TABLE model_state_heavy (
            "user" TEXT COLLATE "C" NOT NULL,
            name TEXT NOT NULL,
            heavy BYTEA NOT NULL,
            PRIMARY KEY ("user", name),
            CONSTRAINT model_state_heavy_state FOREIGN KEY ("user", name) REFERENCES model_state ("user", name) ON DELETE CASCADE
        )
        """,
    ])

    // MARK: v3

    /// The service's credentials (`PostgresCredentialStore`), hashes only: `owner_credential` (at most
    /// one row) and `app_credential` (one per app, `id` giving the order they were minted), with the
    /// checks `CredentialFiles` makes (a bundle identifier, 64 lowercase hex digits). Every statement
    /// on either table advances `proactive_sequence`'s `credential` row in its transaction: the
    /// version a running service compares before trusting what it checked.
    static let v3 = Migration(name: "v3_service_credentials", statements: [
        """
        CREATE TABLE owner_credential (
            id INTEGER PRIMARY KEY CONSTRAINT owner_credential_single_row CHECK (id = 1),
            sha256 TEXT COLLATE "C" NOT NULL CONSTRAINT owner_credential_sha256_hex CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            created_ms BIGINT NOT NULL CONSTRAINT owner_credential_date_supported CHECK (created_ms BETWEEN 0 AND 7289654399999)
        )
        """,
        """
        CREATE TABLE app_credential (
            app TEXT COLLATE "C" PRIMARY KEY CONSTRAINT app_credential_bundle_identifier CHECK (app ~ '^[A-Za-z0-9._-]{1,255}$'),
            id BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
            sha256 TEXT COLLATE "C" NOT NULL CONSTRAINT app_credential_sha256_hex CHECK (sha256 ~ '^[0-9a-f]{64}$'),
            created_ms BIGINT NOT NULL CONSTRAINT app_credential_date_supported CHECK (created_ms BETWEEN 0 AND 7289654399999)
        )
        """,
        "INSERT INTO proactive_sequence (name, value) VALUES ('credential', 0)",
        """
        CREATE FUNCTION credential_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE proactive_sequence SET value = value + 1 WHERE name = 'credential';
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER owner_credential_changes_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON owner_credential
        FOR EACH STATEMENT EXECUTE FUNCTION credential_changed()
        """,
        """
        CREATE TRIGGER app_credential_changes_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app_credential
        FOR EACH STATEMENT EXECUTE FUNCTION credential_changed()
        """,
    ])
}
