import Benchmark
import BenchmarkSupport
import ProactiveModels
import ProactiveRanking

// MARK: - Ranking latency
//
// One full `suggest` for one user at one moment (encode the moment, score all
// targets, softmax, fuse with relevance windows and feedback, select and build
// the top 4), next to the raw `cblas_sgemv` of the same targets x columns
// shape and of its dense part alone (the product the engine runs), and one
// Smart Stack decision; and the default model's `suggest` beside the profile
// path's on the same user at 20, 1,000 and 10,000 targets (`suggest default N
// targets`, `suggest profile path N targets`). Each scenario is built lazily in
// the benchmark's setup, so only the one being run is in memory.

let scenario100 = SuggestScenario(targets: 100)
let scenario1k = SuggestScenario(targets: 1_000)
let scenario10k = SuggestScenario(targets: 10_000)

func scenario(_ targets: Int) -> SuggestScenario {
    switch targets {
    case 100: return scenario100
    case 1_000: return scenario1k
    default: return scenario10k
    }
}

let rankers = [100, 1_000, 10_000].map { targets in Box<SuggestionRanker?>(nil) }

func rankerBox(_ targets: Int) -> Box<SuggestionRanker?> {
    let box = rankers[targets == 100 ? 0 : targets == 1_000 ? 1 : 2]
    if box.value == nil { box.value = SuggestionRanker(ranker: scenario(targets).ranker) }
    return box
}

/// The wide-shape blend user, built on first use (seconds of training).
let blendScenario = Box(BlendSuggestScenario(targets: 1_000))
let blendRanker = Box(SuggestionRanker(ranker: blendScenario.value.ranker))

/// The default model and the profile path on the same user, at 20, 1,000 and 10,000 targets
/// (`BlendSuggestScenario`: 5,000 events, 20,000 at 10,000 targets so every target has uses),
/// each built on first use (seconds of training; the 10,000-target one about a minute).
let defaultTargetCounts = [20, 1_000, 10_000]
let defaultScenarios = defaultTargetCounts.map { _ in Box<(scenario: BlendSuggestScenario, ranker: SuggestionRanker)?>(nil) }

/// Events of the default-model scenario at `targets` targets.
func defaultEventCount(_ targets: Int) -> Int { max(5_000, 2 * targets) }

func defaultScenarioBox(_ targets: Int) -> Box<(scenario: BlendSuggestScenario, ranker: SuggestionRanker)?> {
    let box = defaultScenarios[defaultTargetCounts.firstIndex(of: targets)!]
    if box.value == nil {
        let scenario = BlendSuggestScenario(targets: targets, events: defaultEventCount(targets))
        box.value = (scenario, SuggestionRanker(ranker: scenario.ranker))
    }
    return box
}

/// Raw gemv of each scenario's scoring shape, and of its dense part alone
/// (built from the scenario so the shapes are exact).
let gemvs = [100, 1_000, 10_000].map { _ in Box<(gemv: RawGemv, y: [Float])?>(nil) }
let denseGemvs = [100, 1_000, 10_000].map { _ in Box<(gemv: RawGemv, y: [Float])?>(nil) }

func gemvBox(_ targets: Int, densePart: Bool = false) -> Box<(gemv: RawGemv, y: [Float])?> {
    let box = (densePart ? denseGemvs : gemvs)[targets == 100 ? 0 : targets == 1_000 ? 1 : 2]
    if box.value == nil {
        let shape = densePart ? scenario(targets).denseShape : scenario(targets).scoringShape
        box.value = (RawGemv(rows: shape.rows, columns: shape.columns), [Float](repeating: 0, count: shape.rows))
    }
    return box
}

