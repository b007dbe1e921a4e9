import Foundation
import ProactiveStore

// MARK: - The service's credentials

/// The service's credentials on PostgreSQL: the same contract as `CredentialFiles`, hashes only
/// (`owner_credential`, `app_credential`; never a credential itself), with the same checks as CHECK
/// constraints. Each write is one transaction holding the writer lock; the owner's row is created
/// with `ON CONFLICT DO NOTHING` on its single-row key, so of several instances starting at once
/// one creates it. `version()` is `proactive_sequence`'s `credential` row, which every statement on
/// either table advances (triggers, even a hand edit with `psql`): read with the change watch's
/// marks when the store has them (`PostgresStoreMarks`: no round trip of its own within a request
/// that looks at them anyway), else one round trip.
///
/// ```swift
/// let credentials = PostgresCredentialStore(database: database)
/// let coffee = try credentials.mintApp("com.example.coffee")
/// ```
public struct PostgresCredentialStore: CredentialRecordStore {
    public let database: PostgresStoreDatabase
    /// Where `version()` is read with the other marks; nil: a query of its own.
    let marks: PostgresStoreMarks?

    public init(database: PostgresStoreDatabase) {
        self.database = database
        marks = nil
    }

    init(database: PostgresStoreDatabase, marks: PostgresStoreMarks) {
        self.database = database
        self.marks = marks
    }

    /// nil: only the hash is kept; the owner's credential goes to a file the caller names.
    public var ownerCredentialFile: String? { nil }

    public func ownerHash() throws(StoreError) -> String? {
        try PostgresErrors.wrap("reading the owner credential of \(database.displayURL)") {
            try database.withSession { session in
                try session.query("SELECT sha256 FROM owner_credential WHERE id = 1").rows.first?.decode(String.self)
            }
        }
    }

    public func createOwner(_ credential: String, at date: Date) throws(StoreError) -> Bool {
        try writeOwner(credential, at: date, replacing: false)
    }

    public func replaceOwner(_ credential: String, at date: Date) throws(StoreError) {
        _ = try writeOwner(credential, at: date, replacing: true)  // replacing always writes
    }

    private func writeOwner(_ credential: String, at date: Date, replacing: Bool) throws(StoreError) -> Bool {
        try ServiceCredential.requireWellFormed(credential)
        let hash = ServiceCredential.hash(credential)
        let created = Self.milliseconds(date)
        return try PostgresErrors.wrap("storing the owner credential of \(database.displayURL)") {
            try database.inTransaction(writing: true) { session in
                try session.query("""
                    INSERT INTO owner_credential (id, sha256, created_ms) VALUES (1, \(hash), \(created))
                    ON CONFLICT (id) DO \(unescaped: replacing ? "UPDATE SET sha256 = excluded.sha256, created_ms = excluded.created_ms" : "NOTHING")
                    """).changed > 0
            }
        }
    }

    public func apps() throws(StoreError) -> [AppCredentialRecord] {
        try PostgresErrors.wrap("reading the app credentials of \(database.displayURL)") {
            try database.withSession { session in
                try session.query("SELECT app, sha256, created_ms FROM app_credential ORDER BY id").rows.map { row in
                    AppCredentialRecord(app: try row.decode(0), sha256: try row.decode(1),
                                        created: Date(millisecondsSince1970: try row.decode(2)))
                }
            }
        }
    }

    public func addApp(_ app: String, credential: String, at date: Date, replacing: Bool) throws(StoreError) {
        try ServiceCredential.requireApp(app, credential: credential)
        let hash = ServiceCredential.hash(credential)
        let created = Self.milliseconds(date)
        try PostgresErrors.wrap("adding the credential of \(app)") {
            try database.inTransaction(writing: true) { session in
                // Deleted and inserted again when replacing: a new id, so it lists as the newest.
                let had = try session.query("DELETE FROM app_credential WHERE app = \(app)").changed > 0
                if had, !replacing {
                    throw ServiceCredential.alreadyHasOne(app)
                }
                try session.query("INSERT INTO app_credential (app, sha256, created_ms) VALUES (\(app), \(hash), \(created))")
            }
        }
    }

    @discardableResult
    public func revokeApp(_ app: String) throws(StoreError) -> Bool {
        try PostgresErrors.wrap("revoking the credential of \(app)") {
            try database.inTransaction(writing: true) { session in
                try session.query("DELETE FROM app_credential WHERE app = \(app)").changed > 0
            }
        }
    }

    public func version() throws(StoreError) -> CredentialsVersion {
        // When the marks cannot be read, the query below says why (the database away: `.unavailable`).
        if let reading = marks?.read() { return CredentialsVersion([reading.credentials]) }
        return try PostgresErrors.wrap("reading the credentials' version of \(database.displayURL)") {
            try database.withSession { session in
                CredentialsVersion([try session.query("SELECT value FROM proactive_sequence WHERE name = 'credential'").rows[0].decode(Int64.self)])
            }
        }
    }

    /// Whole seconds, as the file store keeps them.
    private static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded()) * 1000 }
}
