import CKernels
import Foundation
import ProactiveCore

// MARK: - Candidate signals

extension BlendModel {
    /// Every target's signals at `moment`: targets x `BlendFeature.count`, row-major,
    /// in the profile's target order, then any target first seen in `moment.recent`.
    ///
    /// A moment may carry uses the model has not learned: those of `moment.recent`
    /// newer than every learned event are learned first, on a copy (`caughtUp(to:)`).
    /// - Complexity: one profile `dgemm` (targets x width x 5), one logistic
    ///   `dgemv`, and O(targets) for the rest; plus learning the unlearned recent events, if any.
    package func signals(at moment: Moment) -> [Double] {
        (caughtUp(to: moment) ?? self).learnedSignals(at: moment)
    }

    /// The model after learning the events of `moment.recent` (at or before its date) that are newer
    /// than every event it learned: profile and recency state as `update(with:)` would leave them,
    /// the weights and the logistic part as they are. Nil when there are none, as in the engine, which
    /// learns every donation before it ranks; in an offline evaluation they are the earlier
    /// test donations the moment carries, which the baselines (most recently used, Markov) read too.
    /// A moment asked as of its date (`Moment.asOfItsDate`) before the newest learned use is answered by
    /// the model as it stood then (`asOf(_:)`).
    func caughtUp(to moment: Moment) -> BlendModel? {
        let lastTime = usage.lastTime
        if let then = asOfIfAsked(moment) { return then }
        guard moment.recent.contains(where: { $0.date <= moment.date && $0.date.timeIntervalSince1970 > lastTime }) else { return nil }
        let unlearned = moment.recent.enumerated()
            .filter { $0.element.date <= moment.date && $0.element.date.timeIntervalSince1970 > usage.lastTime }
            .sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
        guard !unlearned.isEmpty else { return nil }
        var model = self
        model.logisticFrozen = true
        for (_, event) in unlearned { model.learn(event) }
        return model
    }

    /// The model as it stood at `moment` (`asOf(_:)`) when the moment is asked as of its date
    /// (`Moment.asOfItsDate`), is before the newest learned use, and the history's uses do not share
    /// instants; nil otherwise (the model answers as it is). Whatever reads the model at a moment (its
    /// scores, signals, reasons, a peer's state) reads the same model.
    func asOfIfAsked(_ moment: Moment) -> BlendModel? {
        guard moment.asOfItsDate, moment.date.timeIntervalSince1970 < usage.lastTime, !usage.dayHistory.sharesInstants else { return nil }
        return asOf(moment)
    }

    /// The model as it stood at `moment`, a moment before its newest learned use: the profile (what was
    /// used, when, after what) and the recency state (last use, frecency and time-of-day sums,
    /// transitions, the habit rate's past days and "today") from the learned events at or before the
    /// moment only, so nothing donated after it is read, and a target first used later is not a
    /// candidate. Both are rebuilt together: the weights set the profile's counts against the recency
    /// sums, which agree only when they read the same donations. The weights and the logistic part stay.
    /// Not for a history whose uses share instants (an aggregated log's times are buckets, not moments).
    /// - Complexity: a profile fit and a usage replay of the learned events at or before the moment.
    ///
    ///     // learned through Friday; asked about Tuesday 21:00 as it stood then
    ///     let then = model.asOf(Moment(date: tuesdayNine, asOfItsDate: true))
    func asOf(_ moment: Moment) -> BlendModel {
        var model = self
        model.logisticFrozen = true
        let time = moment.date.timeIntervalSince1970
        let before = profile.log.events.prefix { $0.time <= time }.map(profile.event(from:))
        model.profile = ProfileModel(configuration: profile.configuration, events: before)
        model.rebuildUsage()
        return model
    }

    /// The signals of the learned state at `moment` (the moment's recent events mark recency only).
    func learnedSignals(at moment: Moment) -> [Double] {
        let targets = profile.space.targetCount
        let features = BlendFeature.count
        var signals = [Double](repeating: 0, count: targets * features)
        guard targets > 0 else { return signals }
        let frame = SignalFrame(self, at: moment, needed: nil)
        signals.withUnsafeMutableBufferPointer { all in
            for t in 0 ..< targets { frame.write(target: t, into: all.baseAddress! + t * features) }
        }
        return signals
    }

