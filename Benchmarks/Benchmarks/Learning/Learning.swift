import Benchmark
import BenchmarkSupport
import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Learning
//
// Incremental learning (one donation folded into a fitted model) and full
// training (logistic and profile on 100,000 donations x 200 targets; the
// default model for 1,000 simulated users of 1,000 donations each, on every core).

/// A fitted model that keeps learning, with the user and the time of its latest event.
struct Learner<Model: FittedModel>: @unchecked Sendable {
    var model: Model
    let user: SyntheticUser
    var latest: Date
    var random: SeededGenerator

    init(targets: Int, events count: Int, fit: ([Event]) throws -> Model) {
        user = SyntheticUser(targets: targets, seed: 13)
        let events = user.events(count: count, days: 365)
        model = try! fit(events)
        latest = events.last!.date
        random = SeededGenerator(seed: 17)
    }

    /// Folds one new donation, 90 seconds after the previous one.
    mutating func learnOne() {
        let event = user.event(after: latest, seconds: 90, random: &random)
        latest = event.date
        model.update(with: event)
    }
}

let profileLearner = Box(Learner(targets: 1_000, events: SuggestScenario.eventCount(targets: 1_000)) { events in
    try ProfileTrainer().fit(TrainingSet(events: events))
})

/// The default model for a typical user: 100 targets, about a year of use (6,000 donations).
let blendLearner = Box(Learner(targets: 100, events: 6_000) { events in
    try BlendTrainer().fit(TrainingSet(events: events))
})

let trainingProblem = TrainingProblem()
let population = SimulatedPopulation()

let benchmarks: @Sendable () -> Void = {
    BenchmarkEnvironment.note(BenchmarkEnvironment.pinBLAS())
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .nanoseconds, warmupIterations: 20, maxDuration: .seconds(3), maxIterations: 20_000)

    // MARK: Incremental

    Benchmark("update profile 1000 targets", configuration: .init(setup: {
        BenchmarkEnvironment.pinBLAS()
        _ = profileLearner
    })) { benchmark in
        let box = profileLearner
        benchmark.startMeasurement()
        box.value.learnOne()
    }

    Benchmark("update default model 100 targets", configuration: .init(maxDuration: .seconds(10), setup: {
        BenchmarkEnvironment.pinBLAS()
        _ = blendLearner
    })) { benchmark in
        let box = blendLearner
        benchmark.startMeasurement()
        box.value.learnOne()
    }

    // MARK: Training

    let once = Benchmark.Configuration(warmupIterations: 0, maxDuration: .seconds(1), maxIterations: 3)

    var logistic = once
    logistic.setup = {
        BenchmarkEnvironment.pinBLAS()
        let training = trainingProblem.training
        BenchmarkEnvironment.note("training problem: \(training.events.count) donations, \(training.targets.count) targets")
    }
    Benchmark("train logistic 100000 donations 200 targets", configuration: logistic) { benchmark in
        let training = trainingProblem.training
        benchmark.startMeasurement()
        let model = try LogisticTrainer().fit(training)
        benchmark.stopMeasurement()
        BenchmarkEnvironment.note("logistic: \(model.lastIterations) L-BFGS iterations, \(model.layout.dimension) columns")
    }

    var profile = once
    profile.setup = {
        BenchmarkEnvironment.pinBLAS()
        _ = trainingProblem
    }
    Benchmark("train profile 100000 donations 200 targets", configuration: profile) { benchmark in
        let training = trainingProblem.training
        benchmark.startMeasurement()
        blackHole(try ProfileTrainer().fit(training))
    }

    var defaultModel = once
    defaultModel.maxIterations = 1
    defaultModel.setup = {
        BenchmarkEnvironment.pinBLAS()
        BenchmarkEnvironment.note("population: \(population.trainingSets.count) users, \(population.donationCount) donations")
    }
    Benchmark("train default model 1000 users 1000 donations", configuration: defaultModel) { benchmark in
        benchmark.startMeasurement()
        let failures = population.fitAll { try BlendTrainer().fit($0) }
        benchmark.stopMeasurement()
        if failures > 0 { benchmark.error("\(failures) users failed to fit") }
    }
}
