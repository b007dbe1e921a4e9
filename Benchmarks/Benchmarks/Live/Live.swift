import Benchmark
import BenchmarkSupport
import Foundation
import ProactiveCore
import ProactiveEngine
import ProactiveLab
import ProactiveModels
import ProactiveStore

// MARK: - Live models
//
// The heavy simulated user of the live-model issue (`proactive simulate
// --users 1 --days 365 --seed 3 --noise 100`, about 40,000 donations) in a
// store file, trained once. Measured in process:
// - loading the user's live state: read the saved row, decode the model and
//   its target catalogue, check the store for changes (none);
// - folding one new donation into that user's model (`update(with:)`).

/// A store with the heavy user trained, in a temporary directory.
final class HeavyStore: @unchecked Sendable {
    let engine: Engine
    let user: String
    var model: BlendModel
    var latest: Date

    init() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-live-bench-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let donations = Simulation(SimulationConfiguration(users: 1, days: 365, seed: 3, noisePerDay: 100)).donations()
        engine = try! Engine(path: directory.appendingPathComponent("heavy.sqlite").path)
        try! engine.setRetention(.keepAll)
        _ = try! engine.donate(batch: donations)  // the simulator repeats a few launches: stored once, the repeats reported as duplicates
        user = donations[0].user
        let live = try! engine.train(user: user)
        model = live.model as! BlendModel
        latest = donations.last!.date
        BenchmarkEnvironment.note("heavy user: \(donations.count) donations, \(live.targets.count) targets, state \(live.model.serialized().count) bytes")
    }

    /// A new donation of a known target, 90 s after the previous one.
    func nextEvent() -> Event {
        latest = latest.addingTimeInterval(90)
        let target = model.space.target(at: TargetIndex(Int(latest.timeIntervalSince1970 / 90) % model.space.targetCount))
        return Event(target: target, date: latest, utcOffset: 0)
    }
}

let heavy = Box(HeavyStore())

let benchmarks: @Sendable () -> Void = {
    BenchmarkEnvironment.note(BenchmarkEnvironment.pinBLAS())
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .microseconds, warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 200)

    Benchmark("load live state heavy user 40000 donations", configuration: .init(setup: {
        BenchmarkEnvironment.pinBLAS()
        _ = heavy
    })) { benchmark in
        let store = heavy.value
        benchmark.startMeasurement()
        let live = try store.engine.liveModel(user: store.user)
        benchmark.stopMeasurement()
        if live.refitted || live.folded > 0 { benchmark.error("the state was refitted or caught up: not a plain load") }
        blackHole(live)
    }

    Benchmark("fold one donation heavy user 40000 donations", configuration: .init(
        timeUnits: .nanoseconds, warmupIterations: 20, maxDuration: .seconds(5), maxIterations: 5_000,
        setup: { BenchmarkEnvironment.pinBLAS(); _ = heavy })) { benchmark in
        let store = heavy.value
        let event = store.nextEvent()
        benchmark.startMeasurement()
        store.model.update(with: event)
    }
}