    /// Σ_f w_f · signal_f of the learned state at `moment`, per target: the sum `learnedSignals(at:)`
    /// times the weights gives, term for term in feature order (so equal to the last bit), without the
    /// targets x features matrix (`SignalFrame.logScores(weights:)`).
    func learnedLogScores(at moment: Moment) -> [Double] {
        let targets = profile.space.targetCount
        guard targets > 0 else { return [] }
        let frame = SignalFrame(self, at: moment, needed: weights.map { $0 != 0 })
        return weights.withUnsafeBufferPointer { frame.logScores(weights: $0) }
    }

    /// Which transition signal a previous use `gap` seconds ago feeds, if any ("after X" fades with the gap).
    func transitionFeature(gap: Double) -> BlendFeature? {
        switch gap {
        case ..<0: return nil
        case ..<(configuration.transitionWindowMinutes * 60): return .transitionRecent
        case ..<(configuration.staleTransitionHours * 3600): return .transitionStale
        case ..<(configuration.overnightTransitionHours * 3600): return .transitionOvernight
        default: return nil
        }
    }
}

// MARK: - One moment's signal inputs

/// What every target's signals at one moment share, computed once: the profile's group scores, the
/// logistic log-probabilities, the recency state with the moment's recent uses laid over it, the decay
/// factors of each decayed sum at the moment, the clock's kernels, the transition row of the previous
/// target, and the recency ranks. `write(target:into:)` then gives one target's signals.
struct SignalFrame {
    let targets: Int
    /// Per feature: whether to take it (nil: all); a feature not taken is written as 0.
    let needed: [Bool]?
    let groups: [Double]
    /// Per target (space order), when the blend has a logistic part and every signal is taken (`write`).
    let logistic: [Double]?
    /// What `logScores(weights:)` takes the logistic log-probabilities from (`logisticLogProbabilities`).
    let pendingLogistic: (model: LogisticModel, moment: Moment, space: FeatureSpace)?
    let usage: UsageTracker
    let now: Double
    let shortFactor: Double
    let longFactor: Double
    let longTotal: Double
    let timeOfDayFactor: Double
    let timeOfDayLongFactor: Double
    let fineFactor: Double
    let fineTotalsFactor: Double
    let kernels: [Double]
    /// Per target, when every signal is taken (`needed` nil: `write(target:into:)`): its recent and usual
    /// (habit-scaled) use at this time of day (`timeOfDayUses`); empty otherwise (`logScores(weights:)`
    /// takes them itself, after prefetching their rows while it computes logarithms).
    let recentHere: [Double]
    let usualHere: [Double]
    /// Per target: Σ over the moment's fine kernels (in order) of weight x the target's stored use in
    /// that kernel (`kernelSums`).
    let fineNear: [Double]
    let fineCount: Double
    let habitScale: Double
    /// The transition signal fed, with the previous target's decayed counts by next target (dense).
    let transition: (feature: BlendFeature, counts: [Double], total: Double, factor: Double)?
    let previous: Int?
    let repeatFeature: BlendFeature
    /// Per target: its feature among rank0...rank7, rankOlder.
    let rank: [BlendFeature]
    let backToPrevious: Int?
    /// Whether the moment is before the newest learned use: recency positions and ages say nothing then.
    let askedBeforeNewestUse: Bool
    /// Per target: the routine signal (`RoutineSignal`), or empty when not taken.
    let routine: [Double]
    /// Per target: the habit-rate signal (`HabitRateSignal`), or empty when not taken.
    let habitRate: [Double]
    /// Per target: the calendar lift (`HabitRateSignal.rates`), or empty when neither is taken.
    let calendarLift: [Double]

