import BenchmarkSupport
import Foundation
import ProactiveCore
import ProactiveModels
import ProactiveRanking
import ProactiveStore

// MARK: - engine-peer
//
// The engine's side of dev/compare-python.sh, release-built, in the same
// run as the Python peer:
//
//   engine-peer OUTDIR [--iterations N] [--targets 1000,10000] [--skip-training] [--suggest-only]
//   engine-peer OUTDIR --ingest FILE     (only: import FILE into OUTDIR/ingest.sqlite,
//                                         the store's importer in-process, for profilers)
//   engine-peer OUTDIR --blend [--iterations N] [--targets 20,1000,10000]
//                                        (only: the default model beside the profile path and
//                                         its peer state, for dev/blend-peer.sh)
//
// 1. For each target count: p50/p99 of one full `suggest`, of the raw
//    `sgemv` of the same targets x features shape, and of the raw `sgemv` of
//    the dense part alone (the shape the engine multiplies; it stores it in
//    single precision and sums in double) and its `dgemv`, plus the shapes
//    and the number of timed calls (the peer uses the same). `--suggest-only`
//    times `suggest` alone (no parts, no raw products, no training): a loop
//    for profilers (`perf record`), the raw products not drowning it.
// 2. Fits the logistic model on the training problem (100,000 donations x
//    200 targets), times it, and exports the design matrix, labels and
//    weights (`TrainingProblem.export`) so the peer trains on the same data
//    and both log-losses are computed by the same code.
// Writes OUTDIR/engine.json.
//
// With --blend, instead: for each target count, the default model's `suggest` (top 4) and the
// profile path's on the same user and moment (`BlendSuggestScenario`: 5,000 events, 2 per target
// above 2,500 targets), and the blend's log-scores alone, p50/p99 over the same timed calls; and
// the model's state at the moment (`BlendModel.peerState(at:)`) in OUTDIR/blend-N/, which the numpy
// peer reads. Writes OUTDIR/engine-blend.json.

