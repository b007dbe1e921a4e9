import Foundation
import GRDB
import ProactiveCore
import ProactiveLab
import ProactiveModels
@testable import ProactiveEngine
@testable import ProactiveStore

extension Engine {
    /// The SQLite database under an engine these tests opened on a file or in memory.
    var database: ProactiveDatabase { (storage as! SQLiteBackend).database }
}

/// A store file in a fresh temporary directory (removed with the fixture).
final class TemporaryStore: @unchecked Sendable {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("store.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func engine() throws -> Engine {
        let engine = try Engine(path: path)
        try SQLitePrivacyStore(database: engine.database).setRetention(.keepAll)
        return engine
    }

    /// Whether the store file or its write-ahead log holds `text`.
    func filesContain(_ text: String) -> Bool {
        [path, path + "-wal"].contains { file in
            guard let data = FileManager.default.contents(atPath: file) else { return false }
            return data.range(of: Data(text.utf8)) != nil
        }
    }
}

/// The bundled sample log (one user, four weeks), in file order.
func sampleLog() throws -> [Donation] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("datasets/sample/donations.jsonl")
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { try DonationLineCodec.decode(String($0)) }
}

/// A simulated log: `users` people, `days` days, fixed seed.
func simulatedLog(users: Int = 2, days: Int = 21, seed: UInt64 = 7) -> [Donation] {
    Simulation(SimulationConfiguration(users: users, days: days, seed: seed)).donations()
}

/// The 1-based rank of `target` in the distribution (0 when absent), in `scores(at:)` order.
func rank(of target: TargetKey, in distribution: TargetDistribution) -> Int {
    (distribution.ranked().firstIndex { $0.target == target } ?? -1) + 1
}
