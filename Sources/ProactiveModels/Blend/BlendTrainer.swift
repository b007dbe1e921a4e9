import Foundation
import ProactiveCore

// MARK: - Blend trainer

/// Fits the default model (`BlendModel`).
///
/// 1. Events are put in canonical order (so input order never matters).
/// 2. A fresh blend walks them in order. Each event is first scored (its
///    signals stored as a row, label = its target) and then learned, so every
///    row is an honest out-of-sample prediction. Rows are kept for the last
///    `maxRows` events. The logistic component is fitted once on the events
///    before the held-back share (`holdoutShare`, the most recent events) and
///    only the held-back rows see it (earlier rows see a constant, which does
///    not move its weight).
/// 3. The prior: with several users (`prepare(population:)`), the blend weights that
///    maximise every user's rows' log-likelihood together (the population: each user's
///    rows and the long rows asked earlier in quiet hours, `Walk.pool`); for one
///    user, the fixed defaults (the plain profile). Only each user's `Sample` of the
///    walk is held until the prior is known; the user is walked again to be fitted.
/// 4. The guard (`WeightGuard`): the user's own weights are fitted by L-BFGS, pulled
///    toward the prior (L2, so a user with few rows stays near it); the most recent
///    rows, held out, decide how far they are shrunk toward the simple model that
///    predicts those rows best.
/// 5. The components are refitted on all events: the profile exactly, the
///    logistic warm-started from step 2.
///
/// ```swift
/// let trainer = BlendTrainer(configuration: BlendConfiguration().inTimeZone("America/New_York"))
/// var model = try trainer.fit(TrainingSet(donations: donations, resolver: resolver))
/// let top4 = model.top(4, at: Moment(date: now, context: ["focus": "work"]))
/// model.update(with: nextEvent)
/// ```
public struct BlendTrainer: ModelTrainer {
    package var configuration: BlendConfiguration
    public var name: String { "blend" }

    public init(configuration: BlendConfiguration = BlendConfiguration()) {
        self.configuration = configuration
    }

    /// A user's walk: the fitted profile, the rows, and the logistic fitted before the held-back share.
    public struct Walk: Sendable {
        var full: ProfileModel
        var events: [Event]
        var walker: BlendModel
        var early: LogisticModel?
        /// What the user gives the population, when the walk pools (`walk(_:)`): its rows and, after
        /// each row of a long quiet gap, its long row (`BlendModel.longRowSignals(for:)`), the most recent
        /// kept. Nil: the walk's own rows.
        var pool: BlendRows?
        /// Rows the walk gives the population (the user contributes when it is above 0).
        package var rowCount: Int { (pool ?? walker.rows).count }
    }

    /// - Throws: `ConfigurationError` for an unusable configuration.
    /// - Complexity: O(events x features) for the walk, O(rows x targets x signals) per
    ///   weight-fit iteration, plus two logistic fits.
    public func fit(_ training: TrainingSet) throws -> BlendModel {
        try finish(walk(training, reusing: nil), prior: Self.fixedPrior)
    }

    /// Step 2: the walk over one user's events, pooling rows for the population (`Walk.pool`).
    package func walk(_ training: TrainingSet) throws -> Walk {
        try walk(training, reusing: nil, pooling: true)
    }