func usage() -> Never {
    FileHandle.standardError.write(Data(("usage: engine-peer OUTDIR [--iterations N] [--targets 1000,10000] [--skip-training] [--suggest-only]"
        + " | OUTDIR --ingest FILE | OUTDIR --blend [--iterations N] [--targets 20,1000,10000]\n").utf8))
    exit(64)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let outputPath = arguments.first, !outputPath.hasPrefix("-") else { usage() }
arguments.removeFirst()
var iterations = 5_000
var targetCounts = [1_000, 10_000]
var skipTraining = false
var suggestOnly = false
var ingestPath: String?
var blend = false
while !arguments.isEmpty {
    let flag = arguments.removeFirst()
    if flag == "--blend" {
        blend = true
        if !CommandLine.arguments.contains("--targets") { targetCounts = [20, 1_000, 10_000] }
        continue
    }
    if flag == "--skip-training" || flag == "--suggest-only" {
        skipTraining = true
        suggestOnly = suggestOnly || flag == "--suggest-only"
        continue
    }
    guard let value = arguments.first else { usage() }
    arguments.removeFirst()
    switch flag {
    case "--iterations": iterations = Int(value) ?? 0
    case "--targets": targetCounts = value.split(separator: ",").compactMap { Int($0) }
    case "--ingest": ingestPath = value
    default: usage()
    }
}
guard iterations >= 100, !targetCounts.isEmpty, targetCounts.allSatisfy({ $0 >= 1 }) else { usage() }

let output = URL(fileURLWithPath: outputPath)
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
let blas = BenchmarkEnvironment.pinBLAS()
BenchmarkEnvironment.note(blas)

// MARK: Ingest only

if let ingestPath {
    let storePath = output.appendingPathComponent("ingest.sqlite").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
    let summary = try DonationImporter(store: try SQLiteDonationStore(path: storePath)).importJSONLines(path: ingestPath)
    BenchmarkEnvironment.note("stored \(summary.imported) (+\(summary.duplicates) already stored) of \(summary.lines) lines into \(storePath)")
    exit(summary.imported + summary.duplicates == summary.lines ? 0 : 1)
}

// MARK: Ranking latency

/// Timed calls at a target count: `iterations` up to 1,000 targets, fewer above
/// (a 10,000-target product reads hundreds of MB); the peer uses the same rule.
func latencyIterations(_ iterations: Int, targets: Int) -> Int { max(100, iterations * 1_000 / max(targets, 1_000)) }

// MARK: The default model beside the profile path (--blend)

if blend {
    var entries: [[String: Any]] = []
    for targets in targetCounts {
        let start = DispatchTime.now().uptimeNanoseconds
        let scenario = BlendSuggestScenario(targets: targets, events: max(5_000, 2 * targets))
        let fitSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var ranker = SuggestionRanker(ranker: scenario.ranker)
        let calls = latencyIterations(iterations, targets: targets)
        let blendSuggest = LatencySamples.measure(iterations: calls) { precondition(scenario.suggest(with: &ranker).count == min(4, targets)) }
        let profileSuggest = LatencySamples.measure(iterations: calls) {
            precondition(scenario.suggestProfilePath(with: &ranker).count == min(4, targets))
        }
        let logScores = LatencySamples.measure(iterations: calls) { precondition(scenario.logScores().count == targets) }
        let directory = output.appendingPathComponent("blend-\(targets)")
        try scenario.model.peerState(at: scenario.moment).write(to: directory)
        let top = scenario.suggest(with: &ranker).map { "\($0.target)" }
        BenchmarkEnvironment.note("targets \(targets) (\(scenario.events.count) events, fitted in \(String(format: "%.1f", fitSeconds)) s): "
            + "default suggest p50 \(blendSuggest.percentile(50)) us, profile path p50 \(profileSuggest.percentile(50)) us, "
            + "blend log-scores p50 \(logScores.percentile(50)) us over \(calls) calls")
        entries.append([
            "targets": targets, "events": scenario.events.count, "iterations": calls, "state": directory.path,
            "default_suggest_p50_us": blendSuggest.percentile(50), "default_suggest_p99_us": blendSuggest.percentile(99),
            "profile_suggest_p50_us": profileSuggest.percentile(50), "profile_suggest_p99_us": profileSuggest.percentile(99),
            "blend_log_scores_p50_us": logScores.percentile(50), "blend_log_scores_p99_us": logScores.percentile(99),
            "top": top,
        ])
    }
    let report: [String: Any] = ["blas": blas, "shapes": entries]
    let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
    try json.write(to: output.appendingPathComponent("engine-blend.json"))
    print(output.appendingPathComponent("engine-blend.json").path)
    exit(0)
}

var shapes: [[String: Any]] = []
for targets in targetCounts {
    let scenario = SuggestScenario(targets: targets)
    var ranker = SuggestionRanker(ranker: scenario.ranker)
    let iterations = latencyIterations(iterations, targets: targets)
    let suggest = LatencySamples.measure(iterations: iterations) {
        let top = scenario.suggest(with: &ranker)
        precondition(!top.isEmpty, "suggest returned nothing")
    }
    if suggestOnly {
        BenchmarkEnvironment.note("targets \(targets): suggest p50 \(suggest.percentile(50)) us over \(iterations) calls")
        shapes.append(["targets": targets, "iterations": iterations, "suggest_p50_us": suggest.percentile(50),
                       "suggest_p99_us": suggest.percentile(99)])
        continue
    }
    // Its parts: the log-scores (the products), the distribution (plus the softmax), the ranking alone.
    let logScores = LatencySamples.measure(iterations: iterations) { precondition(!scenario.model.logScores(at: scenario.moment).isEmpty) }
    let distributionOnly = LatencySamples.measure(iterations: iterations) { precondition(scenario.model.distribution(at: scenario.moment).count == targets) }
    let distribution = scenario.model.distribution(at: scenario.moment)
    let rankingOnly = LatencySamples.measure(iterations: iterations) {
        precondition(!ranker.suggest(distribution, moment: scenario.moment, k: 4).isEmpty)
    }
    let shape = scenario.scoringShape
    let gemv = RawGemv(rows: shape.rows, columns: shape.columns)
    var y = [Float](repeating: 0, count: shape.rows)
    let raw = LatencySamples.measure(iterations: iterations) { gemv.run(into: &y) }
    let dense = scenario.denseShape
    let denseGemv = RawGemv(rows: dense.rows, columns: dense.columns)
    let rawDense = LatencySamples.measure(iterations: iterations) { denseGemv.run(into: &y) }
    let denseDgemv = RawDgemv(rows: dense.rows, columns: dense.columns)
    var yDouble = [Double](repeating: 0, count: shape.rows)
    let rawDenseDouble = LatencySamples.measure(iterations: iterations) { denseDgemv.run(into: &yDouble) }
    BenchmarkEnvironment.note("targets \(targets): suggest p50 \(suggest.percentile(50)) us, sgemv p50 \(raw.percentile(50)) us, "
        + "dense-part sgemv (\(dense.rows) x \(dense.columns)) p50 \(rawDense.percentile(50)) us, "
        + "dense-part dgemv p50 \(rawDenseDouble.percentile(50)) us; parts: log-scores p50 \(logScores.percentile(50)) us, "
        + "distribution p50 \(distributionOnly.percentile(50)) us, ranking p50 \(rankingOnly.percentile(50)) us")
    shapes.append([
        "targets": shape.rows, "columns": shape.columns, "dense_columns": dense.columns, "iterations": iterations,
        "suggest_p50_us": suggest.percentile(50), "suggest_p99_us": suggest.percentile(99),
        "sgemv_p50_us": raw.percentile(50), "sgemv_p99_us": raw.percentile(99),
        "sgemv_dense_p50_us": rawDense.percentile(50), "sgemv_dense_p99_us": rawDense.percentile(99),
        "dgemv_dense_p50_us": rawDenseDouble.percentile(50), "dgemv_dense_p99_us": rawDenseDouble.percentile(99),
        "log_scores_p50_us": logScores.percentile(50), "distribution_p50_us": distributionOnly.percentile(50),
        "ranking_p50_us": rankingOnly.percentile(50),
    ])
}

// MARK: Training

/// Fits the logistic model on the training problem, exports it, and returns its report entry.
func trainLogistic(exportingTo output: URL) throws -> [String: Any] {
    let problem = TrainingProblem()
    // Every previous-target pair learned, as scikit-learn fits the dense one-hot block: one objective for both.
    var configuration = LogisticConfiguration()
    configuration.allPreviousPairs = true
    let start = DispatchTime.now().uptimeNanoseconds
    let model = try LogisticTrainer(configuration: configuration).fit(problem.training)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let exported = try TrainingProblem.export(model, to: output)
    BenchmarkEnvironment.note("logistic: \(exported.rows) x \(exported.columns), \(model.lastIterations) iterations, \(seconds) s")
    return [
        "rows": exported.rows, "columns": exported.columns, "targets": model.space.targetCount,
        "l2": configuration.l2, "gradient_tolerance": configuration.gradientTolerance,
        "max_iterations": configuration.maxIterations, "iterations": model.lastIterations, "seconds": seconds,
    ]
}

var report: [String: Any] = ["blas": blas, "shapes": shapes]
if !skipTraining { report["training"] = try trainLogistic(exportingTo: output) }
let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
try json.write(to: output.appendingPathComponent("engine.json"))
print(output.appendingPathComponent("engine.json").path)
