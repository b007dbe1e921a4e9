import Foundation

// MARK: - The routine signal: counts over nested contexts

/// The blend's `routine` signal: per target, log P(target | context) from the user's own counts over
/// nested contexts, each level smoothed toward the next coarser one (a hierarchical Dirichlet, or
/// "interpolated backoff", estimate):
///
///     P0(t) = (n(t) + s0 / T) / (n + s0)                                the user's frequency
///     P1(t) = (n_day(t) + s1 · P0(t)) / (n_day + s1)                    this day type (weekday, weekend)
///     P2(t) = (n_day,here(t) + s2 · P1(t)) / (n_day,here + s2)          this day type, near this quarter hour
///     P3(t) = (m_day,prev(t) + s3 · P2(t)) / (m_day,prev + s3)          after the previous target, this day type
///
/// n are decayed counts of uses (the routine half-life; one use's quarter-hour kernel weights sum to 1),
/// `n_day,here` weighs each use by how near its time of day is to the moment's (its quarter-hour kernels
/// read at the moment's minute, 1 for a use at that very minute, about ¼ half an hour away); `m_day,prev` counts what followed the previous target within the transition
/// window on this day type, and applies only when the previous use is that recent (else P3 = P2). A
/// context seen often speaks for itself; one seen rarely defers to the coarser one: twelve weekend
/// mornings without coffee outweigh a transition seen on weekdays, and a weekday at 07:40 says coffee
/// whether or not the weather was checked first.
///
/// ```swift
/// let logP = RoutineSignal.logProbabilities(usage, targets: 3, weekend: false, minuteOfDay: 458, fine: kernels,
///                                           now: now, previous: 0, gap: 600)
/// ```
enum RoutineSignal {
    /// How many uses each context's own counts must reach to count as much as its coarser context
    /// (pseudo-counts): frequency toward uniform, day type, quarter hour, previous target.
    static let strengths = (frequency: 1.0, day: 4.0, time: 2.0, follow: 2.0)

    /// log P3 for every target (index order) at a moment.
    /// - Parameters:
    ///   - weekend, minuteOfDay: the moment's day type and minute on the user's clock.
    ///   - fine: the quarter-hour kernel weights of that minute (sparse, as `BlendModel.fineKernels`).
    ///   - now: the moment (seconds since 1970), for the decay of the counts.
    ///   - previous: the last used target, if any, and `gap` the seconds since that use.
    static func logProbabilities(_ usage: UsageTracker, targets: Int, weekend: Bool, minuteOfDay: Double,
                                 fine: [(kernel: Int, weight: Double)], now: Double, previous: Int?, gap: Double) -> [Double] {
        guard targets > 0 else { return [] }
        guard let levels = Levels(usage, targets: targets, weekend: weekend, minuteOfDay: minuteOfDay, fine: fine, now: now) else {
            return [Double](repeating: -Foundation.log(Double(targets)), count: targets)
        }
        // Each level's total, summed in target order from 0 (as `smoothed` sums a level's counts).
        var totals = (frequency: 0.0, day: 0.0, here: 0.0)
        for t in 0 ..< targets {
            let c = levels.counts(t)
            totals.frequency += c.frequency
            totals.day += c.day
            totals.here += c.here
        }
        let s = strengths
        var followed: [Double]?
        var followTotal = 0.0
        if let previous, previous < targets, gap > 0, gap <= usage.followWindow {
            let dayType = weekend ? 1 : 0
            var counts = [Double](repeating: 0, count: targets)
            for (next, count) in usage.follows[dayType][previous] where next < targets { counts[next] = count }
            for count in counts { followTotal += count }
            followed = counts
        }
        // Every level smoothed toward the coarser one, target by target: one pass, no array per level
        // (the operations of `smoothed` applied level after level, so the same bits).
        let uniform = 1 / Double(targets)
        let (frequencyTotal, dayTotal, hereTotal) = (totals.frequency + s.frequency, totals.day + s.day, totals.here + s.time)
        followTotal += s.follow
        return [Double](unsafeUninitializedCapacity: targets) { logP, count in
            for t in 0 ..< targets {
                let c = levels.counts(t)
                var p = (c.frequency + s.frequency * uniform) / frequencyTotal
                p = (c.day + s.day * p) / dayTotal
                p = (c.here + s.time * p) / hereTotal
                if let followed { p = (followed[t] + s.follow * p) / followTotal }
                logP[t] = Foundation.log(p)
            }
            count = targets
        }
    }