    /// The walk again after `sample` was taken from it: the logistic fit before the held-back share
    /// is the sample's (the same events give the same fit), so a second walk costs the profile's pass only.
    /// `pooling`: also keep the rows the population is fitted on (`Walk.pool`); a walk only fitted
    /// for its user needs none.
    package func walk(_ training: TrainingSet, reusing sample: Sample?, pooling: Bool = false) throws -> Walk {
        try configuration.validate()
        let full = ProfileModel(configuration: configuration.profile, events: training.events)
        let events = full.log.events.map { full.event(from: $0) }
        let holdStart = Int((Double(events.count) * (1 - configuration.holdoutShare)).rounded(.down))
        let rowStart = max(0, events.count - configuration.maxRows)

        // The pool keeps at least the rows a sample takes (appending drops the oldest down to three quarters).
        var pool = BlendRows()
        let poolLimit = 2 * Self.populationRowsPerUser
        var walker = BlendModel(configuration: configuration, profile: ProfileModel(configuration: configuration.profile, events: []),
                                logistic: nil, weights: BlendFeature.defaultWeights, rows: BlendRows())
        walker.logisticFrozen = true
        var early: LogisticModel?
        let logisticTrainer = LogisticTrainer(configuration: configuration.logistic)
        // Events at one instant happened together, in no order: each is scored before any of them is
        // learned (in an aggregated log, the rows of one part of the day must not see each other as
        // "just used"), then all are learned in canonical order.
        for run in events.instantRuns(date: \.date) {
            if configuration.includeLogistic, holdStart > 0, run.contains(holdStart) {
                early = try sample.map { $0.early } ?? logisticTrainer.fit(TrainingSet(events: Array(events[..<holdStart])))
                walker.logistic = early
            }
            for position in run where position >= rowStart {
                let event = events[position]
                guard let row = walker.collectRow(for: event), pooling else { continue }
                let candidates = walker.profile.space.targetCount
                pool.append(features: row.signals, candidates: candidates, label: row.label, weights: walker.weights,
                            maxRows: poolLimit, maxValues: configuration.maxRowValues)
                if let long = walker.longRowSignals(for: event) {
                    pool.append(features: long, candidates: candidates, label: row.label, weights: walker.weights,
                                maxRows: poolLimit, maxValues: configuration.maxRowValues)
                }
            }
            for position in run { walker.learn(events[position]) }
        }
        return Walk(full: full, events: events, walker: walker, early: early, pool: pooling ? pool : nil)
    }

    /// What one user's walk gives the population prior, kept small so that every user's can be held
    /// at once: the most recent rows of the walk's pool (`Walk.pool`; at most `populationRowsPerUser`,
    /// fewer when the pool is already full, see `SampleLimit`) and the logistic fit a second walk reuses
    /// (`walk(_:reusing:)`); `finish` needs the whole walk, which is walked again then.
    public struct Sample: Sendable {
        var rows: BlendRows
        var early: LogisticModel?
        /// Rows the walk kept (the user contributes to the population when it is above 0).
        package let rowCount: Int

        /// The sample without its rows (once the prior is known, only the logistic fit is reused).
        public var withoutRows: Sample { Sample(rows: BlendRows(), early: early, rowCount: rowCount) }
    }

    /// The sample of a walk, its rows limited to `rowLimit` (the most recent).
    public func sample(of walk: Walk, rowLimit: Int = BlendTrainer.populationRowsPerUser) -> Sample {
        Sample(rows: (walk.pool ?? walk.walker.rows).suffix(min(rowLimit, Self.populationRowsPerUser)), early: walk.early,
               rowCount: walk.rowCount)
    }

    /// The most rows a user's sample may need while users are still being walked: the pool takes
    /// `min(populationRowsPerUser, populationRowLimit / contributing users)` rows of each, and
    /// contributing users only grow, so the users counted so far bound it from above. Samples taken
    /// with this limit hold every row the pool will take (the same prior as keeping every walk), at
    /// most about (1 + ln(users / 200)) x `populationRowLimit` rows in all instead of every user's.
    package final class SampleLimit: @unchecked Sendable {
        private let lock = NSLock()
        private var contributing = 0

        package init() {}

        /// Counts a user with `rowCount` rows and returns the rows its sample must keep.
        package func count(rowCount: Int) -> Int {
            lock.lock()
            defer { lock.unlock() }
            if rowCount > 0 { contributing += 1 }
            return BlendTrainer.populationRowsPerUser(contributing: max(1, contributing))
        }
    }

    /// Rows each of `contributing` users gives the pool.
    static func populationRowsPerUser(contributing: Int) -> Int {
        min(populationRowsPerUser, max(1, populationRowLimit / contributing))
    }

    /// The prior weights and their name (see `population(of:)`).
    public struct Prior: Sendable, Equatable {
        public var weights: [Double]
        public var name: String
        /// The fixed defaults (a user alone), which the user's own fit replaces; a population
        /// prior holds unless the user's held-out rows show better. Told by name, so a state saved
        /// with earlier fixed defaults (before the routine signal left them) keeps its weights and
        /// is still treated as the fixed prior when it is refitted.
        package var isFixed: Bool { name == BlendTrainer.fixedPrior.name }
    }

