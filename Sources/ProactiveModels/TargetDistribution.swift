import Foundation
import ProactiveCore
import CKernels

// MARK: - Unsorted target probabilities

/// A model's probabilities at one moment in its own target order, with an
/// index by key: the hot-path form of `FittedModel.scores(at:)`.
///
/// Ranking every target costs a sort (O(n log n) with key comparisons on
/// ties); a suggestion needs only the few best and the probabilities of a few
/// declared targets. `top(_:)` selects in one pass and `probability(of:)` is
/// one hash lookup.
///
/// ```swift
/// let distribution = model.distribution(at: moment)
/// let best = distribution.top(4)                        // same as scores(at:).prefix(4)
/// let p = distribution.probability(of: declaredTarget)  // 0 when unknown
/// ```
public struct TargetDistribution: Sendable {
    /// Targets in the model's order.
    public let targets: [TargetKey]
    /// `probabilities[i]` belongs to `targets[i]`.
    public let probabilities: [Double]
    private let positions: [TargetKey: Int]

    /// - Precondition: one probability per target, and `positions[targets[i]] == i`.
    public init(targets: [TargetKey], probabilities: [Double], positions: [TargetKey: Int]) {
        precondition(targets.count == probabilities.count, "one probability per target")
        self.targets = targets
        self.probabilities = probabilities
        self.positions = positions
    }

    /// From a ranked list (any order works). - Complexity: O(n).
    public init(ranked: [ScoredTarget]) {
        targets = ranked.map(\.target)
        probabilities = ranked.map(\.probability)
        var positions: [TargetKey: Int] = [:]
        positions.reserveCapacity(ranked.count)
        for (i, entry) in ranked.enumerated() { positions[entry.target] = i }
        self.positions = positions
    }

    public var count: Int { targets.count }

    /// The index of `key`, or nil when the model does not know it.
    @inline(__always)
    public func index(of key: TargetKey) -> Int? { positions[key] }

    /// The probability of `key` (0 when the model does not know it).
    @inline(__always)
    public func probability(of key: TargetKey) -> Double { positions[key].map { probabilities[$0] } ?? 0 }

    /// The order of every ranked list: whether target `i` comes before target `j`
    /// (higher probability first, ties by key).
    @inline(__always)
    static func ranksBefore(_ i: Int, _ j: Int, _ p: UnsafeBufferPointer<Double>, _ targets: [TargetKey]) -> Bool {
        p[i] != p[j] ? p[i] > p[j] : targets[i] < targets[j]
    }

    // MARK: Ranking

    /// Indices of the `k` best targets, best first (ties by key), as `ranked()` would order them.
    /// - Complexity: O(n + k log k) comparisons in the usual case (targets that cannot
    ///   enter are skipped by `proactive_first_not_below`, eight or four per instruction),
    ///   O(n · k) at worst.
    public func topIndices(_ k: Int) -> [Int] {
        let k = min(max(0, k), count)
        guard k > 0 else { return [] }
        // The best so far, sorted, in the result's own storage (shifted by hand: no array insert).
        return [Int](unsafeUninitializedCapacity: k) { best, filled in
            var count = 0
            probabilities.withUnsafeBufferPointer { p in
                @inline(__always) func before(_ i: Int, _ j: Int) -> Bool { Self.ranksBefore(i, j, p, targets) }
                // The k-th best probability so far: most targets fail this one comparison.
                var threshold = -Double.infinity
                let n = p.count
                var i = 0
                while i < n {
                    if count == k {
                        // Skip, eight or four at a time, every target below the threshold (none can enter).
                        i = proactive_first_not_below(p.baseAddress!, i, n, threshold)
                        guard i < n else { break }
                        // Ties with the k-th go to the full comparison (by key).
                        if !before(i, best[k - 1]) {
                            i += 1
                            continue
                        }
                        count -= 1
                    }
                    var position = count
                    while position > 0, before(i, best[position - 1]) {
                        best[position] = best[position - 1]
                        position -= 1
                    }
                    best[position] = i
                    count += 1
                    if count == k { threshold = p[best[k - 1]] }
                    i += 1
                }
            }
            filled = count
        }
    }

    /// The `k` best targets with their probabilities, best first.
    public func top(_ k: Int) -> [ScoredTarget] {
        topIndices(k).map { ScoredTarget(target: targets[$0], probability: probabilities[$0]) }
    }

    /// Every target, best first (ties by key): what `FittedModel.scores(at:)` returns.
    public func ranked() -> [ScoredTarget] { Softmax.rank(probabilities: probabilities, targets: targets) }

    /// Every probability multiplied by `factor` (e.g. P(the user acts now) x P(target | acts)):
    /// the order is unchanged; the values no longer sum to 1 unless `factor` is 1.
    public func scaled(by factor: Double) -> TargetDistribution {
        TargetDistribution(targets: targets, probabilities: probabilities.map { $0 * factor }, positions: positions)
    }
}