    /// `model` is borrowed, not consumed: an initializer's parameters are owned by default, and passing a
    /// borrowed model (each question's `self`) would copy the whole model for the call.
    init(_ model: borrowing BlendModel, at moment: Moment, needed: [Bool]?) {
        let space = model.profile.space
        let targets = space.targetCount
        self.targets = targets
        self.needed = needed
        func wanted(_ feature: BlendFeature) -> Bool { needed?[feature.rawValue] ?? true }
        groups = BlendFeature.profileGroups.contains(where: wanted) ? model.profile.groupLogScores(at: moment)
            : [Double](repeating: 0, count: targets * ProfileGroup.allCases.count)

        // Logistic log-probabilities (the score path takes them itself, after prefetching the weights).
        if let logistic = model.logistic, wanted(.logistic) {
            if needed == nil {
                self.logistic = Self.logisticLogProbabilities(logistic, at: moment, space: space)
                pendingLogistic = nil
            } else {
                self.logistic = nil
                pendingLogistic = (logistic, moment, space)
            }
        } else {
            logistic = nil
            pendingLogistic = nil
        }

        // Recency state, with the moment's own recent uses laid over it.
        var usage = model.usage
        usage.grow(to: targets)
        // `touch` ignores a use older than the newest one: such an event (every one the model learned) is left out
        // before the rest are put in time order (the order of those kept is the one sorting all of them gives).
        let newest = usage.lastTime
        let unlearned = moment.recent.filter { $0.date <= moment.date && $0.date.timeIntervalSince1970 >= newest }
        for event in unlearned.sorted(by: { $0.date < $1.date }) {
            let time = event.date.timeIntervalSince1970
            guard time >= usage.lastTime else { continue }
            if let index = space.index(of: event.target) { usage.touch(target: index.rawValue, time: time) }
        }
        self.usage = usage
        let now = moment.date.timeIntervalSince1970
        self.now = now
        shortFactor = usage.short.factor(at: now)
        longFactor = usage.long.factor(at: now)
        var longTotal = 0.0
        for t in 0 ..< targets { longTotal += usage.long.values[t] * longFactor }
        self.longTotal = longTotal
        timeOfDayFactor = usage.timeOfDay.factor(at: now)
        habitScale = model.configuration.habitHalfLifeDays / model.configuration.longHalfLifeDays
        timeOfDayLongFactor = usage.timeOfDayLong.factor(at: now)
        fineFactor = usage.fineTime.factor(at: now)
        fineTotalsFactor = usage.fineTotals.factor(at: now)
        // The hour-wide and quarter-hour kernels (not the activity level's: `ClockInputs` without them).
        let reading = model.profile.encoder.clock.read(moment.date, writtenOffset: moment.utcOffset)
        let clock = (kernels: model.profile.encoder.timeKernelWeights(minuteOfDay: reading.minuteOfDay), fine: model.fineKernels(reading))
        kernels = Array(clock.kernels.prefix(usage.timeKernels))
        if needed == nil {
            (recentHere, usualHere) = Self.timeOfDayUses(usage, kernels: kernels, targets: targets, recentFactor: timeOfDayFactor,
                                                         usualFactor: timeOfDayLongFactor, habitScale: habitScale)
        } else {
            (recentHere, usualHere) = ([], [])
        }
        var fineNear = [Double](repeating: 0, count: targets)
        if wanted(.timeFine) {
            let stride = usage.fineKernels
            let fine = clock.fine.filter { $0.kernel < stride }
            fineNear = usage.fineTime.values.withUnsafeBufferPointer { sums in
                Self.kernelSums(sums, stride: stride, columns: fine.map(\.kernel), weights: fine.map(\.weight), targets: targets)
            }
        }
        self.fineNear = fineNear
        fineCount = Double(usage.fineKernels)

        // Transitions from the previous target, split by how long ago it was used; none after a day.
        let gap = now - usage.lastTime
        if let previous = usage.lastTarget, gap > 0 {
            self.previous = previous
            repeatFeature = BlendFeature.repeatBucket(gap: gap)
            if let feature = model.transitionFeature(gap: gap), wanted(feature) {
                var counts = [Double](repeating: 0, count: targets)
                for (next, count) in usage.transitions[previous] where next < targets { counts[next] = count }
                transition = (feature, counts, usage.transitionTotals.values[previous], usage.transitionTotals.factor(at: usage.lastTime))
            } else {
                transition = nil
            }
        } else {
            previous = nil
            repeatFeature = .repeatLater
            transition = nil
        }

        // Position among the most recently used targets. A moment before the newest learned use (a
        // question about the past, as when a log split at random is evaluated) has no known recent
        // uses: the latest uses happened after it, so every target is "older" and its age unknown.
        let recent = gap > 0 ? usage.mostRecent(8) : []
        askedBeforeNewestUse = gap <= 0
        var rank = [BlendFeature](repeating: .rankOlder, count: targets)
        for (position, t) in recent.enumerated() { rank[t] = BlendFeature(rawValue: BlendFeature.rank0.rawValue + position)! }
        self.rank = rank
        let window = model.configuration.transitionWindowMinutes * 60
        backToPrevious = recent.count > 1 && gap < window ? recent[1] : nil
        // A log whose uses share instants (aggregated rows) has bucket times, not moments: no rate in the hour after them.
        if wanted(.habitRate) || wanted(.calendarLift), usage.dayHistory.sharesInstants {
            (habitRate, calendarLift) = ([Double](repeating: 0, count: targets), [Double](repeating: 0, count: targets))
        } else if wanted(.habitRate) || wanted(.calendarLift) {
            let rates = HabitRateSignal.rates(usage.dayHistory, targets: targets, day: reading.day, minute: reading.minuteOfDay)
            habitRate = rates.everyDay
            calendarLift = zip(rates.calendar, rates.everyDay).map { $0 - $1 }
        } else {
            (habitRate, calendarLift) = ([], [])
        }
        routine = wanted(.routine)
            ? RoutineSignal.logProbabilities(usage, targets: targets, weekend: reading.isWeekend, minuteOfDay: reading.minuteOfDay,
                                             fine: clock.fine, now: now,
                                             previous: usage.lastTarget, gap: gap)
            : []
    }

