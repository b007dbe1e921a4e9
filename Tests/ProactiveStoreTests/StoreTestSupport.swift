import Foundation
import GRDB
import ProactiveCore
@testable import ProactiveStore
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

// MARK: - Sample donations

/// 2026-11-20T00:00:00Z, the day the samples happen.
let sampleDay: Double = 1_795_132_800

/// A donation at `sampleDay + minutes`, with millisecond-exact dates.
func sample(
    user: String = "u1", app: String = "com.example.weather", intent: String = "CheckWeatherIntent",
    minutes: Double = 0, identifier: String? = nil, group: String? = nil, count: Int = 1,
    parameters: [String: ParameterValue] = [:], context: [String: String] = [:], utcOffset: Int? = -8 * 3600
) -> Donation {
    Donation(user: user, app: app, intent: intent, parameters: parameters,
             date: Date(timeIntervalSince1970: sampleDay + minutes * 60), utcOffset: utcOffset,
             identifier: identifier, group: group, context: context, count: count)
}

extension DonationStore {
    /// Every donation in export order (small stores only).
    func all(pageSize: Int = 3) throws -> [Donation] {
        var result: [Donation] = []
        try forEachDonation(pageSize: pageSize) { result.append($0) }
        return result
    }

    func identifiers() throws -> [String] { try all().compactMap(\.identifier) }
}

/// The error a throwing expression produced, as a `StoreError`.
func storeError(_ body: () throws -> Void) -> StoreError? {
    do { try body() } catch { return error as? StoreError }
    return nil
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
