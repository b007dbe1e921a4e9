import Foundation

// MARK: - Seeded randomness

/// A small, fast, seedable random number generator (SplitMix64, Steele,
/// Lea & Flood 2014): the same seed gives the same sequence on every platform,
/// which Swift's `SystemRandomNumberGenerator` cannot.
///
/// ```swift
/// var random = SeededGenerator(seed: 42)
/// let roll = Int.random(in: 1...6, using: &random)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An independent generator derived from this seed and a label (a user
    /// index, a purpose), so parts of a simulation do not shift each other's streams.
    public static func derived(seed: UInt64, _ label: UInt64) -> SeededGenerator {
        var mixer = SeededGenerator(seed: seed ^ (label &* 0xD1B5_4A32_D192_ED03))
        return SeededGenerator(seed: mixer.next())
    }

    /// A uniform double in [0, 1) with 53 random bits (same on every platform,
    /// unlike `Double.random(in:using:)` whose algorithm is unspecified).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform integer in `range` (bias below 2^-32 for ranges under 2^32).
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }

    /// A normal deviate (Box-Muller).
    public mutating func gaussian(mean: Double = 0, deviation: Double = 1) -> Double {
        let u1 = max(unit(), 0x1p-53)
        let u2 = unit()
        return mean + deviation * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// An element chosen with probability proportional to its weight.
    ///
    /// - Precondition: `weighted` is non-empty with a positive total.
    package mutating func pick<T>(_ weighted: [(T, Double)]) -> T {
        let total = weighted.reduce(0) { $0 + $1.1 }
        precondition(!weighted.isEmpty && total > 0, "nothing to pick from")
        var threshold = unit() * total
        for (value, weight) in weighted {
            threshold -= weight
            if threshold < 0 { return value }
        }
        return weighted.last!.0
    }
}