    public static let fixedPrior = Prior(weights: BlendFeature.plainProfileWeights, name: "fixed")

    /// Rows of one user that enter the population fit (the most recent ones).
    public static let populationRowsPerUser = 200
    /// Pooled rows at most (users' rows are thinned evenly beyond this).
    static let populationRowLimit = 40_000

    /// Step 3: the population's weights, fitted on every user's rows together (each user's most
    /// recent rows, every kept row counted alike), pulled toward the fixed defaults. Fewer than two
    /// users with rows: the fixed prior. A user's own fit weighs recent rows more, because one
    /// person's habits change; the population says how the signals relate to what people do, which
    /// a user's last week alone tells poorly (a monthly habit's rows are rare in it).
    public func population(of walks: [Walk]) -> Prior {
        var samples = walks.map { sample(of: $0) }
        return population(pooling: &samples)
    }

    /// Step 3 from the users' samples (`sample(of:)`), the same prior as from their walks. The samples'
    /// rows are moved into the pool one user at a time (left empty), so memory holds one copy of them.
    public func population(pooling samples: inout [Sample]) -> Prior {
        let contributingCount = samples.count { $0.rowCount > 0 }
        guard contributingCount >= 2 else { return Self.fixedPrior }
        let perUser = Self.populationRowsPerUser(contributing: contributingCount)
        // All kept rows, and the same split in time per user: the first 70 % to fit, the rest held out.
        var all = BlendRows()
        var (early, late) = ([Range<Int>](), [Range<Int>]())
        var (allWeights, earlyWeights) = ([Double](), [Double]())
        let pooledCounts = samples.filter { $0.rowCount > 0 }.map { $0.rows.candidateCounts.suffix(perUser) }
        all.reserveCapacity(rows: pooledCounts.reduce(0) { $0 + $1.count },
                            values: pooledCounts.reduce(0) { $0 + $1.reduce(0, +) } * BlendFeature.count)
        for index in samples.indices where samples[index].rowCount > 0 {
            let kept = samples[index].rows.suffix(perUser)
            precondition(kept.count == min(perUser, samples[index].rowCount), "a sample lost rows the pool needs")
            samples[index].rows = BlendRows()
            let start = all.count
            all.append(contentsOf: kept)
            allWeights += BlendRows.recencyWeights(count: kept.count, halfLife: nil)
            let split = Int((Double(kept.count) * (1 - configuration.validationShare)).rounded(.down))
            early.append(start ..< start + split)
            earlyWeights += BlendRows.recencyWeights(count: split, halfLife: nil)
            late.append(start + split ..< start + kept.count)
        }
        func fit(_ ranges: [Range<Int>]?, _ weights: [Double]) -> [Double] {
            all.fitWeights(start: BlendFeature.defaultWeights, prior: BlendFeature.defaultWeights, l2: configuration.weightL2,
                           explicitWeights: weights, ranges: ranges)
        }
        let fitted = fit(nil, allWeights)
        let name = "population (\(contributingCount) users)"
        let (earlyCount, lateCount) = (early.reduce(0) { $0 + $1.count }, late.reduce(0) { $0 + $1.count })
        guard lateCount >= configuration.guardMinimumRows, earlyCount > 0 else { return Prior(weights: fitted, name: name) }
        // The population's own guard: with thousands of held-out rows, ranking (mean reciprocal rank)
        // is measured precisely, so the mix of the pooled fit and the best simple model that ranks
        // the held-out rows best is the prior (log-likelihood breaks ties).
        let earlyFit = fit(early, earlyWeights)
        func score(_ weights: [Double]) -> (mrr: Double, logLikelihood: Double) {
            let results = all.evaluate(weights: weights, ranges: late)
            let n = Double(results.count)
            return (results.reduce(0) { $0 + 1 / Double($1.rank) } / n, results.reduce(0) { $0 + $1.logLikelihood } / n)
        }
        func better(_ a: (mrr: Double, logLikelihood: Double), than b: (mrr: Double, logLikelihood: Double)) -> Bool {
            a.mrr > b.mrr + 1e-9 || (abs(a.mrr - b.mrr) <= 1e-9 && a.logLikelihood > b.logLikelihood)
        }
        let simple = WeightGuard.simpleModels(center: BlendFeature.defaultWeights, centerName: "fixed")
            .map { (model: $0, score: score($0.weights)) }
        let anchor = simple.max { better($1.score, than: $0.score) }!
        var best = (share: 1.0, score: score(earlyFit))
        for share in WeightGuard.shares where share < 1 {
            let candidate = score(zip(earlyFit, anchor.model.weights).map { share * $0 + (1 - share) * $1 })
            if better(candidate, than: best.score) { best = (share, candidate) }
        }
        guard best.share < 1 else { return Prior(weights: fitted, name: name) }
        let mixed = zip(fitted, anchor.model.weights).map { best.share * $0 + (1 - best.share) * $1 }
        return Prior(weights: mixed, name: best.share == 0 ? "\(name): \(anchor.model.name)"
                                              : "\(name): fit x \(best.share) + \(anchor.model.name)")
    }

