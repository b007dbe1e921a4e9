import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactivePostgres
import ProactiveService

// MARK: - Store location

/// `--store PATH`, `--database URL` and `--as-app APP`, shared by every command that opens the store.
///
/// The store is, in order: `--store` (a file, or a `postgres://` URL), `--database` (a
/// PostgreSQL URL), the environment variable `PROACTIVE_DATABASE_URL` (a URL), `PROACTIVE_STORE`
/// (as `--store`), `./proactive.sqlite`. SQLite is the embedded default; a PostgreSQL database
/// is the same store for several `serve` instances and the owner's commands.
///
/// **Who acts.** Without `--as-app` a command runs in administrative mode
/// (the device owner: every app's data). `--as-app A` runs it as app A,
/// which sees and changes only its own donations, relevant shortcuts,
/// timelines and Focus filter (`StoreAccess`). Commands that support app
/// mode open the store with `appMode: .scoped`; every other command
/// refuses `--as-app` when it opens the store.
struct StoreOptions: ParsableArguments {
    static let environmentVariable = "PROACTIVE_STORE"
    static let databaseVariable = "PROACTIVE_DATABASE_URL"
    static let defaultPath = "proactive.sqlite"

    @Option(name: .long, help: ArgumentHelp(
        "The store file, or a postgres:// URL (default: $\(databaseVariable), $\(environmentVariable), else ./\(defaultPath)).",
        valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "A PostgreSQL database as the store: postgres://USER[:PASSWORD]@HOST[:PORT]/NAME, or ?host=/socket/dir for a Unix socket (default: $\(databaseVariable)).",
        valueName: "url"))
    var database: String?

    @Option(name: .customLong("as-app"), help: ArgumentHelp(
        "Act as this app: see and change only its own data (default: the device owner, every app).", valueName: "bundle-id"))
    var asApp: String?

    /// The store this invocation uses, as given (a file path or a database URL).
    var path: String {
        if let store { return store }
        if let database { return database }
        // getenv, not ProcessInfo's environment: that builds a dictionary of every variable on first use.
        if let url = getenv(Self.databaseVariable).map({ String(cString: $0) }), !url.isEmpty { return url }
        if let fromEnvironment = getenv(Self.environmentVariable).map({ String(cString: $0) }), !fromEnvironment.isEmpty { return fromEnvironment }
        return Self.defaultPath
    }

    /// The store for messages: the path, or the URL without its password.
    var displayName: String {
        switch location {
        case let .file(path): path
        case let .database(url): PostgresLocation.redacted(url)
        }
    }

    /// What kind of store `path` names. The one place a location becomes a backend.
    enum Location {
        /// A SQLite file.
        case file(String)
        /// A PostgreSQL database (`postgres://` or `postgresql://`).
        case database(String)
    }

    var location: Location {
        let path = path
        return Self.isDatabaseURL(path) ? .database(path) : .file(path)
    }

    static func isDatabaseURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Every file the store owns, named after its path: the store, its SQLite `-wal`, `-shm` and
    /// `-journal` files, and the service's credential files (`CredentialFiles`). Commands that write
    /// a file the user names refuse these.
    var ownedFiles: [String] {
        switch location {
        case let .file(path):
            let credentials = CredentialFiles(storePath: path)
            return [path, path + "-wal", path + "-shm", path + "-journal", credentials.appsPath, credentials.ownerPath]
        case .database: return []
        }
    }

    /// The service's credentials: the files beside a store file (without opening the store), or
    /// the database's tables (the database opened, and migrated, as other commands open it).
    var credentials: any CredentialRecordStore {
        get throws {
            switch location {
            case let .file(path): return CredentialFiles(storePath: path)
            case .database: return try openStorage().credentials
            }
        }
    }

    /// Whether the store is a file this process cannot write (a read-only file, folder or mount): a
    /// command that only reads opens it `.readOnly` then.
    var isReadOnlyFile: Bool {
        if case let .file(path) = location { return SQLiteBackend.readOnlyReason(path: path) != nil }
        return false
    }

    /// The acting party: the device owner, or the app given with `--as-app`.
    var access: StoreAccess { asApp.map(StoreAccess.app) ?? .administrator }

    /// Whether the calling command supports app mode.
    enum AppMode {
        /// The command works on every app's data: `--as-app` is refused.
        case refused
        /// The command scopes what it does to the acting app itself.
        case scoped
    }

    func validate() throws {
        if store != nil, database != nil { throw ValidationError("give the store with --store or --database, not both") }
        if let database, !Self.isDatabaseURL(database) {
            throw ValidationError("--database needs a postgres:// or postgresql:// URL, not \"\(database)\" (a store file is --store)")
        }
        if asApp?.isEmpty == true { throw ValidationError("--as-app needs a bundle identifier") }
        if let asApp, let problem = IdentifierRules.bundleIdentifierProblem(asApp) { throw ValidationError("--as-app: \(problem)") }
    }

    /// Opens the store, creating and migrating it unless `mode` says it must exist: the location →
    /// store step every command goes through (`serve` hands the store to the service).
    /// - Throws: `.accessDenied` in app mode unless the command declares `appMode: .scoped`; what
    ///   opening the store throws, naming it.
    func openStorage(_ mode: StoreOpenMode = .createIfMissing, appMode: AppMode = .refused) throws -> any StoreBackend {
        try check(appMode)
        switch location {
        case let .file(path): return try SQLiteBackend(path: path, mode: mode)
        case let .database(url): return try PostgresBackend(url: url, mode: mode)
        }
    }

    /// The engine on the store, acting as the acting party (see `openStorage` for `appMode`): the
    /// way every command but `serve` reaches the store.
    func openEngine(_ mode: StoreOpenMode = .createIfMissing, appMode: AppMode = .refused) throws -> Engine {
        Engine(storage: try openStorage(mode, appMode: appMode), access: access)
    }

    /// Refuses `--as-app` to a command that works on every app's data.
    private func check(_ appMode: AppMode) throws {
        if appMode == .refused { try access.requireAdministrator(to: "run this command (it works on every app's data)") }
    }
}

extension StoreOptions {
    /// A store named by another option (`copy --from` and `--to`): a file or a database URL, the owner acting.
    /// - Throws: ArgumentParser's error for a value `--store` refuses.
    static func named(_ store: String) throws -> StoreOptions { try parse(["--store", store]) }
}
