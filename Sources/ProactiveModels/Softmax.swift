import Foundation
import ProactiveCore
import LinearAlgebra

// MARK: - Softmax and ranking

/// Turning log-scores into probabilities and ranked results.
public enum Softmax {
    /// exp(s - max) normalised to sum 1, in place. Non-finite scores of -∞ get probability 0.
    /// An empty input stays empty. - Complexity: O(n), one `exp` per score.
    public static func normalize(_ scores: inout [Double]) {
        guard let maximum = scores.max(), maximum.isFinite else {
            if !scores.isEmpty { scores = [Double](repeating: 1 / Double(scores.count), count: scores.count) }
            return
        }
        scores.withUnsafeMutableBufferPointer { s in
            var total = 0.0
            for i in 0 ..< s.count {
                let e = Foundation.exp(s[i] - maximum)
                s[i] = e
                total += e
            }
            for i in 0 ..< s.count { s[i] /= total }
        }
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

    /// Probabilities of `logScores` (one per target of `space`, index order), unsorted.
    public static func distribution(logScores: [Double], space: FeatureSpace) -> TargetDistribution {
        var probabilities = logScores
        normalize(&probabilities)
        return TargetDistribution(targets: space.targets, probabilities: probabilities, positions: space.positions)
    }

    /// Pairs probabilities with targets and sorts them highest first, ties by key.
    ///
    /// Sorts positions (cheap `Double` comparisons, keys compared only on ties)
    /// and builds the pairs once, in order, instead of sorting the pairs themselves.
    public static func rank(probabilities: [Double], targets: [TargetKey]) -> [ScoredTarget] {
        precondition(probabilities.count == targets.count, "one probability per target")
        var order = Array(probabilities.indices)
        probabilities.withUnsafeBufferPointer { p in
            order.sort { TargetDistribution.ranksBefore($0, $1, p, targets) }
        }
        return order.map { ScoredTarget(target: targets[$0], probability: probabilities[$0]) }
    }
}

extension FittedModel {
    /// The `k` most probable targets at `moment` (all targets when there are fewer).
    public func top(_ k: Int, at moment: Moment) -> [ScoredTarget] {
        Array(scores(at: moment).prefix(max(0, k)))
    }
}

// MARK: - Batch scoring

extension Softmax {
    /// Ranks many moments at once: one `dgemm` of the stacked feature vectors
    /// (moments × columns) with the row-major weight matrix (targets × columns)
    /// transposed, then a softmax per moment. Equal to scoring each moment alone
    /// up to rounding (about 1e-12 relative).
    /// - Parameters:
    ///   - vectors: one feature vector of `columns` entries per moment.
    ///   - weights: targets × columns, row-major.
    static func rankedBatch(vectors: [[Double]], weights: [Double], columns: Int, targets: [TargetKey]) -> [[ScoredTarget]] {
        let rows = targets.count
        guard rows > 0, !vectors.isEmpty else { return vectors.map { _ in [] } }
        var xs = [Double]()
        xs.reserveCapacity(vectors.count * columns)
        for vector in vectors { xs.append(contentsOf: vector) }
        var product = [Double](repeating: 0, count: vectors.count * rows)
        xs.withUnsafeBufferPointer { b in
            weights.withUnsafeBufferPointer { a in
                product.withUnsafeMutableBufferPointer { c in
                    BLASKernels.dgemm(m: vectors.count, n: rows, k: columns, a: b, b: a, transposeB: true, c: c)
                }
            }
        }
        return (0 ..< vectors.count).map { i in
            ranked(logScores: Array(product[i * rows ..< (i + 1) * rows]), targets: targets)
        }
    }
}