    /// The features of the profile groups that come before the logistic part in feature order (all but
    /// `profileAbsence`), in `ProfileGroup` order.
    static let leadingGroupFeatures = BlendFeature.profileGroups.prefix { $0.rawValue < BlendFeature.logistic.rawValue }.map(\.rawValue)

    /// Target `t`'s `BlendFeature.count` signals, written to `row`.
    func write(target t: Int, into row: UnsafeMutablePointer<Double>) {
        func set(_ feature: BlendFeature, _ value: @autoclosure () -> Double) {
            row[feature.rawValue] = needed?[feature.rawValue] ?? true ? value() : 0
        }
        let groupCount = ProfileGroup.allCases.count
        for (g, feature) in BlendFeature.profileGroups.enumerated() { row[feature.rawValue] = groups[t * groupCount + g] }
        row[BlendFeature.logistic.rawValue] = logistic?[t] ?? 0
        let long = usage.long.values[t] * longFactor
        set(.frecencyShort, proactive_log(useArgument(usage.short.values[t] * shortFactor)))
        set(.frecencyLong, proactive_log(useArgument(long)))
        set(.recentTimeOfDay, proactive_log(useArgument(recentHere[t])))
        set(.habitChange, proactive_log(habitArgument(recent: recentHere[t], usual: usualHere[t])))
        set(.timeFine, proactive_log(fineArgument(t)))
        row[BlendFeature.frequencyUses.rawValue] = usage.logUses[t]
        row[BlendFeature.frequencyOccasions.rawValue] = usage.logOccasions[t]
        set(.logAge, askedBeforeNewestUse ? 0 : proactive_log(ageArgument(t)) / 10)

        for feature in BlendFeature.transitionRecent.rawValue ... BlendFeature.transitionOvernight.rawValue { row[feature] = 0 }
        if let transition { row[transition.feature.rawValue] = proactive_log(transitionArgument(transition, t, long: long)) }
        for feature in BlendFeature.rank0.rawValue ... BlendFeature.rankOlder.rawValue { row[feature] = 0 }
        row[rank[t].rawValue] = 1
        row[BlendFeature.backToPrevious.rawValue] = t == backToPrevious ? 1 : 0
        for feature in BlendFeature.repeat1m.rawValue ... BlendFeature.repeatLater.rawValue { row[feature] = 0 }
        if t == previous { row[repeatFeature.rawValue] = 1 }
        set(.routine, routine[t])
        set(.habitRate, habitRate[t])
        set(.calendarLift, calendarLift[t])
    }

