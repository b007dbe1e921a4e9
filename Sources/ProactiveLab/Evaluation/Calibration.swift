import Foundation
import ProactiveModels

// MARK: - Calibration of the first choice

/// How well a model's confidence in its first choice matches how often that
/// choice is right (a reliability diagram).
///
/// Each test donation the model ranked anything for counts once: its
/// confidence is the probability of the model's first choice, and it is a hit
/// when the true target was that choice (rank 1). Confidences fall into
/// `binCount` equal bins over [0, 1] (the last bin includes 1); each bin holds
/// how many donations fell in it, their mean confidence and the share of hits.
/// A calibrated model has `observed ≈ meanPredicted` in every bin.
///
/// ```swift
/// let bins = Calibration.bins(ranks: [1, 2, 1], topProbabilities: [0.85, 0.8, 0.15])
/// // bins[8]: 2 donations, mean predicted 0.825, observed 0.5; bins[1]: 1, 0.15, 1.0
/// ```
public enum Calibration {
    public struct Bin: Sendable, Equatable {
        /// The bin's confidence range: `[lower, upper)`, `upper` included for the last bin.
        public var lower: Double
        public var upper: Double
        public var count: Int
        /// Mean first-choice probability of the donations in the bin (0 when empty).
        public var meanPredicted: Double
        /// Share of those donations whose true target was the first choice (0 when empty).
        public var observed: Double
    }

    /// The bins, lowest first; empty bins are kept (count 0).
    /// - Precondition: `ranks` and `topProbabilities` have the same length; `binCount >= 1`.
    public static func bins(ranks: [Int], topProbabilities: [Double], binCount: Int = 10) -> [Bin] {
        precondition(ranks.count == topProbabilities.count, "one first-choice probability per rank")
        precondition(binCount >= 1)
        var counts = [Int](repeating: 0, count: binCount)
        var sums = [Double](repeating: 0, count: binCount)
        var hits = [Int](repeating: 0, count: binCount)
        for (rank, probability) in zip(ranks, topProbabilities) where probability > 0 && probability.isFinite {
            let bin = min(binCount - 1, Int(min(probability, 1) * Double(binCount)))
            counts[bin] += 1
            sums[bin] += probability
            if rank == 1 { hits[bin] += 1 }
        }
        return (0..<binCount).map { bin in
            let count = counts[bin]
            return Bin(lower: Double(bin) / Double(binCount), upper: Double(bin + 1) / Double(binCount), count: count,
                       meanPredicted: count == 0 ? 0 : sums[bin] / Double(count),
                       observed: count == 0 ? 0 : Double(hits[bin]) / Double(count))
        }
    }
}
