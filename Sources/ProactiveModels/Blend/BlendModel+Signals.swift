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
    public func signals(at moment: Moment) -> [Double] {
        (caughtUp(to: moment) ?? self).learnedSignals(at: moment)
    }

    /// The model after learning the events of `moment.recent` (at or before its date) that are newer
    /// than every event it learned: profile and recency state as `update(with:)` would leave them,
    /// the weights and the logistic part as they are. Nil when there are none, as in the engine, which
    /// learns every donation before it ranks; in an evaluation without `--online` they are the earlier
    /// test donations the moment carries, which the baselines (most recently used, Markov) read too.
    func caughtUp(to moment: Moment) -> BlendModel? {
        let lastTime = usage.lastTime
        guard moment.recent.contains(where: { $0.date <= moment.date && $0.date.timeIntervalSince1970 > lastTime }) else { return nil }
        let unlearned = moment.recent.enumerated()
            .filter { $0.element.date <= moment.date && $0.element.date.timeIntervalSince1970 > usage.lastTime }
            .sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
        guard !unlearned.isEmpty else { return nil }
        var model = self
        model.logisticFrozen = true
        for (_, event) in unlearned { model.learn(event, collectRow: false) }
        return model
    }

    /// The signals of the learned state at `moment` (the moment's recent events mark recency only).
    func learnedSignals(at moment: Moment) -> [Double] {
        let space = profile.space
        let targets = space.targetCount
        let features = BlendFeature.count
        var signals = [Double](repeating: 0, count: targets * features)
        guard targets > 0 else { return signals }
        func set(_ t: Int, _ feature: BlendFeature, _ value: Double) { signals[t * features + feature.rawValue] = value }

        // Profile evidence, one column per group.
        let groups = profile.groupLogScores(at: moment)
        let groupCount = ProfileGroup.allCases.count
        for t in 0 ..< targets {
            for g in 0 ..< groupCount { signals[t * features + BlendFeature.profilePrior.rawValue + g] = groups[t * groupCount + g] }
        }

        // Logistic log-probabilities.
        if let logistic {
            var logScores = logistic.logScores(at: moment)
            let normaliser = Softmax.logSumExp(logScores)
            for i in logScores.indices { logScores[i] -= normaliser }
            if logistic.space.targets == space.targets {
                for t in 0 ..< targets { set(t, .logistic, logScores[t]) }
            } else {
                let floor = -Foundation.log(Double(max(targets, 1)))
                for t in 0 ..< targets {
                    set(t, .logistic, logistic.space.index(of: space.targets[t]).map { logScores[$0.rawValue] } ?? floor)
                }
            }
        }

        // Recency state, with the moment's own recent uses laid over it.
        var usage = usage
        usage.grow(to: targets)
        for event in moment.recent.sorted(by: { $0.date < $1.date }) where event.date <= moment.date {
            if let index = space.index(of: event.target) { usage.touch(target: index.rawValue, time: event.date.timeIntervalSince1970) }
        }
        let now = moment.date.timeIntervalSince1970
        let shortFactor = usage.short.factor(at: now)
        let longFactor = usage.long.factor(at: now)
        var longTotal = 0.0
        for t in 0 ..< targets { longTotal += usage.long.values[t] * longFactor }
        let epsilon = 0.01
        let clock = clockInputs(at: moment.date, utcOffset: moment.utcOffset)
        let nowKernels = clock.kernels
        let fineCount = Double(usage.fineKernels)
        let habitScale = configuration.habitHalfLifeDays / configuration.longHalfLifeDays
        for t in 0 ..< targets {
            let recentHere = usage.recentUse(of: t, kernels: nowKernels, time: now)
            let usualHere = usage.recentUse(of: t, kernels: nowKernels, time: now, long: true) * habitScale
            set(t, .recentTimeOfDay, Foundation.log(recentHere + epsilon))
            set(t, .habitChange, Foundation.log((recentHere + 0.5) / (usualHere + 0.5)))
            set(t, .frecencyShort, Foundation.log(usage.short.values[t] * shortFactor + epsilon))
            let long = usage.long.values[t] * longFactor
            set(t, .frecencyLong, Foundation.log(long + epsilon))
            let fine = usage.fineUse(of: t, fine: clock.fine, time: now)
            set(t, .timeFine, Foundation.log((fine.near + 1 / fineCount) / (fine.total + 1) * fineCount))
            set(t, .frequencyUses, Foundation.log(usage.uses[t] + epsilon))
            set(t, .frequencyOccasions, Foundation.log(usage.occasions[t] + epsilon))
            let age = max(0, now - usage.lastUse[t]) / 60
            set(t, .logAge, Foundation.log1p(min(age, 525_600)) / 10)
        }

        // Transitions from the previous target, split by how long ago it was used; none after a day.
        let gap = now - usage.lastTime
        let window = configuration.transitionWindowMinutes * 60
        if let previous = usage.lastTarget, gap >= 0 {
            if let feature = transitionFeature(gap: gap) {
                for t in 0 ..< targets {
                    let fallback = (usage.long.values[t] * longFactor + epsilon) / (longTotal + epsilon * Double(targets))
                    set(t, feature, Foundation.log(usage.transitionProbability(from: previous, to: t, fallback: fallback)))
                }
            }
            set(previous, BlendFeature.repeatBucket(gap: gap), 1)
        }

        // Position among the most recently used targets.
        let recent = usage.mostRecent(8)
        var ranked = [Bool](repeating: false, count: targets)
        for (position, t) in recent.enumerated() {
            set(t, BlendFeature(rawValue: BlendFeature.rank0.rawValue + position)!, 1)
            ranked[t] = true
        }
        for t in 0 ..< targets where !ranked[t] { set(t, .rankOlder, 1) }
        if recent.count > 1, gap >= 0, gap < window { set(recent[1], .backToPrevious, 1) }
        return signals
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