    /// Σ_f w_f · signal_f for every target, in feature order, equal to the last bit to summing the row
    /// `write(target:into:)` gives times `w` (with `needed` = the weights that are not 0), with fewer terms:
    /// a term that is 0 for a weight of 0 whose signal was not taken, or for a one-hot signal (ranks, back to
    /// previous, repeat buckets, the transitions not fed) that is 0 here, is left out. Adding such a term
    /// (±0) leaves every partial sum unchanged, except that -0 + +0 is +0: a sum that is exactly 0 may come
    /// out as -0 where the row's gave +0, the same number (`==`, and its exponential, are the same). The
    /// terms always taken (profile groups, logistic, frequencies) are added whatever their weight, as the row's.
    ///
    /// Term by term over all targets (one pass per signal, each target's sum taking its terms in feature order,
    /// so the same operations as a target-by-target sum): the targets' terms of one pass do not wait for each
    /// other, so their logarithms and reads overlap, where one target's terms form a chain.
    func logScores(weights w: UnsafeBufferPointer<Double>) -> [Double] {
        func taken(_ feature: BlendFeature) -> Bool { needed?[feature.rawValue] ?? true }
        let groupCount = ProfileGroup.allCases.count
        let targets = targets
        let recentTaken = taken(.recentTimeOfDay)
        let habitTaken = taken(.habitChange)
        let rowsTaken = recentTaken || habitTaken
        // First the signals that are logarithms of what the frame holds, target by target, while the rows read
        // later (the time-of-day sums, 2 x 24 doubles a target, and the logistic weights) are prefetched: on a
        // cold model, reading them when needed waited on memory with nothing else to do.
        // Each value is the logarithm of a per-target argument: the arguments first, then their logarithms in one
        // vector pass (`proactive_log_each`, the same bits as `proactive_log` of each, which `write` takes).
        func logarithms(prefetching rows: UnsafeRawBufferPointer?, _ argument: (Int) -> Double) -> [Double] {
            let bytes = targets > 0 ? (rows?.count ?? 0) / targets : 0
            return [Double](unsafeUninitializedCapacity: targets) { out, filled in
                for first in Swift.stride(from: 0, to: targets, by: 16) {
                    let end = min(first + 16, targets)
                    if let base = rows?.baseAddress, bytes > 0 { proactive_prefetch(base + first * bytes, (end - first) * bytes) }
                    for t in first ..< end { out[t] = argument(t) }
                }
                if targets > 0 { proactive_log_each(out.baseAddress!, targets) }
                filled = targets
            }
        }
        let (short, long, transitions, ages) = usage.timeOfDay.values.withUnsafeBytes { recentRows in
            usage.timeOfDayLong.values.withUnsafeBytes { usualRows in
                (pendingLogistic?.model.weights.dense ?? []).withUnsafeBytes { logisticRows in
                    usage.long.values.withUnsafeBufferPointer { longValues in
                        let short = !taken(.frecencyShort) ? [] : usage.short.values.withUnsafeBufferPointer { short in
                            logarithms(prefetching: rowsTaken ? recentRows : nil) { useArgument(short[$0] * shortFactor) }
                        }
                        let long = !taken(.frecencyLong) ? [] : logarithms(prefetching: rowsTaken ? usualRows : nil) {
                            useArgument(longValues[$0] * longFactor)
                        }
                        let transitions = transition.map { transition in
                            logarithms(prefetching: nil) { transitionArgument(transition, $0, long: longValues[$0] * longFactor) }
                        } ?? []
                        var ages = !taken(.logAge) ? [] : askedBeforeNewestUse ? [Double](repeating: 0, count: targets)
                            : logarithms(prefetching: logisticRows) { ageArgument($0) }
                        if !askedBeforeNewestUse { for t in ages.indices { ages[t] /= 10 } }
                        return (short, long, transitions, ages)
                    }
                }
            }
        }
        let logistic = logistic ?? pendingLogistic.map { Self.logisticLogProbabilities($0.model, at: $0.moment, space: $0.space) }
        let (recentHere, usualHere) = rowsTaken && recentHere.isEmpty && targets > 0
            ? Self.timeOfDayUses(usage, kernels: kernels, targets: targets, recentFactor: timeOfDayFactor,
                                 usualFactor: timeOfDayLongFactor, habitScale: habitScale)
            : (recentHere, usualHere)

        // Then every target's sum, term by term in feature order.
        return [Double](unsafeUninitializedCapacity: targets) { buffer, filled in
            let s = buffer.baseAddress!
            // The groups before the logistic part in feature order; the absence group is the last term.
            let leading = Self.leadingGroupFeatures
            groups.withUnsafeBufferPointer { g in
                for t in 0 ..< targets {
                    var score = 0.0
                    for (k, feature) in leading.enumerated() { score += w[feature] * g[t * groupCount + k] }
                    s[t] = score
                }
            }
            let wLogistic = w[BlendFeature.logistic.rawValue]
            if let logistic {
                for t in 0 ..< targets { s[t] += wLogistic * logistic[t] }
            } else {
                for t in 0 ..< targets { s[t] += wLogistic * 0 }
            }
            func add(_ feature: BlendFeature, _ values: [Double]) {
                let weight = w[feature.rawValue]
                values.withUnsafeBufferPointer { values in
                    for t in 0 ..< min(values.count, targets) { s[t] += weight * values[t] }
                }
            }
            add(.frecencyShort, short)
            add(.frecencyLong, long)
            if let transition { add(transition.feature, transitions) }
            rank.withUnsafeBufferPointer { rank in
                for t in 0 ..< targets { s[t] += w[rank[t].rawValue] }   // x 1
            }
            if let t = backToPrevious, t < targets { s[t] += w[BlendFeature.backToPrevious.rawValue] }
            add(.logAge, ages)
            if let t = previous, t < targets { s[t] += w[repeatFeature.rawValue] }
            if rowsTaken {
                let wRecent = w[BlendFeature.recentTimeOfDay.rawValue]
                let wHabit = w[BlendFeature.habitChange.rawValue]
                let recentLogs = recentTaken ? logarithms(prefetching: nil) { useArgument(recentHere[$0]) } : []
                let habitLogs = habitTaken ? logarithms(prefetching: nil) { habitArgument(recent: recentHere[$0], usual: usualHere[$0]) } : []
                for t in 0 ..< targets {
                    if recentTaken { s[t] += wRecent * recentLogs[t] }
                    if habitTaken { s[t] += wHabit * habitLogs[t] }
                }
            }
            if taken(.timeFine) {
                let weight = w[BlendFeature.timeFine.rawValue]
                let fine = logarithms(prefetching: nil) { fineArgument($0) }
                for t in 0 ..< targets { s[t] += weight * fine[t] }
            }
            add(.frequencyUses, usage.logUses)
            add(.frequencyOccasions, usage.logOccasions)
            if taken(.routine) { add(.routine, routine) }
            if taken(.habitRate) { add(.habitRate, habitRate) }
            if taken(.calendarLift) { add(.calendarLift, calendarLift) }
            let absence = ProfileGroup.absence.rawValue
            groups.withUnsafeBufferPointer { g in
                let weight = w[BlendFeature.profileAbsence.rawValue]
                for t in 0 ..< targets { s[t] += weight * g[t * groupCount + absence] }
            }
            filled = targets
        }
    }

