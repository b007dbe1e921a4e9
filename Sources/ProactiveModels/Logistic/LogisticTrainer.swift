import Foundation
import ProactiveCore

// MARK: - Configuration

/// Hyperparameters of the multinomial logistic model.
public struct LogisticConfiguration: Sendable, Hashable {
    package var encoder: EncoderConfiguration
    /// L2 strength λ on the sum of losses (λ = 1 is scikit-learn's C = 1); the intercept is not penalised.
    public var l2: Double
    /// Optional exponential down-weighting of old events (half-life in days from the newest event).
    package var halfLifeDays: Double?
    public var maxIterations: Int
    /// Stop when max |∇F| / Σw falls below this (scikit-learn's `tol` for lbfgs, same default).
    public var gradientTolerance: Double
    /// `update(with:)` refits (warm-started) after this many new events...
    package var refitEvery: Int
    /// ...or at the first new event at least this many days after the last fit.
    package var refitAfterDays: Double
    /// Whether every (previous target, target) pair gets a weight, as in a dense model (what
    /// scikit-learn's `LogisticRegression` fits on the same one-hot columns), instead of only the
    /// pairs that occur (the default: a pair never seen keeps weight 0, so the block stays sparse).
    /// For comparisons against a dense peer on one objective; not saved with a model.
    public var allPreviousPairs = false

    public init(encoder: EncoderConfiguration = EncoderConfiguration(), l2: Double = 1, halfLifeDays: Double? = nil,
                maxIterations: Int = 200, gradientTolerance: Double = 1e-4, refitEvery: Int = 50, refitAfterDays: Double = 1) {
        self.encoder = encoder
        self.l2 = l2
        self.halfLifeDays = halfLifeDays
        self.maxIterations = maxIterations
        self.gradientTolerance = gradientTolerance
        self.refitEvery = refitEvery
        self.refitAfterDays = refitAfterDays
    }

    /// - Throws: `ConfigurationError` naming the first invalid field.
    package func validate() throws(ConfigurationError) {
        try encoder.validate()
        guard l2 > 0, l2.isFinite else { throw ConfigurationError(field: "l2", reason: "must be positive, got \(l2)") }
        if let halfLifeDays, !(halfLifeDays > 0 && halfLifeDays.isFinite) {
            throw ConfigurationError(field: "halfLifeDays", reason: "must be a positive number of days, got \(halfLifeDays)")
        }
        guard maxIterations >= 1 else {
            throw ConfigurationError(field: "maxIterations", reason: "must be at least 1, got \(maxIterations)")
        }
        guard gradientTolerance > 0 else {
            throw ConfigurationError(field: "gradientTolerance", reason: "must be positive, got \(gradientTolerance)")
        }
        guard refitEvery >= 1 else { throw ConfigurationError(field: "refitEvery", reason: "must be at least 1, got \(refitEvery)") }
        guard refitAfterDays > 0 else {
            throw ConfigurationError(field: "refitAfterDays", reason: "must be positive, got \(refitAfterDays)")
        }
    }
}

// MARK: - Trainer

/// Fits a `LogisticModel` by L-BFGS on gemm-computed batch gradients.
///
/// ```swift
/// let trainer = LogisticTrainer()
/// let model = try trainer.fit(training)
/// let later = try trainer.fit(moreTraining, warmStart: model)   // starts from model's weights
/// ```
/// Deterministic: the same events (in any order) give bit-identical weights.
public struct LogisticTrainer: ModelTrainer {
    package var configuration: LogisticConfiguration
    package var name: String { "logistic" }

    public init(configuration: LogisticConfiguration = LogisticConfiguration()) {
        self.configuration = configuration
    }

    public func fit(_ training: TrainingSet) throws -> LogisticModel {
        try fit(training, warmStart: nil)
    }

    /// Fits, starting from `warmStart`'s weights for the targets and columns it knows.
    /// - Throws: `ConfigurationError` for an unusable configuration.
    /// - Complexity: per L-BFGS iteration two `sgemm` of events x dense columns x targets, plus the
    ///   previous-target pairs that occur (each row adds its previous target's pairs).
    package func fit(_ training: TrainingSet, warmStart: LogisticModel?) throws -> LogisticModel {
        try configuration.validate()
        let space = FeatureSpace(events: training.events)
        let logged = training.events.map { space.loggedEvent(for: $0)! }
        var model = LogisticModel(configuration: configuration, space: space, log: EventLog(events: logged, space: space))
        if let warmStart { model.weights = warmStart.weights(mappedInto: space) }
        model.refit()
        return model
    }

    /// Minimises the objective of `design` from `start` (entries of the previous-target block
    /// outside the pairs that occur in `design` are dropped: they stay 0; with `allPreviousPairs`,
    /// every pair is learned).
    /// - Returns: the weights found and the iterations taken.
    static func optimize(design: DesignMatrix, targets: Int, start: SparseBlockMatrix,
                         configuration: LogisticConfiguration) -> (weights: SparseBlockMatrix, iterations: Int) {
        let totalWeight = max(design.weights.reduce(0, +), 1e-12)
        let pairs = configuration.allPreviousPairs ? PreviousPairs(every: design.previousBlock.count, targets: targets)
            : PreviousPairs(design: design)
        var objective = SoftmaxObjective(design: design, targets: targets, l2: configuration.l2, pairs: pairs)
        let optimizer = LBFGS(maxIterations: configuration.maxIterations, gradientTolerance: configuration.gradientTolerance)
        let result = optimizer.minimize(start: start.dense + pairs.values(of: start)) { weights, gradient in
            let value = objective.evaluate(weights, gradient: &gradient)
            for i in gradient.indices { gradient[i] /= totalWeight }
            return value / totalWeight
        }
        let denseCount = start.dense.count
        var previous = [[Int: Double]](repeating: [:], count: start.block.count)
        for p in previous.indices {
            for q in pairs.start[p] ..< pairs.start[p + 1] where result.x[denseCount + q] != 0 {
                previous[p][Int(pairs.targets[q])] = result.x[denseCount + q]
            }
        }
        let weights = SparseBlockMatrix(rows: start.rows, dimension: start.dimension, block: start.block,
                                        dense: Array(result.x[..<denseCount]), previous: previous)
        return (weights, result.iterations)
    }
}
