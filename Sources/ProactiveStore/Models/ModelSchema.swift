import GRDB

// MARK: - Saved models

/// The `model` table: one saved model per (user, model name), as the model's
/// own versioned, checksummed bytes (ProactiveModels' `ModelArchive`).
///
/// A trigger drops a user's saved models whenever one of their donations is
/// deleted, so no deleted donation's values survive in a saved model; the
/// next `train` (or a `predict`, on the fly) rebuilds them.
enum ModelSchema {
    static let v6Models = SchemaMigration(name: "v6_models") { db in
        try db.execute(sql: """
            CREATE TABLE model (
                user TEXT NOT NULL CONSTRAINT model_user_not_empty CHECK (user <> ''),
                name TEXT NOT NULL CONSTRAINT model_name_not_empty CHECK (name <> ''),
                bytes BLOB NOT NULL CONSTRAINT model_bytes_not_empty CHECK (length(bytes) > 0),
                trained_at_ms INTEGER NOT NULL,
                donation_count INTEGER NOT NULL CONSTRAINT model_donation_count CHECK (donation_count >= 0),
                latest_donation_ms INTEGER,
                PRIMARY KEY (user, name)
            ) STRICT, WITHOUT ROWID;
            CREATE TRIGGER donation_delete_drops_models AFTER DELETE ON donation
            BEGIN
                DELETE FROM model WHERE user = OLD.user;
            END;
            """)
    }
}