    // The signals' formulas, one place for both `write(target:into:)` and `logScores(weights:)`.

    // Each signal below is `proactive_log` of its argument (the same bits one by one and in a vector pass).

    /// A decayed use (frecency, recent use at this time of day), kept above 0 by the frequency epsilon.
    @inline(__always)
    private func useArgument(_ decayed: Double) -> Double { decayed + UsageTracker.frequencyEpsilon }

    /// How much more (or less) the target is used at this time of day lately than usually.
    @inline(__always)
    private func habitArgument(recent: Double, usual: Double) -> Double { (recent + 0.5) / (usual + 0.5) }

    /// 1 + minutes since the target's last use, at most a year: the age signal is its log / 10, and 0 for every
    /// target at a moment before the newest learned use (ages are unknown there).
    @inline(__always)
    private func ageArgument(_ t: Int) -> Double {
        1 + min(max(0, now - usage.lastUse[t]) / 60, 525_600)
    }

    /// The smoothed probability of `t` after the previous target (its frequency share as the fallback).
    @inline(__always)
    private func transitionArgument(_ transition: (feature: BlendFeature, counts: [Double], total: Double, factor: Double), _ t: Int,
                                    long: Double) -> Double {
        let epsilon = UsageTracker.frequencyEpsilon
        let fallback = (long + epsilon) / (longTotal + epsilon * Double(targets))
        return UsageTracker.smoothedTransition(count: transition.counts[t], total: transition.total,
                                               factor: transition.factor, fallback: fallback)
    }

