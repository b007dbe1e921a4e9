import ArgumentParser
import Foundation
import ProactiveCharts
import ProactiveCore
import ProactiveEngine
import ProactiveLab

// MARK: - proactive evaluate

/// Scores models on a train/test split exactly as docs/FORMATS.md's evaluation contract says.
struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure how well a model ranks each test donation's target (hit@1, hit@4, MRR, log-loss).",
        discussion: """
            Per-user models learn from --train, then each --test donation, in log order, is ranked at its \
            own date and context using only what came before it (recent events include earlier test \
            donations); the 1-based rank of its true target is recorded (0 = not ranked). With --online \
            the model learns from each test donation after ranking it. Users are evaluated in parallel, --jobs at \
            once (default: the number of cores; BLAS runs on one thread per worker); the results do not depend on it.

            --compare runs every baseline and the default model on the same split and prints one table. \
            --ranks-out writes one rank per test donation (with --compare: FILE for the default model and \
            FILE with .MODEL before its extension for the others); --report writes JSON with events, \
            hit@1, hit@4, mrr, ranks_file, log_loss, unranked, model and wall_seconds, hit_at_k (hit@1 ... hit@10) \
            and calibration (the first choice's probability in ten bins against how often it was right). \
            --svg draws hit@k for k = 1 ... 10 per model and the calibration plot as SVG; --png converts it with \
            rsvg-convert (Debian: librsvg2-bin) when it is installed.

            Models: \(ModelRegistry.builtIn.entries.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")).

            Example:
              proactive evaluate --train train.jsonl --test test.jsonl --online --compare \\
                  --timezone America/New_York --report report.json --ranks-out ranks.txt \\
                  --svg report.svg
            """
    )

    @Option(help: "Training log (JSON Lines).")
    var train: String

    @Option(help: "Test log (JSON Lines), walked in order.")
    var test: String

    @Flag(help: "Learn from each test donation after ranking it (prequential).")
    var online = false

    @Option(help: "The model to evaluate (default: \(ModelRegistry.builtIn.defaultName); `default` names it too).")
    var model: String?

    @Flag(help: "Evaluate every baseline and the default model; print one table.")
    var compare = false

    @Option(help: "Write one rank per test donation to this file.")
    var ranksOut: String?

    @Option(help: "Write a JSON report to this file ('-': standard output, the table then goes to standard error).")
    var report: String?

    @Option(help: "Intent definitions (JSON) deciding which donations are the same target.")
    var definitions: String?

    @Option(name: .customLong("timezone"), help: "Read every donation's local time in this IANA zone (e.g. America/New_York).")
    var timeZoneName: String?

    @Flag(help: "Print the JSON report (as --report writes it) to standard output; the table goes to standard error.")
    var json = false
    @Option(help: "Users evaluated at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "No progress on standard error.")
    var quiet = false

    @OptionGroup var chart: ChartOptions

    @Flag(help: ArgumentHelp(
        "With --online: walk the test log through the engine as an app would (rank with the user's live model, then donate; "
        + "a temporary store), instead of the in-memory harness. The ranks are the same; this shows it on your log."))
    var throughEngine = false

    func validate() throws {
        if throughEngine {
            guard online else { throw ValidationError("--through-engine replays the online evaluation: add --online") }
            guard !compare else { throw ValidationError("--through-engine runs one live model; leave out --compare") }
            if let model, !ModelChoice.names.contains(model == ModelRegistry.defaultAlias ? ModelRegistry.builtIn.defaultName : model) {
                throw ValidationError("--through-engine: \"\(model)\" keeps no live state; use one of \(ModelChoice.names.joined(separator: ", "))")
            }
        }
        if report == "-" || json, chart.svgToStandardOutput {
            throw ValidationError("\(json ? "--json" : "--report -") and --svg - both want standard output; give --svg a file")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if compare, model != nil { throw ValidationError("--compare runs every model; leave out --model") }
        if let model, ModelRegistry.builtIn.entry(named: model) == nil {
            throw ValidationError("--model: unknown model \"\(model)\"; known: \(ModelRegistry.builtIn.names.joined(separator: ", "))")
        }
        _ = try parseTimeZone(timeZoneName)
    }

    func run() async throws {
        let registry = ModelRegistry.builtIn
        let entries = compare ? registry.comparison : [registry.entry(named: model ?? registry.defaultName)!]
        let trainLog = try loadDonationLog(train)
        let testLog = try loadDonationLog(test)
        let resolver = TargetResolver(definitions: try loadDefinitions(definitions))
        let workers = jobs ?? WorkerPool.defaultWorkers
        BLAS.setThreadCount(1)  // parallel over users instead (and with one worker too, so --jobs never changes a result)
        let options = EvaluationOptions(online: online, timeZone: try parseTimeZone(timeZoneName), workers: workers)
        let clock = ContinuousClock()

        var rows: [EvaluationReport] = []
        for entry in entries {
            let printer = ProgressPrinter(label: entry.name, enabled: !quiet)
            let start = clock.now
            var result = await Evaluation.run(train: throughEngine ? [] : trainLog, test: throughEngine ? [] : testLog, model: entry,
                                              resolver: resolver, options: options, progress: { printer.show($0) })
            if throughEngine {
                result.ranks = try replayThroughEngine(entry: entry, train: trainLog, test: testLog, printer: printer)
                result.metrics = RankMetrics(ranks: result.ranks)
                result.probabilities = result.ranks.map { _ in 0 }
                result.topProbabilities = []  // nor first-choice probabilities: no calibration
                result.logLoss = .nan  // the replay records ranks only
                result.users = Set(testLog.map(\.user)).count
                result.trainingEvents = trainLog.count
            }
            let elapsed = clock.now - start
            printer.finish()
            var ranksFile: String?
            if let ranksOut {
                ranksFile = entry.name == registry.defaultName || !compare ? ranksOut : Self.path(ranksOut, insertingModel: entry.name)
                try writeTextFile(RanksFile.format(result.ranks), to: ranksFile!)
            }
            for (user, reason) in result.fitFailures.sorted(by: { $0.key < $1.key }) {
                printError("\(entry.name): user \(user): model could not be fitted (\(reason)); their test donations count as unranked")
            }
            rows.append(EvaluationReport(result: result, wallSeconds: Self.seconds(elapsed), ranksFile: ranksFile,
                                         trainPath: train, testPath: test))
        }

        let main = rows.first { $0.result.model == registry.defaultName } ?? rows[0]
        let reportText = main.json(comparison: compare ? rows : nil)
        let reportToStandardOutput = report == "-" || json
        if reportToStandardOutput || chart.svgToStandardOutput {
            // The report or the chart is the result on standard output; the table goes with the other messages.
            printError(EvaluationReport.table(rows))
            if reportToStandardOutput { print(reportText) }
        } else {
            print(EvaluationReport.table(rows))
        }
        if let report, report != "-" { try writeTextFile(reportText + "\n", to: report) }
        try chart.write {
            let events = rows[0].result.metrics.events
            let mode = online ? "online (each test donation learned after it is ranked)" : "batch (no learning during the test)"
            return EvaluationChart(title: "Evaluation on \((test as NSString).lastPathComponent): \(events) test donations, "
                                   + "\(rows[0].result.users) user\(rows[0].result.users == 1 ? "" : "s")",
                                   subtitle: "trained on \(train) · \(mode)\(throughEngine ? " · through the engine" : "")",
                                   highlighted: registry.defaultName)
                .svg(rows)
        }
    }

    /// The online evaluation walked through the engine in a temporary store (`EngineReplay`).
    func replayThroughEngine(entry: ModelEntry, train: [Donation], test: [Donation], printer: ProgressPrinter) throws -> [Int] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let users = Set(test.map(\.user)).count
        return try EngineReplay.ranks(train: train, test: test, storePath: directory.appendingPathComponent("replay.sqlite").path,
                                           definitions: try loadDefinitions(definitions).definitions, model: entry.name,
                                           timeZone: timeZoneName) { done, total in
            printer.show(EvaluationProgress(eventsDone: done, eventsTotal: total, usersDone: done == total ? users : 0, usersTotal: users))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// `ranks.txt` + `mfu` -> `ranks.mfu.txt`.
    static func path(_ path: String, insertingModel model: String) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        guard !ext.isEmpty else { return path + "." + model }
        return String(path.dropLast(ext.count + 1)) + "." + model + "." + ext
    }
}

// MARK: - Progress

/// Prints evaluation progress to standard error: rewritten in place on a
/// terminal, every quarter otherwise.
final class ProgressPrinter: @unchecked Sendable {
    private let label: String
    private let enabled: Bool
    private let terminal = Output.standardErrorIsTerminal
    private let lock = NSLock()
    private var lastQuarter = -1
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
        started = clock.now
    }

    func show(_ progress: EvaluationProgress) {
        guard enabled else { return }
        let line = "\(label): \(progress.eventsDone)/\(progress.eventsTotal) test donations, \(progress.usersDone)/\(progress.usersTotal) users"
            + Self.rateAndTimeLeft(done: progress.eventsDone, total: progress.eventsTotal, seconds: EvaluateCommand.seconds(clock.now - started))
        lock.lock()
        defer { lock.unlock() }
        if terminal {
            ImportProgressPrinter.writeError("\r" + line + "   ")
        } else {
            let quarter = progress.eventsTotal == 0 ? 4 : progress.eventsDone * 4 / progress.eventsTotal
            guard quarter > lastQuarter else { return }
            lastQuarter = quarter
            printError(line)
        }
    }

    func finish() {
        if enabled, terminal { ImportProgressPrinter.writeError("\n") }
    }

    /// ", 1,234/s, about 12 s left" (empty before there is a rate to tell).
    static func rateAndTimeLeft(done: Int, total: Int, seconds: Double) -> String {
        guard done > 0, seconds > 0.05 else { return "" }
        let rate = Double(done) / seconds
        let left = Double(max(0, total - done)) / rate
        let leftText = left < 90 ? "\(Int(left.rounded())) s" : "\(Int((left / 60).rounded())) min"
        return ", \(Int(rate.rounded()))/s" + (done < total ? ", about \(leftText) left" : "")
    }
}
