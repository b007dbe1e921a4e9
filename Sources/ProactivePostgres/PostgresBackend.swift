import Foundation
import ProactiveStore

// MARK: - The whole store on PostgreSQL

/// `StoreBackend` on a PostgreSQL database: the stores of this module on one connection
/// (`PostgresStoreDatabase`), for several instances serving from one database.
///
/// ```swift
/// let storage = try PostgresBackend(url: "postgres://proactive@/proactive?host=/tmp/cluster")
/// let engine = Engine(storage: storage)
/// ```
public struct PostgresBackend: StoreBackend {
    public let database: PostgresStoreDatabase
    /// What the change watches and the credential check read before each answer, in one round trip
    /// on a connection of its own (made at the first read), shared by them.
    private let marks: PostgresStoreMarks

    /// Connects to the database at `url`. With `.createIfMissing` an empty database gets the
    /// schema; any other mode refuses a database without it (`.missingStore`, naming the URL).
    /// - Throws: what `PostgresStoreDatabase.init(url:mode:)` throws.
    public init(url: String, mode: StoreOpenMode = .createIfMissing) throws(StoreError) {
        database = try PostgresStoreDatabase(url: url, mode: mode)
        marks = PostgresStoreMarks(url: url, writes: database)
    }

    public var donations: any DonationStore { PostgresDonationStore(database: database) }
    public var states: any ModelStateStore { PostgresModelStateStore(database: database) }
    public var definitions: any IntentDefinitionStore { PostgresIntentDefinitionStore(database: database) }
    public var declarations: any DeclarationStore { PostgresDeclarationStore(database: database) }
    public var focus: any FocusStore { PostgresFocusStore(database: database) }
    public var privacy: any PrivacyStore { PostgresPrivacyStore(database: database) }
    /// Hashes only, in the database (`PostgresCredentialStore`); the version read with the change watch's marks.
    public var credentials: any CredentialRecordStore { PostgresCredentialStore(database: database, marks: marks) }

    public var location: String { database.displayURL }
    public var filePath: String? { nil }

    public func appliedMigrations() throws(StoreError) -> [String] { try PostgresSchema.applied(database) }

    /// PostgreSQL checks every constraint when a row is written and keeps its own pages
    /// consistent; there is no store-level check to run.
    /// - Throws: `.invalidRequest`, saying so.
    public func integrityProblems() throws(StoreError) -> [String] {
        throw StoreError(.invalidRequest, "\(location): PostgreSQL checks constraints as rows are written; there is no integrity check to run (use the server's amcheck for its indexes)")
    }

    public func modelStatuses(user: String?) throws(StoreError) -> [ModelStateStatus] {
        try PostgresModelStateStore(database: database).statuses(user: user)
    }

    /// On the backend's one connection for marks (`PostgresChangeWatch`, `PostgresStoreMarks`); nil when it cannot connect now.
    public func changeWatch() -> (any StoreChangeWatch)? {
        do { try marks.connect() } catch { return nil }
        return PostgresChangeWatch(marks)
    }
}

extension PostgresModelStateStore {
    /// Every saved state (or `user`'s), sorted by user and name, with its pending changes, read in
    /// one snapshot (`SQLiteModelStateStore.statuses`).
    public func statuses(user: String? = nil) throws(StoreError) -> [ModelStateStatus] {
        try PostgresErrors.wrap("reading the saved models") {
            try database.inTransaction(writing: false) { session in
                try session.query("""
                    SELECT s."user", s.name, s.donation_count,
                           (SELECT count(*) FROM donation d WHERE d."user" = s."user" AND d.id > s.high_water),
                           (SELECT count(*) FROM model_erasure e WHERE e."user" = s."user" AND e.seq > s.erasure_mark
                                                                 AND e.donation_id <= s.high_water),
                           (SELECT count(*) FROM donation d WHERE d."user" = s."user"),
                           s.high_water, s.erasure_mark,
                           length(s.bytes) + coalesce((SELECT length(h.heavy) FROM model_state_heavy h
                                                       WHERE h."user" = s."user" AND h.name = s.name), 0),
                           s.trained_at_ms, s.saved_at_ms
                    FROM model_state s WHERE \(user)::text IS NULL OR s."user" = \(user) ORDER BY s."user", s.name
                    """).rows.map { row in
                    ModelStateStatus(user: try row.decode(0), name: try row.decode(1), learned: try row.decode(2), pendingNew: try row.decode(3),
                                     pendingDeleted: try row.decode(4), stored: try row.decode(5), highWater: try row.decode(6),
                                     erasureMark: try row.decode(7), bytes: try row.decode(8),
                                     trainedAt: Date(millisecondsSince1970: try row.decode(9)), savedAt: Date(millisecondsSince1970: try row.decode(10)))
                }
            }
        }
    }
}
