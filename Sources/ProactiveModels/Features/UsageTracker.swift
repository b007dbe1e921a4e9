import Foundation
import ProactiveCore

// MARK: - Decayed sums

/// Per-slot sums of weights decaying with a half-life, stored scaled by
/// 2^(time/h - anchor) so adding is O(1) and reading at any time is one factor.
/// The anchor moves in whole half-lives (an exact power-of-two rescale).
struct DecayedSums: Sendable, Equatable {
    let halfLifeSeconds: Double
    private(set) var anchor: Double = 0
    private(set) var values: [Double]
    private var anchored = false

    init(halfLifeDays: Double, count: Int = 0) {
        halfLifeSeconds = halfLifeDays * 86_400
        values = [Double](repeating: 0, count: count)
    }

    mutating func grow(to count: Int) {
        if values.count < count { values += [Double](repeating: 0, count: count - values.count) }
    }

    mutating func add(_ weight: Double, at slot: Int, time: Double) {
        let exponent = time / halfLifeSeconds
        if !anchored {
            anchor = exponent.rounded(.down)
            anchored = true
        }
        if exponent - anchor > 600 {
            let shift = (exponent - anchor - 300).rounded(.down)
            anchor += shift
            for i in values.indices { values[i] = Foundation.scalbn(values[i], -Int(shift)) }
        }
        values[slot] += weight * Foundation.exp2(exponent - anchor)
    }

    /// The factor turning stored values into values decayed to `time`.
    func factor(at time: Double) -> Double { Foundation.exp2(anchor - time / halfLifeSeconds) }

    /// Restores saved sums exactly (model files).
    init(halfLifeSeconds: Double, anchor: Double, values: [Double], anchored: Bool) {
        self.halfLifeSeconds = halfLifeSeconds
        self.anchor = anchor
        self.values = values
        self.anchored = anchored
    }

    var isAnchored: Bool { anchored }

    func value(at slot: Int, time: Double) -> Double { values[slot] * factor(at: time) }
}

// MARK: - Usage tracker

