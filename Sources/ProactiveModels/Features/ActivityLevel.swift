import Foundation
import ProactiveCore

// MARK: - Activity level

/// How likely the user is to act at all at a moment, from when they have acted:
/// the intensity of their donations around this time of day on this weekday
/// (decayed), compared with the intensity at which they usually act.
///
/// With A(d, m) the decayed number of donations (occasions, not counts) near minute
/// m of weekday d, read through 24 narrow hour-spaced kernels (κ = 64), and D(d) the decayed number
/// of days of weekday d since the user's first donation, the intensity is
///
///     λ(d, m) = (A(d, m) + s·λ_type(m)) / (D(d) + s),
///     λ_type(m) = (A_type(m) + s'·λ_flat) / (D_type + s'),
///
/// pooled toward the user's weekdays or weekends (s = 2 days) and those toward the
/// user's flat rate (s' = 1 day). The usual intensity λ_usual is the mean of λ over
/// the user's own donations. The level is
///
///     activity = max( min(1, λ(d, m) / (½ · λ_usual)), ½^(minutes since the last use / 10) ):
///
/// 1 at any time at least half as busy as the user's usual times, and right after
/// a use; about 0 at hours the user has never acted. Ranking applies its floors to
/// activity × P(target | the user acts now) (docs/RANKING.md).
package struct ActivityLevel: Sendable, Equatable {
    /// Hour-wide kernels per weekday.
    package let kernels: Int
    /// Donations by weekday x kernel (weekday-major), decayed.
    private(set) var sums: DecayedSums
    /// Local day number of the first donation.
    private(set) var firstDay: Int?

    static let weekdayPseudoDays = 2.0
    static let typePseudoDays = 1.0
    static let recentUseHalfLifeMinutes = 10.0

    package init(kernels: Int, halfLifeDays: Double) {
        self.kernels = kernels
        sums = DecayedSums(halfLifeDays: halfLifeDays, count: 7 * kernels)
    }

    init(kernels: Int, sums: DecayedSums, firstDay: Int?) {
        self.kernels = kernels
        self.sums = sums
        self.firstDay = firstDay
    }

    /// Records one donation (an occasion: its count does not matter).
    mutating func record(reading: LocalClock.Reading, kernelWeights: [Double], time: Double) {
        for (k, value) in kernelWeights.prefix(kernels).enumerated() where value > 1e-6 {
            sums.add(value, at: reading.weekday * kernels + k, time: time)
        }
        firstDay = min(firstDay ?? reading.day, reading.day)
    }

    /// The decayed number of days of each weekday from the first donation's day to `reading`'s day.
    func observedDays(at reading: LocalClock.Reading) -> [Double] {
        guard let firstDay, reading.day >= firstDay else { return [Double](repeating: 0, count: 7) }
        let dayDecay = Foundation.exp2(-86_400 / sums.halfLifeSeconds)
        let weekDecay = Foundation.pow(dayDecay, 7)
        return (0 ..< 7).map { weekday in
            let back = ((reading.weekday - weekday) % 7 + 7) % 7
            let latest = reading.day - back
            guard latest >= firstDay else { return 0 }
            let count = Double((latest - firstDay) / 7 + 1)
            let newest = Foundation.pow(dayDecay, Double(back))
            return weekDecay < 1 ? newest * (1 - Foundation.pow(weekDecay, count)) / (1 - weekDecay) : newest * count
        }
    }

    /// The activity level (0...1) at a moment read as `reading` with hour-kernel weights
    /// `kernelWeights`, at `time`, when the user's last use was at `lastUse`.
    package func level(reading: LocalClock.Reading, kernelWeights: [Double], time: Double, lastUse: Double) -> Double {
        let recent = time >= lastUse ? Foundation.exp2(-(time - lastUse) / 60 / Self.recentUseHalfLifeMinutes) : 0
        let days = observedDays(at: reading)
        let factor = sums.factor(at: time)
        let totalDays = days.reduce(0, +)
        guard totalDays > 0 else { return max(recent, 1) }
        var slots = [Double](repeating: 0, count: 7 * kernels)
        var total = 0.0
        for i in slots.indices {
            slots[i] = sums.values[i] * factor
            total += slots[i]
        }
        guard total > 0 else { return max(recent, 1) }
        let flat = total / totalDays / Double(kernels)
        func isWeekend(_ weekday: Int) -> Bool { weekday >= 5 }
        /// λ at weekday d for per-kernel donation mass `mass(d)` (a slot, or a kernel-weighted read).
        func intensity(weekday d: Int, mass: (Int) -> Double) -> Double {
            var typeMass = 0.0
            var typeDays = 0.0
            for e in 0 ..< 7 where isWeekend(e) == isWeekend(d) {
                typeMass += mass(e)
                typeDays += days[e]
            }
            let typeRate = (typeMass + Self.typePseudoDays * flat) / (typeDays + Self.typePseudoDays)
            return (mass(d) + Self.weekdayPseudoDays * typeRate) / (days[d] + Self.weekdayPseudoDays)
        }
        var usual = 0.0
        for d in 0 ..< 7 {
            for k in 0 ..< kernels where slots[d * kernels + k] > 0 {
                usual += slots[d * kernels + k] / total * intensity(weekday: d) { slots[$0 * kernels + k] }
            }
        }
        let now = intensity(weekday: reading.weekday) { e in
            var mass = 0.0
            for (k, w) in kernelWeights.prefix(kernels).enumerated() { mass += w * slots[e * kernels + k] }
            return mass
        }
        return max(recent, min(1, now / (0.5 * usual)))
    }
}