    /// The logistic part's log-probabilities at `moment` for each target of `space` (its own order; a target it
    /// does not know gets log(1 / targets)).
    static func logisticLogProbabilities(_ logistic: LogisticModel, at moment: Moment, space: FeatureSpace) -> [Double] {
        let targets = space.targetCount
        var logScores = logistic.logScores(at: moment)
        let normaliser = Softmax.logSumExp(logScores)
        for i in logScores.indices { logScores[i] -= normaliser }
        if logistic.space.targets == space.targets { return logScores }
        let floor = -Foundation.log(Double(max(targets, 1)))
        return (0 ..< targets).map { t in logistic.space.index(of: space.targets[t]).map { logScores[$0.rawValue] } ?? floor }
    }

    /// Every target's recent and usual (habit-scaled) use at this time of day: Σ_k kernel_k · decayed use in k
    /// (`kernelSums`), times each sum's decay factor (the usual one then times `habitScale`).
    static func timeOfDayUses(_ usage: UsageTracker, kernels: [Double], targets: Int, recentFactor: Double, usualFactor: Double,
                              habitScale: Double) -> (recent: [Double], usual: [Double]) {
        let columns = Array(0 ..< kernels.count)
        let stride = usage.timeKernels
        var recent = usage.timeOfDay.values.withUnsafeBufferPointer {
            kernelSums($0, stride: stride, columns: columns, weights: kernels, targets: targets)
        }
        var usual = usage.timeOfDayLong.values.withUnsafeBufferPointer {
            kernelSums($0, stride: stride, columns: columns, weights: kernels, targets: targets)
        }
        for t in 0 ..< targets {
            recent[t] = recent[t] * recentFactor
            usual[t] = usual[t] * usualFactor * habitScale
        }
        return (recent, usual)
    }

    /// Per target t: Σ over c (in order, from 0) of weights[c] x sums[t x stride + columns[c]]
    /// (`proactive_kernel_sums`: four targets at a time, the rows of the targets ahead prefetched).
    static func kernelSums(_ sums: UnsafeBufferPointer<Double>, stride: Int, columns: [Int], weights: [Double],
                           targets: Int) -> [Double] {
        precondition(columns.count == weights.count && columns.allSatisfy { $0 >= 0 && $0 < stride } && sums.count >= targets * stride,
                     "shape mismatch")
        return [Double](unsafeUninitializedCapacity: targets) { out, filled in
            if targets > 0 {
                proactive_kernel_sums(sums.baseAddress!, stride, columns, weights, columns.count, targets, 16, out.baseAddress!)
            }
            filled = targets
        }
    }

    /// The target's share of its uses near this minute at quarter-hour resolution, x `fineCount`.
    private func fineArgument(_ t: Int) -> Double {
        let near = fineNear[t]
        let total = usage.fineTotals.values[t] * fineTotalsFactor
        return (near * fineFactor + 1 / fineCount) / (total + 1) * fineCount
    }
}
