import Benchmark
import BenchmarkSupport
import Foundation
import ProactiveCore
import ProactiveLab
import ProactiveModels
import ProactiveStore

// MARK: - Ingest and query
//
// In-process JSONL import into a fresh SQLite file (the store's streaming
// importer, default batch size), and reading one user's year of history.
// Peak memory for a 1,000,000-donation file is measured on the release CLI
// by scripts/benchmarks.sh (`/usr/bin/time -v proactive import`).

/// A scratch directory for this process's files, removed by the teardown.
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-bench-\(ProcessInfo.processInfo.processIdentifier)")

/// 100,000 simulated donations (the first of 160 users over 50 days) written as JSON Lines.
let ingestFile: (path: String, donations: Int) = {
    try! FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let path = scratch.appendingPathComponent("ingest.jsonl").path
    let donations = Simulation(SimulationConfiguration(users: 160, days: 50, seed: 21)).donations().prefix(100_000)
    precondition(donations.count == 100_000, "the simulation gave only \(donations.count) donations")
    let writer = try! DonationLogWriter(path: path)
    for donation in donations { try! writer.write(donation) }
    try! writer.close()
    return (path, writer.written)
}()

/// A store holding 20 simulated users' full year (about 6,000 donations each).
let historyStore: (store: SQLiteDonationStore, user: String, year: DateSpan) = {
    try! FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let configuration = SimulationConfiguration(users: 20, days: 365, seed: 23)
    let path = scratch.appendingPathComponent("history.sqlite").path
    let store = try! SQLiteDonationStore(path: path)
    // `.skip`: the simulator can emit one launch twice in a second, which the store keeps once.
    _ = try! store.append(Simulation(configuration).donations(), duplicates: .skip)
    let year = DateSpan(start: configuration.start, end: configuration.start.addingTimeInterval(365 * 86_400))
    return (store, Simulation(configuration).personas[7].user, year)
}()

let importRun = Box(0)

/// The service's group commit (`SQLiteDonationStore.appendEach(batches:)`) on a store shaped like
/// `dev/load-serve.sh`'s: 1,000 users already holding 300 donations each, the write connection
/// tuned as `proactive serve` tunes it, and each transaction two batches of 500 new donations for
/// random users (the load averaged 2.2 batches a transaction), each with its own identifier.
enum GroupCommit {
    static let users = 1_000
    static let history = 300
    static let batches = 2
    static let batchSize = 500
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    static let store: SQLiteDonationStore = {
        try! FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let database = try! ProactiveDatabase(path: scratch.appendingPathComponent("group-commit.sqlite").path)
        try! database.tuneForSustainedWrites()
        let store = SQLiteDonationStore(database: database)
        var donations: [Donation] = []
        donations.reserveCapacity(users * history)
        for n in 0 ..< users * history {
            donations.append(Donation(user: "user\(n % users)", app: "com.example.app\(n % 20)", intent: Donation.openIntent,
                                      date: start.addingTimeInterval(Double(n)), utcOffset: 0, identifier: "history-\(n)"))
        }
        _ = try! store.append(donations, duplicates: .skip)
        return store
    }()

    /// The next transaction's batches: new dates and identifiers every time, users drawn by a fixed-seed generator.
    static func nextBatches(_ round: Int, _ generator: inout SeededGenerator) -> [PreparedDonations] {
        (0 ..< batches).map { b in
            PreparedDonations((0 ..< batchSize).map { i in
                let n = (round * batches + b) * batchSize + i
                return Donation(user: "user\(generator.integer(in: 0 ... users - 1))", app: "com.example.app\(n % 20)",
                                intent: Donation.openIntent, date: start.addingTimeInterval(Double(users * history + n)), utcOffset: 0,
                                identifier: "load-\(n)")
            })
        }
    }
}

let groupCommitRound = Box(0)

let benchmarks: @Sendable () -> Void = {
    BenchmarkEnvironment.note(BenchmarkEnvironment.pinBLAS())
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .nanoseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20)

    Benchmark("ingest jsonl 100000 donations", configuration: .init(setup: {
        BenchmarkEnvironment.note("ingest file: \(ingestFile.donations) donations, \(ingestFile.path)")
    }, teardown: {
        try? FileManager.default.removeItem(at: scratch)
    })) { benchmark in
        importRun.value += 1
        let path = scratch.appendingPathComponent("ingest-\(importRun.value).sqlite").path
        let store = try SQLiteDonationStore(path: path)
        benchmark.startMeasurement()
        let summary = try DonationImporter(store: store).importJSONLines(path: ingestFile.path)
        benchmark.stopMeasurement()
        if summary.imported + summary.duplicates != ingestFile.donations {
            benchmark.error("stored \(summary.imported) (+\(summary.duplicates) already stored) of \(ingestFile.donations)")
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    Benchmark("group commit 2 batches of 500 donations 1000 users", configuration: .init(
        warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 300, setup: {
            BenchmarkEnvironment.note("group commit: \(try GroupCommit.store.count()) donations stored before the first transaction")
        }, teardown: {
            try? FileManager.default.removeItem(at: scratch)
        })) { benchmark in
        var generator = SeededGenerator(seed: UInt64(groupCommitRound.value))
        let batches = GroupCommit.nextBatches(groupCommitRound.value, &generator)
        groupCommitRound.value += 1
        benchmark.startMeasurement()
        let results = try GroupCommit.store.appendEach(batches: batches)
        benchmark.stopMeasurement()
        let stored = results.reduce(0) { sum, batch in sum + ((try? batch.get())?.filter { (try? $0.get()) == true }.count ?? 0) }
        if stored != GroupCommit.batches * GroupCommit.batchSize {
            benchmark.error("stored \(stored) of \(GroupCommit.batches * GroupCommit.batchSize) new donations")
        }
    }

    Benchmark("query one user year of history", configuration: .init(warmupIterations: 5, maxDuration: .seconds(3), maxIterations: 2_000, setup: {
        let history = historyStore
        BenchmarkEnvironment.note("history: \(try history.store.count()) donations; user \(history.user)")
    }, teardown: {
        try? FileManager.default.removeItem(at: scratch)
    })) { benchmark in
        let history = historyStore
        benchmark.startMeasurement()
        blackHole(try history.store.donations(forUser: history.user, in: history.year))
    }
}