let benchmarks: @Sendable () -> Void = {
    BenchmarkEnvironment.note(BenchmarkEnvironment.pinBLAS())
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .nanoseconds, warmupIterations: 20, maxDuration: .seconds(3), maxIterations: 20_000)

    for targets in [100, 1_000, 10_000] {
        Benchmark("suggest \(targets) targets", configuration: .init(setup: {
            BenchmarkEnvironment.pinBLAS()
            let shape = scenario(targets).scoringShape
            BenchmarkEnvironment.note("suggest \(targets): scoring matrix \(shape.rows) x \(shape.columns); \(BenchmarkEnvironment.blasLine)")
            _ = rankerBox(targets)
        })) { benchmark in
            let scenario = scenario(targets)
            let box = rankerBox(targets)
            benchmark.startMeasurement()
            blackHole(scenario.suggest(with: &box.value!))
        }

        Benchmark("sgemv \(targets) targets", configuration: .init(setup: {
            BenchmarkEnvironment.pinBLAS()
            _ = gemvBox(targets)
        })) { benchmark in
            let box = gemvBox(targets)
            benchmark.startMeasurement()
            box.value!.gemv.run(into: &box.value!.y)
            blackHole(box.value!.y[0])
        }

        Benchmark("sgemv dense part \(targets) targets", configuration: .init(setup: {
            BenchmarkEnvironment.pinBLAS()
            _ = gemvBox(targets, densePart: true)
        })) { benchmark in
            let box = gemvBox(targets, densePart: true)
            benchmark.startMeasurement()
            box.value!.gemv.run(into: &box.value!.y)
            blackHole(box.value!.y[0])
        }
    }

    // MARK: The default model at the wide shape (1,000 targets, 5,000 events)

    Benchmark("suggest blend 1000 targets", configuration: .init(setup: {
        BenchmarkEnvironment.pinBLAS()
        BenchmarkEnvironment.note("suggest blend 1000: \(blendScenario.value.events.count) events; \(BenchmarkEnvironment.blasLine)")
        _ = blendRanker
    })) { benchmark in
        let scenario = blendScenario.value
        benchmark.startMeasurement()
        blackHole(scenario.suggest(with: &blendRanker.value))
    }

    // MARK: The default model beside the profile path, same user, same moment, same ranker

    let paths: [(name: String, suggest: @Sendable (BlendSuggestScenario, inout SuggestionRanker) -> [Suggestion])] = [
        ("suggest default", { $0.suggest(with: &$1) }), ("suggest profile path", { $0.suggestProfilePath(with: &$1) }),
    ]
    for targets in defaultTargetCounts {
        for path in paths {
            Benchmark("\(path.name) \(targets) targets", configuration: .init(setup: {
                BenchmarkEnvironment.pinBLAS()
                let scenario = defaultScenarioBox(targets).value!.scenario
                BenchmarkEnvironment.note("\(path.name) \(targets): \(scenario.events.count) events; \(BenchmarkEnvironment.blasLine)")
            })) { benchmark in
                let box = defaultScenarioBox(targets)
                let scenario = box.value!.scenario
                benchmark.startMeasurement()
                blackHole(path.suggest(scenario, &box.value!.ranker))
            }
        }
    }

    Benchmark("blend scores 1000 targets", configuration: .init(setup: {
        BenchmarkEnvironment.pinBLAS()
        _ = blendScenario
    })) { benchmark in
        let scenario = blendScenario.value
        benchmark.startMeasurement()
        blackHole(scenario.logScores())
    }

    // MARK: Smart Stack

    Benchmark("smart stack decision 10 widgets", configuration: .init(setup: {
        BenchmarkEnvironment.pinBLAS()
        _ = scenario(100)
    })) { benchmark in
        let scenario = scenario(100)
        let engine = SmartStackEngine(ranker: scenario.ranker)
        var state = StackState()
        benchmark.startMeasurement()
        blackHole(scenario.decideStack(with: engine, state: &state))
    }

    Benchmark("smart stack step only 10 widgets", configuration: .init(setup: {
        BenchmarkEnvironment.pinBLAS()
        _ = scenario(100)
        _ = stackDistribution
    })) { benchmark in
        let scenario = scenario(100)
        let engine = SmartStackEngine(ranker: scenario.ranker)
        var state = StackState()
        benchmark.startMeasurement()
        blackHole(engine.step(scenario.stack, distribution: stackDistribution, moment: scenario.moment, state: &state))
    }
}

/// The 100-target model's probabilities at the scenario's moment (the step-only benchmark's input).
let stackDistribution = scenario100.model.distribution(at: scenario100.moment)
