import Foundation
import ProactiveCore

// MARK: - Softmax and ranking

/// Turning log-scores into probabilities and ranked results.
public enum Softmax {
    /// exp(s - max) normalised to sum 1, in place. Non-finite scores of -∞ get probability 0.
    /// An empty input stays empty. - Complexity: O(n).
    public static func normalize(_ scores: inout [Double]) {
        guard let maximum = scores.max(), maximum.isFinite else {
            if !scores.isEmpty { scores = [Double](repeating: 1 / Double(scores.count), count: scores.count) }
            return
        }
        var total = 0.0
        for i in scores.indices {
            scores[i] = Foundation.exp(scores[i] - maximum)
            total += scores[i]
        }
        for i in scores.indices { scores[i] /= total }
    }

    /// log Σ exp(s), stable. -∞ for an empty input.
    public static func logSumExp(_ scores: [Double]) -> Double {
        guard let maximum = scores.max(), maximum.isFinite else { return -.infinity }
        var total = 0.0
        for score in scores { total += Foundation.exp(score - maximum) }
        return maximum + Foundation.log(total)
    }

    /// Probabilities of `logScores` paired with `targets` (same order), highest first,
    /// ties broken by target key.
    public static func ranked(logScores: [Double], targets: [TargetKey]) -> [ScoredTarget] {
        var probabilities = logScores
        normalize(&probabilities)
        return rank(probabilities: probabilities, targets: targets)
    }

    /// Pairs probabilities with targets and sorts them highest first, ties by key.
    public static func rank(probabilities: [Double], targets: [TargetKey]) -> [ScoredTarget] {
        precondition(probabilities.count == targets.count, "one probability per target")
        var scored = zip(targets, probabilities).map { ScoredTarget(target: $0, probability: $1) }
        scored.sort { $0.probability != $1.probability ? $0.probability > $1.probability : $0.target < $1.target }
        return scored
    }
}

extension FittedModel {
    /// The `k` most probable targets at `moment` (all targets when there are fewer).
    public func top(_ k: Int, at moment: Moment) -> [ScoredTarget] {
        Array(scores(at: moment).prefix(max(0, k)))
    }
}
