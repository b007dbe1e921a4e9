import ArgumentParser
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveService
import ProactiveStore

// MARK: - Store location

/// `--store PATH` and `--as-app APP`, shared by every command that opens the store.
///
/// The path is, in order: `--store`, the environment variable
/// `PROACTIVE_STORE`, `./proactive.sqlite`.
///
/// **Who acts.** Without `--as-app` a command runs in administrative mode
/// (the device owner: every app's data). `--as-app A` runs it as app A,
/// which sees and changes only its own donations, relevant shortcuts,
/// timelines and Focus filter (`StoreAccess`). Commands that support app
/// mode open the store with `appMode: .scoped`; every other command
/// refuses `--as-app` when it opens the store.
struct StoreOptions: ParsableArguments {
    static let environmentVariable = "PROACTIVE_STORE"
    static let defaultPath = "proactive.sqlite"

    @Option(name: .long, help: ArgumentHelp(
        "The store file (default: $\(environmentVariable), else ./\(defaultPath)).", valueName: "path"))
    var store: String?

    @Option(name: .customLong("as-app"), help: ArgumentHelp(
        "Act as this app: see and change only its own data (default: the device owner, every app).", valueName: "bundle-id"))
    var asApp: String?

    /// The store this invocation uses, as given: a file path (SQLite).
    var path: String {
        if let store { return store }
        if let fromEnvironment = ProcessInfo.processInfo.environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return Self.defaultPath
    }

    /// What kind of store `path` names. The one place a location becomes a backend: another
    /// database (a `postgres://` URL) is a case here and a branch in `openStorage`.
    enum Location {
        /// A SQLite file.
        case file(String)
    }

    var location: Location { .file(path) }

    /// Every file the store owns, named after its path: the store, its SQLite `-wal`, `-shm` and
    /// `-journal` files, and the service's credential files (`CredentialStore`). Commands that write
    /// a file the user names refuse these.
    var ownedFiles: [String] {
        switch location {
        case let .file(path):
            let credentials = CredentialStore(storePath: path)
            return [path, path + "-wal", path + "-shm", path + "-journal", credentials.appsPath, credentials.ownerPath]
        }
    }

    /// The service's credentials: the files beside the store file.
    var credentials: CredentialStore {
        switch location {
        case let .file(path): CredentialStore(storePath: path)
        }
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
