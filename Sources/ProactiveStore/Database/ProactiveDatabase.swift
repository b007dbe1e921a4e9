import Foundation
import GRDB

// MARK: - The store file

/// The Proactive SQLite file: one GRDB connection (a `DatabasePool` in WAL
/// mode for files, a `DatabaseQueue` in memory) plus the versioned schema.
///
/// ```swift
/// let database = try ProactiveDatabase(path: "proactive.sqlite")
/// let donations = SQLiteDonationStore(database: database)
/// ```
///
/// Every connection runs with foreign keys on, `secure_delete = ON` (deleted
/// donations are overwritten, not left in free pages), `synchronous =
/// NORMAL` (in WAL mode a commit survives a crash of the process; only an
/// OS crash may lose the last transactions) and a busy timeout of
/// `busyTimeout` seconds so a second process waits instead of failing.
///
/// ## Adding tables (relevant shortcuts, timelines, Focus filters, ...)
/// 1. Write a `SchemaMigration` in `Sources/ProactiveStore/Database/`
///    (see `DonationSchema.v1`) with a new, never reused name such as
///    `"v3_relevant_shortcuts"`. Create tables with constraints in SQL
///    (NOT NULL, CHECK, UNIQUE, foreign keys) and `STRICT`.
/// 2. Append it to `ProactiveDatabase.migrations` (the order is the
///    version order).
/// 3. Build your store type on `ProactiveDatabase` (take one in `init`, use
///    `writer`), like `SQLiteDonationStore`.
/// Never edit a migration that has shipped: stores in the wild already ran
/// it. Change the schema with a further migration instead.
///
/// Opening refuses files that belong to someone else (a SQLite file with
/// tables but without Proactive's `application_id`), files that are not SQLite
/// at all, and stores written by a newer Proactive (migrations this build
/// does not know): each gives a `StoreError` that says so.
public struct ProactiveDatabase: Sendable {
    /// The connection; stores run their SQL through it.
    let writer: any DatabaseWriter
    /// The file path, nil for an in-memory database.
    public let path: String?
    /// True when the store was opened read-only (`OpenMode.readOnly` on a current store): every write
    /// fails, and the engine saves no model state to it.
    public var isReadOnly: Bool { writer.configuration.readonly }

    /// Written to the SQLite header (`PRAGMA application_id`) by the first
    /// migration: "PROA".
    public static let applicationID: Int32 = 0x5052_4F41
    /// Seconds a connection waits for another writer before failing.
    public static let busyTimeout: TimeInterval = 10

    /// Every migration, in version order. Append new ones; never reorder or edit.
    package static let migrations: [SchemaMigration] = [
        DonationSchema.v1,
        DonationSchema.v2UserSettings,
        DeclarationSchema.v3,
        FocusSchema.v4Focus,
        FocusSchema.v5IntentDefinitions,
        ModelSchema.v6Models,
        PrivacySchema.v7Privacy,
        PrivacySchema.v8RetentionOptIn,
        DonationSchema.v9ContentKey,
        LiveModelSchema.v10LiveModels,
        LiveModelSchema.v11ModelStateHeavyPart,
    ]

    /// Whether opening may create a missing file.
    public enum OpenMode: Sendable {
        case createIfMissing
        /// A missing file is an error.
        case mustExist
        /// As `mustExist`, on one read-write connection instead of a pool of a writer and readers: for a
        /// command that reads and writes one step after another (a query). Opening a pool writes to the
        /// file to set up its write-ahead log (which closing the last connection removes again); one
        /// connection uses the file's journal mode as it is, and other processes keep reading and writing.
        case oneConnection
        /// For commands that only read (`export`, `stats`): a missing file is an
        /// error, and the file is opened read-only, so a store the user may only
        /// read can be read. A store written by an older version (not yet
        /// migrated) is opened for writing once, to migrate it, when it can be.
        case readOnly

        /// The SQLite way of opening that the backend-neutral `mode` asks for (the same names).
        package init(_ mode: StoreOpenMode) {
            switch mode {
            case .createIfMissing: self = .createIfMissing
            case .mustExist: self = .mustExist
            case .oneConnection: self = .oneConnection
            case .readOnly: self = .readOnly
            }
        }
    }

    // MARK: Opening

    /// Opens (and creates or migrates) the store file at `path`.
    /// - Throws: `StoreError` with code `.missingStore`, `.notAProactiveStore`,
    ///   `.newerSchema` or `.database`, naming the path.
    public init(path: String, mode: OpenMode = .createIfMissing) throws(StoreError) {
        try Self.checkPlace(path, creating: false)
        if mode != .createIfMissing, !FileManager.default.fileExists(atPath: path) {
            throw StoreError(.missingStore, "no store at \(path) (import or donate something first, or pass --store)")
        }
        try Self.checkPlace(path, creating: true)
        if mode == .readOnly, let reader = try Self.openReadOnly(path: path) {
            self.init(current: reader, path: path)
            return
        }
        if let reason = Self.readOnlyReason(path) {
            throw StoreError(.readOnly, "the store is read-only: \(path) (\(reason)); this command writes to it, while "
                             + "stats, export, predict and suggest read it as it is")
        }
        let writer = try StoreError.wrap("opening the store \(path)") { () throws -> any DatabaseWriter in
            if mode == .oneConnection { return try BusyRetry.run { try DatabaseQueue(path: path, configuration: Self.configuration(mapped: true)) } }
            return try BusyRetry.run { try DatabasePool(path: path, configuration: Self.configuration()) }
        }
        try self.init(writer: writer, path: path)
    }

