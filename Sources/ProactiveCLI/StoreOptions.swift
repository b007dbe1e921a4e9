import ArgumentParser
import Foundation
import ProactiveStore

// MARK: - Store location

/// `--store PATH`, shared by every command that opens the store.
///
/// The path is, in order: `--store`, the environment variable
/// `PROACTIVE_STORE`, `./proactive.sqlite`.
struct StoreOptions: ParsableArguments {
    static let environmentVariable = "PROACTIVE_STORE"
    static let defaultPath = "proactive.sqlite"

    @Option(name: .long, help: ArgumentHelp(
        "The store file (default: $\(environmentVariable), else ./\(defaultPath)).", valueName: "path"))
    var store: String?

    /// The store file this invocation uses.
    var path: String {
        if let store { return store }
        if let fromEnvironment = ProcessInfo.processInfo.environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return Self.defaultPath
    }

    /// Opens the database, creating and migrating it unless `mode` says it must exist.
    func openDatabase(_ mode: ProactiveDatabase.OpenMode = .createIfMissing) throws -> ProactiveDatabase {
        try ProactiveDatabase(path: path, mode: mode)
    }

    /// Opens the donation store.
    func openDonations(_ mode: ProactiveDatabase.OpenMode = .createIfMissing) throws -> SQLiteDonationStore {
        SQLiteDonationStore(database: try openDatabase(mode))
    }
}
