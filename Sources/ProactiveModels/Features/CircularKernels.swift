import Foundation

// MARK: - Circular kernels

/// Von Mises kernels around the clock: a minute of the day becomes weights over
/// `count` centres (in the middle of equal slices of the day) that sum to 1, so
/// 23:55 and 00:05 get nearly the same weights. The time-of-day features of the
/// profile (24 hour-wide kernels) and the blend's quarter-hour routine signal and
/// activity level all read the clock through these.
package enum CircularKernels {
    /// The centre angles (radians) of `count` kernels, with their cosines and sines
    /// (so a kernel's cos(angle - centre) is two multiply-adds, not a `cos` call).
    package struct Centres: Sendable, Hashable {
        package let angles: [Double]
        let cosines: [Double]
        let sines: [Double]

        package init(count: Int) {
            angles = CircularKernels.centres(count: count)
            cosines = angles.map { Foundation.cos($0) }
            sines = angles.map { Foundation.sin($0) }
        }

        package var count: Int { angles.count }
    }

    /// The centre angles (radians) of `count` kernels.
    package static func centres(count: Int) -> [Double] {
        let count = max(1, count)
        return (0 ..< count).map { 2 * Double.pi * (Double($0) + 0.5) / Double(count) }
    }

    /// Writes the normalised weights of `minuteOfDay` into `x[start ..< start + centres.count]`.
    /// κ (`concentration`) is the narrowness: exp(κ(cos(angle - centre) - 1)) before normalising,
    /// with cos(angle - centre) = cos(angle) cos(centre) + sin(angle) sin(centre) (one `cos` and
    /// one `sin` per call, not one per kernel) and the softmax's exponential (`Softmax.exponentials`,
    /// within 2 ulp of `exp`, all kernels in one vector loop where the CPU has AVX2).
    package static func write(centres: Centres, concentration: Double, minuteOfDay: Double,
                             into x: UnsafeMutableBufferPointer<Double>, at start: Int) {
        let angle = 2 * Double.pi * minuteOfDay / 1440
        let cosine = Foundation.cos(angle)
        let sine = Foundation.sin(angle)
        let count = centres.count
        for k in 0 ..< count {
            x[start + k] = concentration * ((cosine * centres.cosines[k] + sine * centres.sines[k]) - 1)
        }
        let weights = UnsafeMutableBufferPointer(rebasing: x[start ..< start + count])
        Softmax.exponentials(weights, shiftedBy: 0)
        var total = 0.0
        for k in 0 ..< count { total += weights[k] }
        for k in 0 ..< count { weights[k] /= total }
    }

    /// The weights of `minuteOfDay` over `count` centres, keeping only those above `threshold`
    /// (renormalised), as (kernel, weight) pairs: narrow kernels touch few centres.
    package static func sparseWeights(count: Int, concentration: Double, minuteOfDay: Double,
                                     threshold: Double = 1e-4) -> [(kernel: Int, weight: Double)] {
        let count = max(1, count)
        let angle = 2 * Double.pi * minuteOfDay / 1440
        var dense = [Double](repeating: 0, count: count)
        var total = 0.0
        for k in 0 ..< count {
            dense[k] = Foundation.exp(concentration * (Foundation.cos(angle - 2 * Double.pi * (Double(k) + 0.5) / Double(count)) - 1))
            total += dense[k]
        }
        var kept: [(kernel: Int, weight: Double)] = []
        var keptTotal = 0.0
        for (k, weight) in dense.enumerated() where weight / total >= threshold {
            kept.append((k, weight))
            keptTotal += weight
        }
        return kept.map { ($0.kernel, $0.weight / keptTotal) }
    }
}