    /// Refuses, with the path, a store path that names a directory or lies in a folder that does
    /// not exist (SQLite would say only "disk I/O error" or "unable to open database file").
    /// `creating`: also the folder a new store file goes in.
    static func checkPlace(_ path: String, creating: Bool) throws(StoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError(.database, "\(path) is a directory, not a store file (give a file path such as \(path)/store.sqlite)")
        }
        guard creating else { return }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            throw StoreError(.database, "cannot open the store \(path): the folder \(folder) does not exist")
        }
        if !folder.isEmpty, !isDirectory.boolValue {
            throw StoreError(.database, "cannot open the store \(path): \(folder) is a file, not a folder")
        }
    }

    /// Why the existing store file at `path` cannot be written here, nil when it can: the file, or
    /// the folder its write-ahead log and shared-memory files are created in, refuses writing
    /// (`access(2)`: a read-only mount refuses even root; the owner's mode bits refuse others).
    public static func readOnlyReason(_ path: String) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        if access(path, W_OK) != 0 { return "the file cannot be written: \(String(cString: strerror(errno)))" }
        let folder = (path as NSString).deletingLastPathComponent
        if access(folder.isEmpty ? "." : folder, W_OK) != 0 {
            return "its folder cannot be written: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// The name SQLite opens a read-only store by: its path, or, when its folder cannot be written (a
    /// read-only mount) and no write-ahead log or shared-memory file is beside it, the path as a URI with
    /// `immutable=1`. In WAL mode SQLite needs the shared-memory file to read; it cannot create one in such
    /// a folder, and with no log beside the file every committed page is in the file itself, which no
    /// process can change through that mount.
    static func readOnlyName(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let logged = [path + "-wal", path + "-shm"].contains { file in
            ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.int64Value ?? 0 > 0
        }
        guard access(folder.isEmpty ? "." : folder, W_OK) != 0, !logged else { return path }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// The store opened read-only, or nil when it needs migrating and its file is writable.
    private static func openReadOnly(path: String) throws(StoreError) -> (any DatabaseWriter)? {
        let migrator = Self.migrator
        return try StoreError.wrap("opening the store \(path) for reading") {
            var configuration = Self.configuration()
            configuration.readonly = true
            let name = readOnlyName(path)
            let queue = try BusyRetry.run { try DatabaseQueue(path: name, configuration: configuration) }
            let current = try queue.read { db in
                if isCurrent(db) { return true }
                try checkIdentity(db, migrator: migrator, name: path)
                return try migrator.hasCompletedMigrations(db)
            }
            if current { return queue }
            guard access(path, W_OK) == 0 else {
                throw StoreError(.database, "\(path) was written by an older version of Proactive and is read-only here: "
                                 + "open it once where it is writable to upgrade it")
            }
            return nil
        }
    }

    /// A private in-memory database with the full schema (tests, scratch work).
    public static func inMemory() throws(StoreError) -> ProactiveDatabase {
        let queue = try StoreError.wrap("creating an in-memory store") { try DatabaseQueue(configuration: configuration()) }
        return try ProactiveDatabase(writer: queue, path: nil)
    }

    /// A store already checked and at the current schema (opened read-only).
    private init(current writer: any DatabaseWriter, path: String) {
        self.writer = writer
        self.path = path
    }

    private init(writer: any DatabaseWriter, path: String?) throws(StoreError) {
        self.writer = writer
        self.path = path
        try migrate()
    }

    /// The connections' configuration. `mapped`: the connection reads the file through a memory map even
    /// when it may write (a query's one connection, `OpenMode.oneConnection`); read-only ones always do.
    static func configuration(mapped: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "Proactive"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON; PRAGMA synchronous = NORMAL")
            // Read-only connections (a pool's readers, a store opened `.readOnly`) and a query's one connection
            // read the file through a memory map: a model state of megabytes is copied once from the map
            // instead of page by page through read(2) into SQLite's page cache. SQLite writes with write(2)
            // whatever the map (it does not write through it). A pool's writer keeps read(2).
            if mapped || db.configuration.readonly { try db.execute(sql: "PRAGMA mmap_size = \(mappedBytes)") }
        }
        return configuration
    }

    /// The most of a store file a read-only connection maps (`PRAGMA mmap_size`); the rest is read with read(2).
    static let mappedBytes = 1 << 30

    // MARK: Migrations

    /// The migrator with every registered migration.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.name, migrate: migration.apply)
        }
        return migrator
    }

    private var displayName: String { path ?? "in-memory store" }

    private func migrate() throws(StoreError) {
        let migrator = Self.migrator
        let name = displayName
        try StoreError.wrap("opening the store \(name)") {
            // A store that is up to date is only read (no write transaction, no lock): the common case of every query.
            let current = try writer.read { db in
                if Self.isCurrent(db) { return true }
                try Self.checkIdentity(db, migrator: migrator, name: name)
                return try migrator.hasCompletedMigrations(db)
            }
            if current { return }
            try writer.write { db in try Self.checkIdentity(db, migrator: migrator, name: name) }
            try Self.migrate(writer, with: migrator)
        }
    }

    /// Runs the pending migrations, tolerating other processes migrating the
    /// same new file at the same moment. GRDB reads the applied migrations
    /// once, then runs each pending one in its own transaction; when another
    /// opener applied one in between, ours fails ("table ... already exists")
    /// and is rolled back. Running the migrator again picks up from what is
    /// applied now, so an opener retries (each retry follows someone's
    /// progress, at most one per migration); a failure that is not such a
    /// race still surfaces once the retries are spent.
    private static func migrate(_ writer: any DatabaseWriter, with migrator: DatabaseMigrator) throws {
        var attempt = 0
        while true {
            do {
                try migrator.migrate(writer)
                return
            } catch {
                attempt += 1
                let completed = (try? writer.read { db in try migrator.hasCompletedMigrations(db) }) ?? false
                if completed { return }
                if attempt > migrations.count { throw error }
            }
        }
    }

    /// Whether the file is a Proactive store with exactly this build's migrations applied, in one
    /// statement: Proactive's `application_id`, as many applied migrations as `migrations` holds,
    /// and the last of them among them. Migrations are applied in order and never removed, so such a
    /// store holds every one of them and none this build does not know. False for anything else
    /// (a new file, a foreign one, an older or newer store, an unreadable one): `checkIdentity` and
    /// the migrator then look closer. The common case of every command, without the full check's
    /// statements through GRDB's migrator.
    static func isCurrent(_ db: Database) -> Bool {
        guard let last = migrations.last?.name else { return false }
        let row = try? Row.fetchOne(db, sql: """
            SELECT (SELECT application_id FROM pragma_application_id()) = ?,
                   (SELECT COUNT(*) FROM grdb_migrations) = ?,
                   EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)
            """, arguments: [applicationID, migrations.count, last])
        guard let row else { return false }
        return (row[0] as Bool?) == true && (row[1] as Bool?) == true && (row[2] as Bool?) == true
    }

    /// Refuses foreign files and newer schemas before any migration runs.
    private static func checkIdentity(_ db: Database, migrator: DatabaseMigrator, name: String) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        var tables = try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
            """)
        // Another process creating this file at the same moment may have made GRDB's
        // (still empty) migrations table before the first migration: the file is still new.
        if tables == ["grdb_migrations"], try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") == 0 { tables = [] }
        if applicationID != Self.applicationID {
            guard applicationID == 0, tables.isEmpty else {
                let owner = applicationID == 0 ? "tables \(tables.prefix(5).joined(separator: ", "))" : String(format: "application_id 0x%08X", applicationID)
                throw StoreError(.notAProactiveStore, "\(name) is not a Proactive store (it holds \(owner)); choose another file with --store")
            }
            return  // a new, empty file
        }
        if try migrator.hasBeenSuperseded(db) {
            let known = Set(migrations.map(\.name))
            let unknown = try migrator.appliedIdentifiers(db).subtracting(known).sorted()
            throw StoreError(.newerSchema, "\(name) was written by a newer version of Proactive (schema \(unknown.joined(separator: ", ")) is unknown to this build); upgrade proactive to open it")
        }
    }

    /// The names of the migrations applied to this file, oldest first.
    public func appliedMigrations() throws(StoreError) -> [String] {
        let migrator = Self.migrator
        return try StoreError.wrap("reading the schema version of \(displayName)") {
            try writer.read { db in try migrator.appliedMigrations(db) }
        }
    }

    // MARK: Health

    /// Runs `PRAGMA integrity_check` and `PRAGMA foreign_key_check`.
    /// - Returns: the problems found; empty when the file is sound.
    public func integrityProblems() throws(StoreError) -> [String] {
        try StoreError.wrap("checking the integrity of \(displayName)") {
            try writer.read { db in
                var problems = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
                let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                problems += violations.map { "foreign key violation in table \($0[0] as String? ?? "?"), row \($0[1] as Int64? ?? -1)" }
                return problems
            }
        }
    }
}

// MARK: - Migration

/// One named schema step. Names are versions: `"v<N>_<what>"`.
package struct SchemaMigration: Sendable {
    package let name: String
    package let apply: @Sendable (Database) throws -> Void

    package init(name: String, apply: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.apply = apply
    }
}
