import Foundation
import ProactiveCore

// MARK: - A whole store, whatever the database

/// Everything the Engine, the Runtime, the service and the CLI take from a
/// store: each part as its contract, and what concerns the database as a
/// whole (where it is, its schema, its health, how other connections' writes
/// are seen). `SQLiteBackend` is the embedded default; a backend on another
/// database vends its own stores with the same meaning.
///
/// ```swift
/// let storage = try SQLiteBackend(path: "proactive.sqlite")
/// try storage.donations.append(donation)
/// let engine = Engine(storage: storage)
/// ```
public protocol StoreBackend: Sendable {
    /// Donations, per user.
    var donations: any DonationStore { get }
    /// Saved model states and the erasure journal.
    var states: any ModelStateStore { get }
    /// The stored intent definitions.
    var definitions: any IntentDefinitionStore { get }
    /// Relevant shortcuts, widget timelines and feedback.
    var declarations: any DeclarationStore { get }
    /// Focus schedules, changes and filters.
    var focus: any FocusStore { get }
    /// Pause, retention, forgetting and physical erasure.
    var privacy: any PrivacyStore { get }
    /// The service's bearer credentials (`proactive serve`, `proactive apps`).
    /// - Throws: `.invalidRequest` for a store with nowhere to keep them (SQLite in memory).
    var credentials: any CredentialRecordStore { get throws(StoreError) }

    /// Where the store is, for messages: a file path, or a database URL without its password.
    var location: String { get }

    /// The store's file when it is one file on this machine (what files kept beside it, such as
    /// the SQLite store's credential files, are named after); nil for a store that is not a file.
    var filePath: String? { get }

    /// The names of the schema migrations applied, oldest first.
    func appliedMigrations() throws(StoreError) -> [String]

    /// What the database's own consistency check finds (SQLite: `integrity_check` and
    /// `foreign_key_check`); empty when sound.
    /// - Throws: `StoreError(.invalidRequest)` from a backend that has no such check.
    func integrityProblems() throws(StoreError) -> [String]

    /// Every saved model state (or `user`'s), sorted by user and name, with the donations it has
    /// not folded in yet (stored since, deleted since), read in one snapshot.
    func modelStatuses(user: String?) throws(StoreError) -> [ModelStateStatus]

    /// How a holder of models and inputs read from this store sees other connections' commits and
    /// deletions; nil when no other connection can write to it (an in-memory store).
    func changeWatch() -> (any StoreChangeWatch)?

    /// Whether the store was opened only to read (every write fails); the engine then saves no
    /// model state to it. The default is false.
    var isReadOnly: Bool { get }

    /// Tunes the store for a long-running writer that stores batches many times a second
    /// (`proactive serve`); durability and crash safety are as without it. The default does nothing.
    func prepareForSustainedWrites() throws(StoreError)
}

extension StoreBackend {
    public func prepareForSustainedWrites() throws(StoreError) {}

    /// Whether the store was opened only to read (every write fails): the engine then saves no model
    /// state to it. False by default.
    public var isReadOnly: Bool { false }

    /// The last migration applied, or "none" for an empty store.
    public func schemaVersion() throws(StoreError) -> String { try appliedMigrations().last ?? "none" }
}

/// How a store is opened, for any backend; each backend maps it to its own way of opening
/// (the SQLite store to `ProactiveDatabase.OpenMode`).
///
/// ```swift
/// let storage = try SQLiteBackend(path: "proactive.sqlite", mode: .readOnly)   // export, stats
/// ```
public enum StoreOpenMode: Sendable, Hashable {
    /// Creates and migrates an empty store when there is none.
    case createIfMissing
    /// Refuses a store that does not exist (`.missingStore`; for a database: one without the schema).
    case mustExist
    /// `mustExist`, on one connection instead of a pool where the backend keeps one: for a command
    /// that reads and writes one step after another.
    case oneConnection
    /// `mustExist`, and only reads: every write fails (a backend may still migrate an older store once).
    case readOnly
}

// MARK: - SQLite

/// The embedded default: one SQLite file (or a private in-memory database) through `ProactiveDatabase`.
///
/// ```swift
/// let storage = try SQLiteBackend(path: "proactive.sqlite", mode: .mustExist)
/// print(try storage.schemaVersion())
/// ```
package struct SQLiteBackend: StoreBackend {
    package let database: ProactiveDatabase

    package init(_ database: ProactiveDatabase) { self.database = database }

    /// Opens (creating and migrating unless `mode` says otherwise) the store file at `path`.
    /// - Throws: what `ProactiveDatabase.init(path:mode:)` throws, naming the path.
    package init(path: String, mode: StoreOpenMode = .createIfMissing) throws(StoreError) {
        self.init(try ProactiveDatabase(path: path, mode: ProactiveDatabase.OpenMode(mode)))
    }

    /// Why the store file at `path` cannot be written here (`ProactiveDatabase.readOnlyReason`), nil when it can
    /// or does not exist: a command that only reads then opens it `.readOnly`.
    package static func readOnlyReason(path: String) -> String? { ProactiveDatabase.readOnlyReason(path) }

    /// A private in-memory store with the full schema (tests, scratch work).
    package static func inMemory() throws(StoreError) -> SQLiteBackend { SQLiteBackend(try ProactiveDatabase.inMemory()) }

    /// The name of the newest migration this build knows (what `--version` reports).
    package static var currentSchema: String { ProactiveDatabase.migrations.last!.name }

    package var donations: any DonationStore { SQLiteDonationStore(database: database) }
    package var states: any ModelStateStore { SQLiteModelStateStore(database: database) }
    package var definitions: any IntentDefinitionStore { SQLiteIntentDefinitionStore(database: database) }
    package var declarations: any DeclarationStore { SQLiteDeclarationStore(database: database) }
    package var focus: any FocusStore { SQLiteFocusStore(database: database) }
    package var privacy: any PrivacyStore { SQLitePrivacyStore(database: database) }
    /// The files beside the store file (`CredentialFiles`).
    /// - Throws: `.invalidRequest` for a store in memory (no file to keep them beside).
    package var credentials: any CredentialRecordStore {
        get throws(StoreError) {
            guard let path = database.path else {
                throw StoreError(.invalidRequest, "\(location): no file to keep the service's credentials beside")
            }
            return CredentialFiles(storePath: path)
        }
    }

    package var location: String { database.path ?? "in-memory store" }
    package var filePath: String? { database.path }
    /// `ProactiveDatabase.isReadOnly`.
    package var isReadOnly: Bool { database.isReadOnly }

    package func appliedMigrations() throws(StoreError) -> [String] { try database.appliedMigrations() }
    package func integrityProblems() throws(StoreError) -> [String] { try database.integrityProblems() }
    package func modelStatuses(user: String?) throws(StoreError) -> [ModelStateStatus] {
        try SQLiteModelStateStore(database: database).statuses(user: user)
    }

    /// A read-only connection of its own on the file (`StoreErasureWatch`); nil in memory.
    package func changeWatch() -> (any StoreChangeWatch)? { database.path.flatMap(StoreErasureWatch.init(path:)) }

    /// `ProactiveDatabase.tuneForSustainedWrites()`.
    package func prepareForSustainedWrites() throws(StoreError) { try database.tuneForSustainedWrites() }
}
