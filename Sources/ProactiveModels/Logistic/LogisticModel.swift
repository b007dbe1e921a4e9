import Foundation
import LinearAlgebra
import ProactiveCore

// MARK: - Logistic model

/// Multinomial logistic regression on the moment features:
/// P(t | x) = softmax_t(W_t · x), W fitted by L-BFGS with L2 (see `SoftmaxObjective`).
///
/// Online learning is lazy: `update(with:)` records the event (so the
/// previous-target feature and the vocabulary are current at once) and refits,
/// warm-started from the current weights, after `refitEvery` new events or at
/// the first new event `refitAfterDays` after the last fit. `remove(_:)`
/// forgets an event by refitting without it (an exact refit, not an approximation).
public struct LogisticModel: FittedModel {
    package let configuration: LogisticConfiguration
    public let encoder: MomentEncoder
    public var name: String { "logistic" }
    public internal(set) var space: FeatureSpace
    /// The events the weights are fitted on (plus those learned since the last fit).
    public internal(set) var log: EventLog
    /// W, targets x layout.dimension: dense outside the previous-target block, and in it
    /// only the pairs (target, previous target) that occurred at the last fit.
    var weights: SparseBlockMatrix
    /// Events learned since the last fit, and the newest event time at that fit.
    package internal(set) var eventsSinceFit: Int = 0
    package internal(set) var lastFitTime: Double?
    /// Iterations of the last fit (diagnostics).
    public internal(set) var lastIterations: Int = 0

    init(configuration: LogisticConfiguration, space: FeatureSpace, log: EventLog, weights: SparseBlockMatrix? = nil) {
        self.configuration = configuration
        encoder = MomentEncoder(configuration.encoder)
        self.space = space
        self.log = log
        self.weights = weights ?? SparseBlockMatrix(layout: encoder.layout(for: space))
    }

    /// W as a full targets x layout.dimension matrix, row-major (exports; 8 MB for 1,000 targets).
    public var expandedWeights: [Double] { weights.expanded }

    public var layout: FeatureLayout { encoder.layout(for: space) }

    // MARK: Fitting

    /// Refits on the whole log, starting from the current weights.
    package mutating func refit() {
        eventsSinceFit = 0
        lastFitTime = log.last?.time
        guard !log.isEmpty else { return }
        let design = DesignMatrix(log: log, space: space, encoder: encoder, halfLifeDays: configuration.halfLifeDays)
        (weights, lastIterations) = LogisticTrainer.optimize(design: design, targets: space.targetCount, start: weights,
                                                             configuration: configuration)
    }

    /// The weights re-laid into `other` (unknown entries zero), for warm starts.
    func weights(mappedInto other: FeatureSpace) -> SparseBlockMatrix {
        let mapping = space.mapping(to: other)
        return weights.remapped(from: layout, to: encoder.layout(for: other), targetMap: mapping.targets, contextMap: mapping.contexts)
    }

    public mutating func update(with event: Event) {
        let old = space
        space.insert(event.target)
        _ = space.insertColumns(for: event.context)
        if space.targetCount != old.targetCount || space.contextCount != old.contextCount {
            let mapping = old.mapping(to: space)
            weights = weights.remapped(from: encoder.layout(for: old), to: layout, targetMap: mapping.targets, contextMap: mapping.contexts)
        }
        log.insert(space.loggedEvent(for: event)!, space: space)
        eventsSinceFit += 1
        let dueByTime = lastFitTime.map { event.date.timeIntervalSince1970 - $0 >= configuration.refitAfterDays * 86_400 } ?? true
        if eventsSinceFit >= configuration.refitEvery || dueByTime { refit() }
    }

    /// Forgets an event (matched by target, date, context, weight) and refits.
    /// Targets and context values left without events leave the vocabulary.
    /// - Returns: `false` when no such event was learned.
    @discardableResult
    public mutating func remove(_ event: Event) -> Bool {
        guard let logged = space.loggedEvent(for: event), let position = log.position(of: logged) else { return false }
        log.remove(at: position)
        var targetUsed = [Bool](repeating: false, count: space.targetCount)
        var columnUsed = [Bool](repeating: false, count: space.contextCount)
        for event in log.events {
            targetUsed[event.target.rawValue] = true
            for column in event.context { columnUsed[column.rawValue] = true }
        }
        let filtered = space.filtered(keepingTarget: { targetUsed[$0.rawValue] }, keepingColumn: { columnUsed[$0.rawValue] })
        if filtered.space != space {
            weights = weights(mappedInto: filtered.space)
            log.remap(targets: filtered.targetMap, columns: filtered.columnMap)
            space = filtered.space
        }
        refit()
        return true
    }

    // MARK: Scoring

    package func featureVector(for moment: Moment) -> [Double] {
        let previous = MomentEncoder.previous(of: moment, in: space) ?? log.latest(atOrBefore: moment.date)
        return encoder.encode(moment, in: space, fallbackPrevious: previous)
    }

    /// W · x for every target (index order).
    package func logScores(at moment: Moment) -> [Double] {
        let rows = space.targetCount
        guard rows > 0 else { return [] }
        return weights.product(featureVector(for: moment))
    }

    public func scores(at moment: Moment) -> [ScoredTarget] {
        distribution(at: moment).ranked()
    }

    /// Every target's probability at `moment`, in index order (no sorting).
    public func distribution(at moment: Moment) -> TargetDistribution {
        Softmax.distribution(logScores: logScores(at: moment), space: space)
    }

    /// Scores many moments with one `dgemm`; equal to `scores(at:)` per moment up to rounding.
    public func scores(at moments: [Moment]) -> [[ScoredTarget]] {
        Softmax.rankedBatch(vectors: moments.map { featureVector(for: $0) }, weights: weights.expanded, columns: layout.dimension,
                            targets: space.targets)
    }
}
