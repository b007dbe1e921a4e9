import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Configuration and results

/// How an evaluation runs (docs/FORMATS.md, evaluation contract).
public struct EvaluationOptions: Sendable {
    /// Learn from each test donation after ranking it (prequential evaluation).
    public var online: Bool
    /// How many of the user's previous events a `Moment` carries.
    public var recentLimit: Int
    /// When set, every donation's offset becomes this zone's offset at its
    /// instant before anything reads its local clock.
    public var timeZone: TimeZone?
    /// Probability floor of the log-loss (see `LogLoss`).
    public var logLossEpsilon: Double
    /// Progress is reported every this many test donations per user (and at each user's end).
    public var progressInterval: Int
    /// Users evaluated at once (`WorkerPool`); the results do not depend on it.
    /// Run BLAS on one thread when this is above 1 (`BLAS.setThreadCount(1)`).
    public var workers: Int

    public init(online: Bool = false, recentLimit: Int = 16, timeZone: TimeZone? = nil,
                logLossEpsilon: Double = LogLoss.defaultEpsilon, progressInterval: Int = 1000,
                workers: Int = WorkerPool.defaultWorkers) {
        precondition(recentLimit >= 1 && progressInterval >= 1 && workers >= 1)
        self.workers = workers
        self.online = online
        self.recentLimit = recentLimit
        self.timeZone = timeZone
        self.logLossEpsilon = logLossEpsilon
        self.progressInterval = progressInterval
    }
}

/// Where an evaluation is (for a progress line).
public struct EvaluationProgress: Sendable, Equatable {
    public var eventsDone: Int
    public var eventsTotal: Int
    public var usersDone: Int
    public var usersTotal: Int

    public init(eventsDone: Int, eventsTotal: Int, usersDone: Int, usersTotal: Int) {
        self.eventsDone = eventsDone
        self.eventsTotal = eventsTotal
        self.usersDone = usersDone
        self.usersTotal = usersTotal
    }
}

/// The outcome of evaluating one model on one split.
public struct EvaluationResult: Sendable {
    public var model: String
    public var online: Bool
    /// Rank of each test donation's true target, in test-log order (0 = not ranked).
    public var ranks: [Int]
    /// The model's probability of each true target, in test-log order (0 when not ranked).
    public var probabilities: [Double]
    /// The probability of the model's first choice for each test donation, in test-log
    /// order (0 when it ranked nothing); with `ranks`, how well calibrated that choice is
    /// (`Calibration`). Empty when not recorded.
    public var topProbabilities: [Double] = []
    public var metrics: RankMetrics
    /// Mean −ln max(p, `logLossEpsilon`) of the true targets.
    public var logLoss: Double
    public var logLossEpsilon: Double
    /// Test donations whose target appeared neither in training nor earlier in the test log
    /// (no model can rank these).
    public var novelTargets: Int
    public var users: Int
    public var trainingEvents: Int
    /// Users whose model could not be fitted, with the reason; their test donations are unranked.
    public var fitFailures: [String: String]
}

// MARK: - The harness

/// Evaluates a model on a train/test split, per user and in parallel over users
/// (`options.workers` at once, largest users first; the ranks do not depend on it).
///
/// For each user a model is fitted on that user's training donations. The
/// user's test donations are then walked in log order; each one is ranked at
/// its own date and context, with `Moment.recent` holding the user's previous
/// events (the training log's tail, then earlier test donations), and the
/// 1-based rank of its true target is recorded. With `online` the model then
/// learns from it before the next one.
///
/// ```swift
/// let result = await Evaluation.run(train: train, test: test, model: ModelRegistry.builtIn.defaultEntry,
///                                   options: EvaluationOptions(online: true))
/// print(result.metrics.hitAt1)
/// ```
///
/// - Complexity: per test donation, one `scores(at:)` call plus a linear search of its result.
public enum Evaluation {
    public static func run(
        train: [Donation], test: [Donation], model: ModelEntry,
        resolver: TargetResolver = TargetResolver(), options: EvaluationOptions = EvaluationOptions(),
        progress: @escaping @Sendable (EvaluationProgress) -> Void = { _ in }
    ) async -> EvaluationResult {
        var trainByUser: [String: [Donation]] = [:]
        for donation in train { trainByUser[donation.user, default: []].append(normalized(donation, options)) }
        var testIndicesByUser: [String: [Int]] = [:]
        for (index, donation) in test.enumerated() { testIndicesByUser[donation.user, default: []].append(index) }
        let users = testIndicesByUser.keys.sorted()
        let counter = ProgressCounter(eventsTotal: test.count, usersTotal: users.count, report: progress)

        let jobs = users.map { user in
            (user: user, train: trainByUser[user] ?? [],
             test: testIndicesByUser[user]!.map { (index: $0, donation: normalized(test[$0], options)) })
        }
        // Models with population priors prepare every user together first (users in parallel);
        // each user is then fitted inside the worker that evaluates it.
        var population: Result<PopulationFits, any Error>?
        if let fitPopulation = model.fitPopulation {
            let trainings = jobs.map { TrainingSet(donations: $0.train, resolver: resolver) }
            population = Result { try fitPopulation(trainings, nil, options.workers) }
        }
        let prepared = population
        let outcomes = await WorkerPool.map(Array(jobs.enumerated()), workers: options.workers,
                                            order: WorkerPool.largestFirst(jobs.map { $0.train.count + $0.test.count })) { position, job in
            let fitted = prepared.map { result in Result<any FittedModel, any Error> { try result.get().fit(position) } }
            return evaluateUser(user: job.user, train: job.train, test: job.test, model: model, resolver: resolver,
                                options: options, counter: counter, prefitted: fitted)
        }
        var ranks = [Int](repeating: 0, count: test.count)
        var probabilities = [Double](repeating: 0, count: test.count)
        var topProbabilities = [Double](repeating: 0, count: test.count)
        var novel = 0
        var failures: [String: String] = [:]
        for outcome in outcomes {
            for (index, rank, probability, top) in outcome.results {
                ranks[index] = rank
                probabilities[index] = probability
                topProbabilities[index] = top
            }
            novel += outcome.novel
            if let failure = outcome.failure { failures[outcome.user] = failure }
        }
        return EvaluationResult(
            model: model.name, online: options.online, ranks: ranks, probabilities: probabilities, topProbabilities: topProbabilities,
            metrics: RankMetrics(ranks: ranks), logLoss: LogLoss.mean(probabilities, epsilon: options.logLossEpsilon),
            logLossEpsilon: options.logLossEpsilon, novelTargets: novel, users: users.count,
            trainingEvents: train.count, fitFailures: failures)
    }