    /// A moment's decayed counts at the three coarser levels, target by target: every use (P0's),
    /// this day type's (P1's) and this day type's near this minute (P2's).
    struct Levels {
        let usage: UsageTracker
        let weekend: Bool
        /// Per target: uses near this minute, all days and weekends (stored scale).
        let nearAll: [Double], nearWeekend: [Double]
        /// The factors to uses now: near this minute (divided by one use here), and of the totals.
        let fineAll: Double, fineWeekend: Double, totalAll: Double, totalWeekend: Double

        /// nil when the counts cannot say anything at this minute (no quarter-hour kernel known,
        /// or none of them reaches it): the signal is then uniform.
        init?(_ usage: UsageTracker, targets: Int, weekend: Bool, minuteOfDay: Double, fine: [(kernel: Int, weight: Double)], now: Double) {
            let stride = usage.fineKernels
            let kernels = fine.filter { $0.kernel < stride }
            guard stride > 0, !kernels.isEmpty else { return nil }
            // Uses near this minute, read at the two quarter-hour centres around it (linear interpolation: sharper
            // than weighing every kernel again), in uses: divided by what one use at this very minute gives there.
            let position = (minuteOfDay / (1440 / Double(stride)) - 0.5 + Double(stride))
                .truncatingRemainder(dividingBy: Double(stride))
            let below = Int(position.rounded(.down)) % stride, above = (Int(position.rounded(.down)) + 1) % stride
            let share = position - position.rounded(.down)
            let columns = [below, above], weights = [1 - share, share]
            func own(_ kernel: Int) -> Double { kernels.first { $0.kernel == kernel }?.weight ?? 0 }  // a few kernels: no table
            let oneUseHere = (1 - share) * own(below) + share * own(above)
            guard oneUseHere > 0 else { return nil }
            self.usage = usage
            self.weekend = weekend
            nearAll = usage.fineTime.values.withUnsafeBufferPointer {
                SignalFrame.kernelSums($0, stride: stride, columns: columns, weights: weights, targets: targets)
            }
            nearWeekend = usage.weekendFine.values.withUnsafeBufferPointer {
                SignalFrame.kernelSums($0, stride: stride, columns: columns, weights: weights, targets: targets)
            }
            (fineAll, fineWeekend) = (usage.fineTime.factor(at: now) / oneUseHere, usage.weekendFine.factor(at: now) / oneUseHere)
            // One use's kernel weights sum to 1: the totals are in uses already.
            (totalAll, totalWeekend) = (usage.fineTotals.factor(at: now), usage.weekendTotals.factor(at: now))
        }

        /// Target t's counts in uses: all (frequency), this day type (day), this day type near this minute (here).
        @inline(__always)
        func counts(_ t: Int) -> (frequency: Double, day: Double, here: Double) {
            let all = usage.fineTotals.values[t] * totalAll, ofWeekend = usage.weekendTotals.values[t] * totalWeekend
            let near = nearAll[t] * fineAll, nearOfWeekend = nearWeekend[t] * fineWeekend
            return (all, weekend ? ofWeekend : max(0, all - ofWeekend), weekend ? nearOfWeekend : max(0, near - nearOfWeekend))
        }
    }

    /// (counts(t) + strength · coarser(t)) / (Σ counts + strength), per target: one level on its own
    /// (`logProbabilities` runs the levels together in one pass, with the same operations).
    static func smoothed(_ counts: [Double], strength: Double, toward coarser: [Double]) -> [Double] {
        let total = counts.reduce(0, +) + strength
        return zip(counts, coarser).map { ($0 + strength * $1) / total }
    }
}
