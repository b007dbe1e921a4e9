import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
import StoreConformance
import Testing

// MARK: - Store kinds under test

/// Every `DonationStore` implementation; conformance tests run against each.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqliteFile
    case sqliteInMemory
    case inMemory

    var testDescription: String { rawValue }

    /// A fresh, empty store (a new file each call). The directory keeps SQLite files for the test.
    func makeStore(in directory: TemporaryDirectory) throws -> any DonationStore {
        switch self {
        case .sqliteFile: return try SQLiteDonationStore(path: directory.file("store-\(UUID().uuidString).sqlite"))
        case .sqliteInMemory: return SQLiteDonationStore(database: try ProactiveDatabase.inMemory())
        case .inMemory: return InMemoryDonationStore()
        }
    }
}

// MARK: - Files

/// A directory removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "proactive-store-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to a file in the directory and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }
}

enum Fixtures {
    static func path(_ name: String) throws -> String {
        let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return directory.appendingPathComponent(name).path
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }
}

/// Creates a store file at `path` with the migrations up to and including
/// `last` only (a store written by an earlier version), runs `body` on it,
/// and closes it; opening it with `ProactiveDatabase` then runs the rest.
func migrated(_ path: String, upTo last: String, _ body: (Database) throws -> Void) throws {
    let queue = try DatabaseQueue(path: path, configuration: ProactiveDatabase.configuration())
    try ProactiveDatabase.migrator.migrate(queue, upTo: last)
    try queue.write(body)
    try queue.close()
}