    // MARK: One user

    struct UserOutcome: Sendable {
        var user: String
        var results: [(index: Int, rank: Int, probability: Double, top: Double)] = []
        var novel = 0
        var failure: String?
    }

    static func evaluateUser(user: String, train: [Donation], test: [(index: Int, donation: Donation)],
                             model entry: ModelEntry, resolver: TargetResolver, options: EvaluationOptions,
                             counter: ProgressCounter, prefitted: Result<any FittedModel, any Error>? = nil) -> UserOutcome {
        var outcome = UserOutcome(user: user)
        outcome.results.reserveCapacity(test.count)
        let training = TrainingSet(donations: train, resolver: resolver)
        var known = Set(training.targets.keys)
        var recent = Array(training.events.suffix(options.recentLimit))
        var model: (any FittedModel)?
        do {
            model = try prefitted?.get() ?? fitUser(training, entry)
        } catch {
            outcome.failure = "\(error)"
        }
        var sinceReport = 0
        // The test donations of one instant happened together, in no order: each is ranked as of the
        // instant (the same recent events, nothing of the instant learned), then all are learned, as
        // training walks them (`BlendTrainer`).
        for run in test.instantRuns(date: \.donation.date) {
            let events = test[run].map { _, donation in
                Event(target: resolver.target(for: donation).key, date: donation.date, utcOffset: donation.utcOffset,
                      context: donation.context, weight: Double(donation.count))
            }
            for (index, event) in zip(test[run].map(\.index), events) {
                if !known.contains(event.target) { outcome.novel += 1 }
                var rank = 0
                var probability = 0.0
                var top = 0.0
                if let fitted = model {
                    let moment = Moment(date: event.date, utcOffset: event.utcOffset, context: event.context, recent: recent)
                    let scores = fitted.scores(at: moment)
                    top = scores.first?.probability ?? 0
                    if let position = scores.firstIndex(where: { $0.target == event.target }) {
                        rank = position + 1
                        probability = scores[position].probability
                    }
                }
                outcome.results.append((index, rank, probability, top))
            }
            if options.online, model != nil { model!.update(with: events) }
            for event in events { known.insert(event.target) }
            recent.append(contentsOf: events)
            if recent.count > options.recentLimit { recent.removeFirst(recent.count - options.recentLimit) }
            sinceReport += events.count
            if sinceReport >= options.progressInterval {
                counter.add(events: sinceReport, users: 0)
                sinceReport = 0
            }
        }
        counter.add(events: sinceReport, users: 1)
        return outcome
    }

    /// Fits one user's model on their training set: the one place evaluation fits a user
    /// (the engine's counterpart for saved live states is `Engine.fit`).
    static func fitUser(_ training: TrainingSet, _ entry: ModelEntry) throws -> any FittedModel {
        try entry.fit(training)
    }

    /// The donation with its offset read in the configured zone, if any.
    static func normalized(_ donation: Donation, _ options: EvaluationOptions) -> Donation {
        guard let zone = options.timeZone else { return donation }
        var copy = donation
        copy.utcOffset = zone.secondsFromGMT(for: donation.date)
        return copy
    }
}

// MARK: - Progress across tasks

/// Cumulative progress shared by the per-user tasks.
final class ProgressCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: EvaluationProgress
    private let report: @Sendable (EvaluationProgress) -> Void

    init(eventsTotal: Int, usersTotal: Int, report: @escaping @Sendable (EvaluationProgress) -> Void) {
        progress = EvaluationProgress(eventsDone: 0, eventsTotal: eventsTotal, usersDone: 0, usersTotal: usersTotal)
        self.report = report
    }

    func add(events: Int, users: Int) {
        lock.lock()
        progress.eventsDone += events
        progress.usersDone += users
        let snapshot = progress
        lock.unlock()
        report(snapshot)
    }
}
