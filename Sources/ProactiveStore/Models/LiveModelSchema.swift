import Foundation
import GRDB

// MARK: - Live model state

/// Live model states replace the v6 `model` table (which a trigger emptied on
/// every deletion, so a model went stale and was refitted).
///
/// - `donation.id` becomes `AUTOINCREMENT`: an id is never reused, so "every
///   donation with an id above the high-water mark" is exactly what a saved
///   state has not learned yet. The table is rebuilt from its own stored
///   definition, keeping every index and trigger that later migrations added.
/// - `model_state`: per (user, model name) the model's bytes plus its key:
///   the donation high-water mark, the erasure journal mark, how many
///   donations it learned, and digests of the intent definitions, the Focus
///   timeline and the model options it was fitted with.
/// - `model_erasure`: a journal of deleted donations, written by a trigger
///   in the deleting transaction, only for users that have a saved state.
///   It holds the deleted row so the state can unlearn it exactly; the
///   engine folds it in and deletes the journal rows right after every
///   deleting command (and `compact` settles every pending one), so deleted
///   values do not outlive the command that deleted them.
enum LiveModelSchema {
    static let v10LiveModels = SchemaMigration(name: "v10_live_models") { db in
        try rebuildDonationWithAutoincrement(db)
        try db.execute(sql: """
            DROP TRIGGER IF EXISTS donation_delete_drops_models;
            DROP TABLE IF EXISTS model;
            CREATE TABLE model_state (
                user TEXT NOT NULL CONSTRAINT model_state_user_not_empty CHECK (user <> ''),
                name TEXT NOT NULL CONSTRAINT model_state_name_not_empty CHECK (name <> ''),
                bytes BLOB NOT NULL CONSTRAINT model_state_bytes_not_empty CHECK (length(bytes) > 0),
                catalogue TEXT NOT NULL,
                high_water INTEGER NOT NULL CONSTRAINT model_state_high_water CHECK (high_water >= 0),
                erasure_mark INTEGER NOT NULL CONSTRAINT model_state_erasure_mark CHECK (erasure_mark >= 0),
                donation_count INTEGER NOT NULL CONSTRAINT model_state_donation_count CHECK (donation_count >= 0),
                definitions_digest TEXT NOT NULL,
                focus_digest TEXT NOT NULL,
                options TEXT NOT NULL,
                trained_at_ms INTEGER NOT NULL,
                saved_at_ms INTEGER NOT NULL,
                PRIMARY KEY (user, name)
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE model_erasure (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                donation_id INTEGER NOT NULL,
                user TEXT NOT NULL,
                app TEXT NOT NULL,
                intent TEXT NOT NULL,
                parameters TEXT NOT NULL,
                date_ms INTEGER NOT NULL,
                utc_offset INTEGER,
                identifier TEXT,
                group_id TEXT,
                context TEXT NOT NULL,
                count INTEGER NOT NULL,
                content_hash INTEGER
            ) STRICT;
            CREATE INDEX model_erasure_user ON model_erasure(user, seq);
            CREATE TRIGGER donation_delete_journals_for_models AFTER DELETE ON donation
            WHEN EXISTS (SELECT 1 FROM model_state WHERE user = OLD.user)
            BEGIN
                INSERT INTO model_erasure (donation_id, user, app, intent, parameters, date_ms, utc_offset, identifier, group_id, context, count,
                                           content_hash)
                VALUES (OLD.id, OLD.user, OLD.app, OLD.intent, OLD.parameters, OLD.date_ms, OLD.utc_offset, OLD.identifier,
                        OLD.group_id, OLD.context, OLD.count, OLD.content_hash);
            END;
            """)
    }

    /// Rebuilds `donation` with `id INTEGER PRIMARY KEY AUTOINCREMENT`, from the
    /// table's own stored SQL, and re-creates its indexes and triggers.
    static func rebuildDonationWithAutoincrement(_ db: Database) throws {
        guard let create = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'donation'") else {
            throw DatabaseError(message: "v10_live_models: no donation table")
        }
        if create.contains("AUTOINCREMENT") { return }
        let marker = "id INTEGER PRIMARY KEY,"
        guard create.contains(marker) else { throw DatabaseError(message: "v10_live_models: unexpected donation table definition") }
        let dependents = try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master WHERE tbl_name = 'donation' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name
            """)
        let rebuilt = create
            .replacingOccurrences(of: marker, with: "id INTEGER PRIMARY KEY AUTOINCREMENT,")
            .replacingOccurrences(of: "CREATE TABLE donation", with: "CREATE TABLE donation_v10")
        try db.execute(sql: rebuilt)
        try db.execute(sql: "INSERT INTO donation_v10 SELECT * FROM donation")
        try db.execute(sql: "DROP TABLE donation")
        try db.execute(sql: "ALTER TABLE donation_v10 RENAME TO donation")
        for statement in dependents { try db.execute(sql: statement) }
    }

    /// `model_state_heavy`: per saved state, the heavy part of a model saved in two (training rows and log
    /// records, which a query at the newest moment does not read); `model_state.bytes` then holds the light
    /// part. A state saved in one piece (every state saved before this migration) has no row here; its next
    /// save writes it in two. A table of its own, not a column: `model_state` is a WITHOUT ROWID table,
    /// whose lookups read a row's whole record, so a column there would still be read by every query.
    static let v11ModelStateHeavyPart = SchemaMigration(name: "v11_model_state_heavy_part") { db in
        try db.execute(sql: """
            CREATE TABLE model_state_heavy (
                user TEXT NOT NULL,
                name TEXT NOT NULL,
                heavy BLOB NOT NULL,
                PRIMARY KEY (user, name)
            ) STRICT
            """)
    }
}