    /// Steps 4 and 5 for one user's walk.
    package func finish(_ walk: Walk, prior: Prior) throws -> BlendModel {
        var walker = walk.walker
        walker.chooseGuard(prior: prior)
        walker.weights = prior.weights
        walker.refitWeights(from: prior.weights)
        let weightGuard = walker.weightGuard

        var logistic: LogisticModel?
        if configuration.includeLogistic {
            logistic = try LogisticTrainer(configuration: configuration.logistic).fit(TrainingSet(events: walk.events), warmStart: walk.early)
        }
        var model = BlendModel(configuration: configuration, profile: walk.full, logistic: logistic, weights: walker.weights,
                               rows: walker.rows)
        model.weightGuard = weightGuard
        return model
    }

    /// Prepares every user: the walks (users in parallel, at most `workers` at once, BLAS on one
    /// thread), of which only each user's sample is kept (`sample(of:)`, limited by `SampleLimit`),
    /// and the population prior from all of them now; each user is walked again and fitted (guard
    /// and components) when `PopulationFits.fit(_:)` asks (`evaluate` fits inside its workers), so
    /// memory holds the samples and the users being fitted, not every walk. The results do not
    /// depend on `workers`, and equal fitting every user from one walk.
    package func prepare(population trainings: [TrainingSet], workers: Int? = nil) throws -> PopulationFits {
        let limit = SampleLimit()
        var samples = try parallelMap(trainings, workers: workers) { training in
            let walked = try walk(training)
            return sample(of: walked, rowLimit: limit.count(rowCount: walked.rowCount))
        }
        let prior = population(pooling: &samples)
        return PopulationFits(zip(trainings, samples).map { training, sample in
            let early = sample.withoutRows
            return { try finish(walk(training, reusing: early), prior: prior) }
        })
    }
}

extension ProfileModel {
    /// The `Event` a logged event stands for.
    package func event(from logged: LoggedEvent) -> Event {
        var context: [String: String] = [:]
        for column in logged.context {
            let value = space.contextValue(at: column)
            context[value.key] = value.value
        }
        return Event(target: space.target(at: logged.target), date: logged.date, utcOffset: logged.utcOffset,
                     context: context, weight: logged.weight)
    }
}

extension BlendModel {
    /// The model `BlendTrainer` fits on `training` with this model's configuration and prior: what
    /// training gives this user when the other users' evidence (the population prior) is what it was
    /// when this model was trained. A live model that learned `training`'s donations one by one should
    /// answer as this one does.
    ///
    ///     let fresh = try live.retrained(on: TrainingSet(donations: all, resolver: resolver))
    ///
    /// - Throws: `ConfigurationError` for an unusable configuration (as `BlendTrainer.fit`).
    package func retrained(on training: TrainingSet) throws -> BlendModel {
        let trainer = BlendTrainer(configuration: configuration)
        return try trainer.finish(trainer.walk(training, reusing: nil), prior: prior)
    }
}
