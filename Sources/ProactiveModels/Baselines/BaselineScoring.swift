import Foundation
import ProactiveCore

// MARK: - Weighted tallies

/// Weighted counts per target: the building block of the count-based baselines.
struct TargetTally: Sendable, Hashable {
    private(set) var weights: [TargetKey: Double] = [:]
    private(set) var total: Double = 0

    init() {}

    mutating func add(_ target: TargetKey, weight: Double = 1) {
        weights[target, default: 0] += weight
        total += weight
    }

    subscript(target: TargetKey) -> Double { weights[target] ?? 0 }

    /// The share of `target` (0 when the tally is empty).
    func share(of target: TargetKey) -> Double { total > 0 ? self[target] / total : 0 }
}

// MARK: - Fitting by replay

/// A trainer whose model learns only by counting: fitting is replaying the
/// training events, in order, through `update(with:)`, so an online model
/// equals one refitted on the longer history.
package protocol ReplayTrainer: ModelTrainer {
    /// The model before it has seen anything.
    func makeModel() -> Model
}

extension ReplayTrainer {
    package func fit(_ training: TrainingSet) throws -> Model {
        var model = makeModel()
        for event in training.events { model.update(with: event) }
        return model
    }
}

// MARK: - Turning scores into a ranking

/// Shared output step of every baseline: scores become probabilities, ranked.
package enum BaselineRanking {
    /// Normalises non-negative scores to probabilities and sorts them highest
    /// first; ties (equal probabilities) are broken by target key, ascending,
    /// so rankings are deterministic.
    ///
    /// When every score is zero the probabilities are uniform.
    ///
    /// - Complexity: O(n log n) for n targets.
    package static func ranked(_ scores: [TargetKey: Double]) -> [ScoredTarget] {
        guard !scores.isEmpty else { return [] }
        // Summed in key order: the total, and so every probability, is the same
        // bit for bit whatever the dictionary's (per-process) iteration order.
        var result = scores.map { ScoredTarget(target: $0.key, probability: max($0.value, 0)) }
        result.sort { $0.target < $1.target }
        let total = result.reduce(0) { $0 + $1.probability }
        let uniform = 1 / Double(result.count)
        for index in result.indices { result[index].probability = total > 0 ? result[index].probability / total : uniform }
        result.sort { $0.probability != $1.probability ? $0.probability > $1.probability : $0.target < $1.target }
        return result
    }

    /// Scores blended toward a prior: `(count(t) + strength * prior(t)) / (total + strength)`
    /// over every target of `prior` (Dirichlet smoothing, "backoff"). With an
    /// empty `counts` this is the prior itself.
    static func smoothed(_ counts: TargetTally?, toward prior: TargetTally, strength: Double) -> [TargetKey: Double] {
        var scores: [TargetKey: Double] = [:]
        scores.reserveCapacity(prior.weights.count)
        let countTotal = counts?.total ?? 0
        let denominator = countTotal + strength
        for (target, weight) in prior.weights {
            let priorShare = prior.total > 0 ? weight / prior.total : 0
            let count = counts?[target] ?? 0
            scores[target] = denominator > 0 ? (count + strength * priorShare) / denominator : priorShare
        }
        return scores
    }
}