/// Recency, frequency and transitions of each target, learned in time order:
/// when each target was last used, its decayed frequency over a short and a
/// long half-life, and decayed counts of which target followed which.
package struct UsageTracker: Sendable, Equatable {
    package private(set) var lastUse: [Double]
    package private(set) var lastTarget: Int?
    package private(set) var lastTime: Double = -.infinity
    private(set) var short: DecayedSums
    private(set) var long: DecayedSums
    /// transitions[previous][next]: scaled like `long` (same half-life, own anchor per row is not needed).
    package private(set) var transitions: [[Int: Double]]
    private(set) var transitionTotals: DecayedSums
    /// Recent use by time of day: slot target x kernels + kernel, a short half-life.
    private(set) var timeOfDay: DecayedSums
    /// The same with the long half-life, to compare recent use at a time of day with the usual.
    private(set) var timeOfDayLong: DecayedSums
    package let timeKernels: Int
    /// Use by quarter-hour kernel: slot target x `fineKernels` + kernel, the routine half-life.
    private(set) var fineTime: DecayedSums
    /// Each target's total of `fineTime` (the same half-life), so reading a share is O(kernels touched).
    private(set) var fineTotals: DecayedSums
    package let fineKernels: Int
    /// Every use ever learned (counts included) and every donation (occasions), not decayed.
    package private(set) var uses: [Double]
    package private(set) var occasions: [Double]
    /// log(uses + ε) and log(occasions + ε) per target (ε = `frequencyEpsilon`): the blend's frequency
    /// signals, which change only when a use is recorded, so they are kept up to date here instead of
    /// being taken again for every target at every moment. Derived (not saved; rebuilt on restore).
    private(set) var logUses: [Double]
    private(set) var logOccasions: [Double]
    /// The ε of the blend's log signals of counts and decayed sums (so a never-used target scores log ε).
    static let frequencyEpsilon = 0.01
    /// When the user acts at all.
    package private(set) var activity: ActivityLevel
    /// The weekend part of `fineTime` and of `fineTotals` (the same half-life): a weekday's use is the
    /// difference, so day type x quarter hour costs one more table, not two.
    private(set) var weekendFine: DecayedSums
    private(set) var weekendTotals: DecayedSums
    /// What followed each target within `followWindow` seconds, by the day type of the use that followed
    /// (0 weekday, 1 weekend): `follows[dayType][previous][next]`, not decayed (what follows X is learned over
    /// months; it applies only when X was just used), one per donation whatever its count (an occasion; uses at
    /// the same instant, as in aggregated logs, follow nothing).
    package private(set) var follows: [[[Int: Double]]]
    package let followWindow: Double
    /// Every use of the last months by local day (`DayHistory`), for the habit-rate signal.
    package internal(set) var dayHistory = DayHistory()

    package init(targetCount: Int, shortHalfLifeDays: Double, longHalfLifeDays: Double, timeKernels: Int = 24,
                habitHalfLifeDays: Double = 3, fineKernels: Int = 96, routineHalfLifeDays: Double = 30, followWindow: Double = 1800) {
        self.timeKernels = timeKernels
        self.fineKernels = fineKernels
        fineTime = DecayedSums(halfLifeDays: routineHalfLifeDays, count: targetCount * fineKernels)
        fineTotals = DecayedSums(halfLifeDays: routineHalfLifeDays, count: targetCount)
        weekendFine = DecayedSums(halfLifeDays: routineHalfLifeDays, count: targetCount * fineKernels)
        weekendTotals = DecayedSums(halfLifeDays: routineHalfLifeDays, count: targetCount)
        follows = [[[Int: Double]]](repeating: [[Int: Double]](repeating: [:], count: targetCount), count: 2)
        self.followWindow = followWindow
        uses = [Double](repeating: 0, count: targetCount)
        occasions = [Double](repeating: 0, count: targetCount)
        logUses = [Double](repeating: Self.logFrequency(0), count: targetCount)
        logOccasions = logUses
        activity = ActivityLevel(kernels: timeKernels, halfLifeDays: routineHalfLifeDays)
        timeOfDay = DecayedSums(halfLifeDays: habitHalfLifeDays, count: targetCount * timeKernels)
        timeOfDayLong = DecayedSums(halfLifeDays: longHalfLifeDays, count: targetCount * timeKernels)
        lastUse = [Double](repeating: -.infinity, count: targetCount)
        short = DecayedSums(halfLifeDays: shortHalfLifeDays, count: targetCount)
        long = DecayedSums(halfLifeDays: longHalfLifeDays, count: targetCount)
        transitions = [[Int: Double]](repeating: [:], count: targetCount)
        transitionTotals = DecayedSums(halfLifeDays: longHalfLifeDays, count: targetCount)
    }

    package var targetCount: Int { lastUse.count }

    /// Restores a saved tracker exactly (model files).
    init(lastUse: [Double], lastTarget: Int?, lastTime: Double, short: DecayedSums, long: DecayedSums, transitions: [[Int: Double]],
         transitionTotals: DecayedSums, timeOfDay: DecayedSums, timeOfDayLong: DecayedSums, timeKernels: Int,
         fineTime: DecayedSums, fineTotals: DecayedSums, fineKernels: Int, uses: [Double], occasions: [Double],
         activity: ActivityLevel, weekendFine: DecayedSums, weekendTotals: DecayedSums, follows: [[[Int: Double]]],
         followWindow: Double) {
        self.weekendFine = weekendFine
        self.weekendTotals = weekendTotals
        self.follows = follows
        self.followWindow = followWindow
        self.fineTime = fineTime
        self.fineTotals = fineTotals
        self.fineKernels = fineKernels
        self.uses = uses
        self.occasions = occasions
        logUses = uses.map(Self.logFrequency)
        logOccasions = occasions.map(Self.logFrequency)
        self.activity = activity
        self.lastUse = lastUse
        self.lastTarget = lastTarget
        self.lastTime = lastTime
        self.short = short
        self.long = long
        self.transitions = transitions
        self.transitionTotals = transitionTotals
        self.timeOfDay = timeOfDay
        self.timeOfDayLong = timeOfDayLong
        self.timeKernels = timeKernels
    }

    package mutating func grow(to count: Int) {
        guard count > lastUse.count else { return }
        lastUse += [Double](repeating: -.infinity, count: count - lastUse.count)
        short.grow(to: count)
        long.grow(to: count)
        transitions += [[Int: Double]](repeating: [:], count: count - transitions.count)
        transitionTotals.grow(to: count)
        timeOfDay.grow(to: count * timeKernels)
        timeOfDayLong.grow(to: count * timeKernels)
        fineTime.grow(to: count * fineKernels)
        fineTotals.grow(to: count)
        weekendFine.grow(to: count * fineKernels)
        weekendTotals.grow(to: count)
        for day in 0 ..< 2 {
            follows[day] += [[Int: Double]](repeating: [:], count: count - follows[day].count)
        }
        uses += [Double](repeating: 0, count: count - uses.count)
        occasions += [Double](repeating: 0, count: count - occasions.count)
        logUses += [Double](repeating: Self.logFrequency(0), count: count - logUses.count)
        logOccasions += [Double](repeating: Self.logFrequency(0), count: count - logOccasions.count)
    }

    /// log(count + `frequencyEpsilon`).
    static func logFrequency(_ count: Double) -> Double { Foundation.log(count + frequencyEpsilon) }

    /// Records a use. Uses must come in time order (a caller replays from its log otherwise).
    ///
    /// Uses at one instant do not follow each other: a use at the same time as the last one records no
    /// transition (`transitions`, `follows`); the first use of an instant follows the last use before it.
    /// Rows of an aggregated log that share an instant are a set (what was used in that part of the day),
    /// not a sequence, and their order is only the log's canonical order: counting "B after A" between them
    /// would learn the sort order. Crediting every use of the instant as following the use before it would
    /// instead count one arbitrary predecessor once per row; the first use alone keeps one transition per
    /// instant, as a stream with distinct times has one per use. The last use of the instant becomes the
    /// previous target of what comes later.
    /// - Parameters:
    ///   - kernels: the use's hour-wide time-of-day kernel weights (`timeKernels` values), if tracked.
    ///   - fine: its quarter-hour kernel weights (sparse), if tracked.
    ///   - reading: its local clock reading, for the activity level, if tracked.
    ///   - activityKernels: the activity level's kernel weights of its time (`ActivityLevel.kernels` values).
    package mutating func record(target: Int, time: Double, weight: Double, kernels: [Double] = [],
                                fine: [(kernel: Int, weight: Double)] = [], reading: LocalClock.Reading? = nil,
                                activityKernels: [Double] = []) {
        grow(to: target + 1)
        var fineTotal = 0.0
        let weekend = reading?.isWeekend ?? false
        for (k, value) in fine where k < fineKernels {
            fineTime.add(weight * value, at: target * fineKernels + k, time: time)
            if weekend { weekendFine.add(weight * value, at: target * fineKernels + k, time: time) }
            fineTotal += weight * value
        }
        if fineTotal > 0 {
            fineTotals.add(fineTotal, at: target, time: time)
            if weekend { weekendTotals.add(fineTotal, at: target, time: time) }
        }
        if let reading, let previous = lastTarget, time > lastTime, time - lastTime <= followWindow {
            let day = reading.isWeekend ? 1 : 0
            follows[day][previous][target, default: 0] += 1
        }
        uses[target] += weight
        occasions[target] += 1
        logUses[target] = Self.logFrequency(uses[target])
        logOccasions[target] = Self.logFrequency(occasions[target])
        if let reading {
            activity.record(reading: reading, kernelWeights: activityKernels, time: time)
            dayHistory.record(target: target, day: reading.day, minute: reading.minuteOfDay)
        }
        for (k, value) in kernels.prefix(timeKernels).enumerated() where value > 1e-6 {
            timeOfDay.add(weight * value, at: target * timeKernels + k, time: time)
            timeOfDayLong.add(weight * value, at: target * timeKernels + k, time: time)
        }
        short.add(weight, at: target, time: time)
        long.add(weight, at: target, time: time)
        if let previous = lastTarget, time > lastTime {
            let anchorBefore = transitionTotals.anchor
            transitionTotals.add(weight, at: previous, time: time)
            let rescale = Foundation.exp2(anchorBefore - transitionTotals.anchor)
            if rescale != 1 {
                for row in transitions.indices { for key in transitions[row].keys { transitions[row][key]! *= rescale } }
            }
            transitions[previous][target, default: 0] += weight * Foundation.exp2(time / transitionTotals.halfLifeSeconds - transitionTotals.anchor)
        }
        lastUse[target] = max(lastUse[target], time)
        lastTarget = target
        lastTime = time
    }

    /// Marks a use seen in a moment's recent events without counting it
    /// (recency and previous target only).
    package mutating func touch(target: Int, time: Double) {
        guard target < lastUse.count, time >= lastTime else { return }
        // The newest learned use itself (a moment's recent events end with it): nothing changes, and no array is
        // written, so a tracker that shares its buffers (a question's copy of the model's) is not copied.
        if lastTarget == target, lastTime == time, lastUse[target] >= time { return }
        lastUse[target] = max(lastUse[target], time)
        lastTarget = target
        lastTime = time
    }

    /// The `limit` most recently used targets, newest first (ties by index).
    package func mostRecent(_ limit: Int) -> [Int] {
        var best: [Int] = []
        for target in lastUse.indices where lastUse[target] > -.infinity {
            var position = best.count
            while position > 0, lastUse[best[position - 1]] < lastUse[target] { position -= 1 }
            if position < limit {
                best.insert(target, at: position)
                if best.count > limit { best.removeLast() }
            }
        }
        return best
    }

    /// P(next | previous) with the decayed transition counts, smoothed toward `fallback` with strength 1.
    package func transitionProbability(from previous: Int, to next: Int, fallback: Double) -> Double {
        // Both stored with the same anchor, so the ratio needs no decay factor.
        Self.smoothedTransition(count: transitions[previous][next] ?? 0, total: transitionTotals.values[previous],
                                       factor: transitionTotals.factor(at: lastTime), fallback: fallback)
    }

    /// P(next | previous) from the previous target's stored `count` of next and `total` (decayed by
    /// `factor`), smoothed toward `fallback` with strength 1; `fallback` itself when nothing followed.
    static func smoothedTransition(count: Double, total: Double, factor: Double, fallback: Double) -> Double {
        total > 0 ? (count * factor + fallback) / (total * factor + 1) : fallback
    }
}
