import Foundation
import ProactiveCore
import LinearAlgebra
import CKernels

// MARK: - Softmax and ranking

/// Turning log-scores into probabilities and ranked results.
package enum Softmax {
    /// exp(s - max) normalised to sum 1, in place. Non-finite scores of -∞ get probability 0.
    /// An empty input stays empty.
    /// - Complexity: O(n): one `expNonPositive` per score, then a sum in four lanes and a scaling,
    ///   in C with AVX-512 or AVX2 where the CPU has them (the same bits as the loops here).
    package static func normalize(_ scores: inout [Double]) {
        normalize(&scores, allowingKernel: true)
    }

    /// `normalize`, with `allowingKernel` false running the Swift loops only (the reference the
    /// C kernels are tested against).
    static func normalize(_ scores: inout [Double], allowingKernel: Bool) {
        guard let maximum = largest(scores, allowingKernel: allowingKernel), maximum.isFinite else {
            if !scores.isEmpty { scores = [Double](repeating: 1 / Double(scores.count), count: scores.count) }
            return
        }
        scores.withUnsafeMutableBufferPointer { normalize($0, shiftedBy: maximum, allowingKernel: allowingKernel) }
    }

    /// The softmax of `s` given its (finite) maximum: `proactive_softmax_shifted` where the CPU
    /// runs it, else the same three loops here: exponentials, a sum in four lanes combined
    /// (0 + 1) + (2 + 3) plus the rest in order, the scaling by 1 / total.
    static func normalize(_ s: UnsafeMutableBufferPointer<Double>, shiftedBy maximum: Double, allowingKernel: Bool = true) {
        guard let base = s.baseAddress else { return }
        if allowingKernel, proactive_softmax_shifted(base, s.count, maximum) != 0 { return }
        exponentials(s, shiftedBy: maximum, allowingKernel: false)
        var lanes = SIMD4<Double>()
        var i = 0
        while i + 4 <= s.count {
            lanes += SIMD4(s[i], s[i + 1], s[i + 2], s[i + 3])
            i += 4
        }
        var total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
        while i < s.count {
            total += s[i]
            i += 1
        }
        let inverse = 1 / total
        for i in 0 ..< s.count { s[i] *= inverse }
    }

    /// s[i] = expNonPositive(s[i] - maximum), bit for bit: eight or four lanes at a time in C where
    /// the CPU has AVX-512 or AVX2 (the build targets plain x86-64, whose two-lane SSE2 loop is the
    /// softmax's largest cost), this loop otherwise.
    static func exponentials(_ s: UnsafeMutableBufferPointer<Double>, shiftedBy maximum: Double, allowingKernel: Bool = true) {
        guard let base = s.baseAddress else { return }
        if allowingKernel, proactive_exp_shifted(base, s.count, maximum) != 0 { return }
        for i in 0 ..< s.count { s[i] = expNonPositive(s[i] - maximum) }
    }

    /// `scores.max()`, the same value, in four lanes that start from the first score and each
    /// follow `max()`'s rule (replace when smaller, so a NaN never enters and a leading NaN
    /// stays), then are combined by it: `proactive_largest` where the CPU runs it (more lanes,
    /// the same rule; only a zero maximum's sign may differ, which no softmax value shows).
    @inline(__always)
    static func largest(_ scores: [Double], allowingKernel: Bool = true) -> Double? {
        guard scores.count >= 8 else { return scores.max() }
        return scores.withUnsafeBufferPointer { s in
            var found = 0.0
            if allowingKernel, proactive_largest(s.baseAddress!, s.count, &found) != 0 { return found }
            var lanes = SIMD4(repeating: s[0])
            var i = 1
            while i + 4 <= s.count {
                let next = SIMD4(s[i], s[i + 1], s[i + 2], s[i + 3])
                lanes.replace(with: next, where: lanes .< next)
                i += 4
            }
            var result = lanes[0]
            for lane in 1 ..< 4 where result < lanes[lane] { result = lanes[lane] }
            while i < s.count {
                if result < s[i] { result = s[i] }
                i += 1
            }
            return result
        }
    }

    /// e^x for x <= 0, within about 2 ulp of `Foundation.exp` (a test checks it over the range);
    /// 0 below -708 (where e^x < 2.3e-308) and for -∞ and NaN-free inputs.
    ///
    /// x = n ln 2 + r with n = round(x / ln 2) and |r| <= ln 2 / 2 (Cody-Waite, ln 2 split
    /// in two), e^r by its Taylor polynomial of degree 12 (truncation below 2e-16
    /// relative), times 2^n built from the exponent bits. No branches, no library call:
    /// the softmax loop vectorises, where one glibc `exp` per target cost about 50
    /// instructions. Every multiply-add is fused (`addingProduct`), as in the C kernels,
    /// which run it on one FMA instruction each (where the CPU has no FMA, this Swift
    /// copy, only used there, computes each fused step in software).
    @inline(__always)
    package static func expNonPositive(_ x: Double) -> Double {
        let clamped = Swift.max(x, -708.0)
        let shifter = 6_755_399_441_055_744.0   // 1.5 * 2^52: adding it rounds to an integer
        let shifted = shifter.addingProduct(clamped, 1.442_695_040_888_963_4)
        let n = shifted - shifter
        var r = clamped.addingProduct(-n, 0.693_147_180_369_123_8)
        r = r.addingProduct(-n, 1.908_214_929_270_587_7e-10)
        var p = 2.087_675_698_786_809_9e-09   // 1/12!
        p = (2.505_210_838_544_171_9e-08).addingProduct(p, r)
        p = (2.755_731_922_398_589_1e-07).addingProduct(p, r)
        p = (2.755_731_922_398_589_3e-06).addingProduct(p, r)
        p = (2.480_158_730_158_730_2e-05).addingProduct(p, r)
        p = (1.984_126_984_126_984_1e-04).addingProduct(p, r)
        p = (1.388_888_888_888_888_9e-03).addingProduct(p, r)
        p = (8.333_333_333_333_333_2e-03).addingProduct(p, r)
        p = (4.166_666_666_666_666_4e-02).addingProduct(p, r)
        p = (1.666_666_666_666_666_6e-01).addingProduct(p, r)
        p = (0.5).addingProduct(p, r)
        p = (1.0).addingProduct(p, r)
        p = (1.0).addingProduct(p, r)
        let exponent = (Int64(bitPattern: shifted.bitPattern) &- Int64(bitPattern: shifter.bitPattern)) &+ 1023
        let scale = Double(bitPattern: UInt64(bitPattern: exponent) &<< 52)
        return x < -708 ? 0 : p * scale
    }

    /// log Σ exp(s), stable. -∞ for an empty input.
    package static func logSumExp(_ scores: [Double]) -> Double {
        guard let maximum = scores.max(), maximum.isFinite else { return -.infinity }
        var total = 0.0
        for score in scores { total += Foundation.exp(score - maximum) }
        return maximum + Foundation.log(total)
    }

    /// Probabilities of `logScores` paired with `targets` (same order), highest first,
    /// ties broken by target key.
    package static func ranked(logScores: consuming [Double], targets: [TargetKey]) -> [ScoredTarget] {
        var probabilities = logScores
        normalize(&probabilities)
        return rank(probabilities: probabilities, targets: targets)
    }

    /// Probabilities of `logScores` (one per target of `space`, index order), unsorted.
    /// Normalises in place when the caller hands over its only reference (no copy).
    package static func distribution(logScores: consuming [Double], space: FeatureSpace) -> TargetDistribution {
        var probabilities = logScores
        normalize(&probabilities)
        return TargetDistribution(targets: space.targets, probabilities: probabilities, positions: space.positions)
    }

    /// Pairs probabilities with targets and sorts them highest first, ties by key.
    ///
    /// Sorts positions (cheap `Double` comparisons, keys compared only on ties)
    /// and builds the pairs once, in order, instead of sorting the pairs themselves.
    package static func rank(probabilities: [Double], targets: [TargetKey]) -> [ScoredTarget] {
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
