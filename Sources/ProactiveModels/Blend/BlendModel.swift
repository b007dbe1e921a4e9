import Foundation
import ProactiveCore

// MARK: - Blend (the default model)

/// The engine's default model: a log-linear blend of the profile model's
/// per-group evidence, the logistic model, recency and frequency, first-order
/// transitions and "going back" signals (see `BlendFeature`), with one weight
/// per signal fitted per user by maximum likelihood on the user's own
/// held-back history (`BlendTrainer`):
///
///     P(t | moment) = softmax_t( Σ_f w_f · signal_f(t, moment) )
///
/// With no history to fit on, the weights are those of the plain profile model.
///
/// Online learning (`update(with:)`) is cheap except on schedule: the profile
/// and recency state learn each event at once (O(features)); the event's
/// signals are first recorded as a new row; the blend weights are refitted
/// every `refitEvery` events (warm-started, on the last `maxRows` rows) and
/// the logistic component refits on its own schedule (`LogisticConfiguration.refitEvery`,
/// `refitAfterDays`).
public struct BlendModel: FittedModel {
    package let configuration: BlendConfiguration
    public var name: String { "blend" }
    package internal(set) var profile: ProfileModel
    package internal(set) var logistic: LogisticModel?
    package internal(set) var usage: UsageTracker
    /// One weight per `BlendFeature`.
    package internal(set) var weights: [Double]
    var rows: BlendRows
    package internal(set) var eventsSinceWeightFit: Int = 0
    /// Events learned since the guard last chose (it chooses again once the user has this many more
    /// than half the rows it chose on, so a growing history can earn the user's own weights).
    package internal(set) var eventsSinceGuard: Int = 0
    /// While fitting: the logistic component is a fixed earlier fit and is not updated.
    var logisticFrozen = false
    /// How refits combine the fitted weights (prior, shrinkage toward a simpler model; see `WeightGuard`).
    package internal(set) var weightGuard = WeightGuard.unguarded(center: BlendFeature.defaultWeights, centerName: "fixed")

    init(configuration: BlendConfiguration, profile: ProfileModel, logistic: LogisticModel?, weights: [Double], rows: BlendRows) {
        self.configuration = configuration
        self.profile = profile
        self.logistic = logistic
        self.weights = weights
        self.rows = rows
        usage = Self.emptyUsage(configuration, targets: 0)
        rebuildUsage()
    }

    /// Restores a saved model with its usage state as saved.
    init(configuration: BlendConfiguration, profile: ProfileModel, logistic: LogisticModel?, weights: [Double], rows: BlendRows,
         usage: UsageTracker) {
        self.configuration = configuration
        self.profile = profile
        self.logistic = logistic
        self.weights = weights
        self.rows = rows
        self.usage = usage
    }

    /// The vocabulary (the profile's; every known target is scored).
    public var space: FeatureSpace { profile.space }

    /// Replays the profile's log into a fresh usage tracker (each event's clock inputs taken from `memo`
    /// when it holds them, and kept there).
    mutating func rebuildUsage(memo: ClockMemo? = nil) {
        usage = Self.emptyUsage(configuration, targets: profile.space.targetCount)
        for event in profile.log.events {
            let clock = clockInputs(at: event.date, utcOffset: event.utcOffset, memo: memo)
            usage.record(target: event.target.rawValue, time: event.time, weight: event.weight,
                         kernels: clock.kernels, fine: clock.fine, reading: clock.reading, activityKernels: clock.activity)
        }
    }

    static func emptyUsage(_ configuration: BlendConfiguration, targets: Int) -> UsageTracker {
        UsageTracker(targetCount: targets, shortHalfLifeDays: configuration.shortHalfLifeDays,
                     longHalfLifeDays: configuration.longHalfLifeDays, timeKernels: configuration.profile.encoder.timeKernels,
                     habitHalfLifeDays: configuration.habitHalfLifeDays, fineKernels: configuration.fineTimeKernels,
                     routineHalfLifeDays: configuration.routineHalfLifeDays, followWindow: configuration.transitionWindowMinutes * 60)
    }

    /// An instant on the user's clock: its reading, hour-wide kernel weights and quarter-hour kernel weights.
    struct ClockInputs {
        var reading: LocalClock.Reading
        var kernels: [Double]
        var fine: [(kernel: Int, weight: Double)]
        /// The activity level's kernels: hour-spaced but narrow (κ = 64: 0.11 of the peak an hour
        /// away, 2e-4 two hours away), so an early riser is not "usually active" at 05:00.
        var activity: [Double]
    }

    static let activityCentres = CircularKernels.Centres(count: 24)
    static let activityConcentration = 64.0

    /// `clockInputs(at:utcOffset:)` read from `memo` when it holds them for this instant, else computed
    /// and kept there (the same function of the date and offset: the same bits either way).
    func clockInputs(at date: Date, utcOffset: Int?, memo: ClockMemo?) -> ClockInputs {
        guard let memo else { return clockInputs(at: date, utcOffset: utcOffset) }
        let key = ClockMemo.Key(date: date.timeIntervalSinceReferenceDate.bitPattern, utcOffset: utcOffset)
        if let known = memo.inputs[key] { return known }
        let computed = clockInputs(at: date, utcOffset: utcOffset)
        memo.inputs[key] = computed
        return computed
    }

    func clockInputs(at date: Date, utcOffset: Int?) -> ClockInputs {
        let reading = profile.encoder.clock.read(date, writtenOffset: utcOffset)
        return ClockInputs(reading: reading, kernels: profile.encoder.timeKernelWeights(minuteOfDay: reading.minuteOfDay),
                           fine: fineKernels(reading), activity: Self.activityKernels(reading))
    }

    /// The quarter-hour kernels at `reading` (`ClockInputs.fine`; a question's signals need only these and the hour-wide ones).
    func fineKernels(_ reading: LocalClock.Reading) -> [(kernel: Int, weight: Double)] {
        CircularKernels.sparseWeights(count: configuration.fineTimeKernels, concentration: configuration.fineTimeConcentration,
                                      minuteOfDay: reading.minuteOfDay)
    }

    /// The activity level's kernels at `reading` (`ClockInputs.activity`; the activity level needs only these).
    static func activityKernels(_ reading: LocalClock.Reading) -> [Double] {
        var activity = [Double](repeating: 0, count: activityCentres.count)
        activity.withUnsafeMutableBufferPointer {
            CircularKernels.write(centres: activityCentres, concentration: activityConcentration, minuteOfDay: reading.minuteOfDay,
                                  into: $0, at: 0)
        }
        return activity
    }

    public func activityLevel(at moment: Moment) -> Double? { activity(at: moment) }

    /// How likely the user is to act at all at `moment` (0...1, see `ActivityLevel`): 1 at the
    /// user's usual times and right after a use, about 0 at hours they never act. At a moment before
    /// the newest learned use, "right after a use" reads the learned uses at or before the moment only.
    package func activity(at moment: Moment) -> Double {
        let reading = profile.encoder.clock.read(moment.date, writtenOffset: moment.utcOffset)
        var lastUse = usage.lastTime
        let time = moment.date.timeIntervalSince1970
        if time < lastUse {
            // The last learned use at or before the moment (the log is in time order).
            let log = profile.log
            var (low, high) = (0, log.count)
            while low < high {
                let middle = (low + high) / 2
                if log[middle].time <= time { low = middle + 1 } else { high = middle }
            }
            lastUse = low > 0 ? log[low - 1].time : -.infinity
        }
        for event in moment.recent where event.date <= moment.date { lastUse = max(lastUse, event.date.timeIntervalSince1970) }
        return usage.activity.level(reading: reading, kernelWeights: Self.activityKernels(reading), time: time, lastUse: lastUse)
    }

    // MARK: Scoring

    /// Σ_f w_f · signal_f for every target (index order; targets first seen in `moment.recent` last).
    public func logScores(at moment: Moment) -> [Double] {
        // Not `(caughtUp(to:) ?? self)`: that copies the model (a retain of each of its buffers) on every question.
        if let caught = caughtUp(to: moment) { return caught.learnedLogScores(at: moment) }
        return learnedLogScores(at: moment)
    }

    public func scores(at moment: Moment) -> [ScoredTarget] {
        distribution(at: moment).ranked()
    }

    /// Every target's probability at `moment`, in index order (no sorting), targets first seen in
    /// `moment.recent` last (see `caughtUp(to:)`).
    public func distribution(at moment: Moment) -> TargetDistribution {
        if let caught = caughtUp(to: moment) {
            return Softmax.distribution(logScores: caught.learnedLogScores(at: moment), space: caught.profile.space)
        }
        return Softmax.distribution(logScores: learnedLogScores(at: moment), space: profile.space)
    }

    // MARK: Learning

    public mutating func update(with event: Event) { update(with: event, memo: nil) }

    /// `update(with:)` for one event of a run learned one after the other (a live model's fold): `memo`
    /// keeps the clock inputs of learned events across the run, so an event older than the newest, which
    /// replays every learned event into the usage state (`rebuildUsage`), does not compute them all again.
    /// The model learns exactly what `update(with:)` learns. `memo` belongs to this model (its clock and
    /// kernels) for the run only.
    public mutating func update(with event: Event, memo: ClockMemo?) {
        update(with: [event], memo: memo)
    }

    public mutating func update(with events: [Event]) { update(with: events, memo: nil) }

    /// Learns `events` (in time order) instant by instant (`instantRuns`), as `BlendTrainer` walks
    /// them: every event of one instant is recorded as a row (its signals in the state before the
    /// instant) before any of them is learned, so none of them is "just used" for another; the weights
    /// refit once the instant is learned, when `refitEvery` events were learned since the last refit.
    /// One event at a time, it is `update(with:memo:)`. `memo` as there.
    public mutating func update(with events: [Event], memo: ClockMemo?) {
        for run in events.instantRuns(date: \.date) {
            for event in events[run] { collectRow(for: event) }
            for event in events[run] { learn(event, memo: memo) }
            eventsSinceWeightFit += run.count
            eventsSinceGuard += run.count
            if eventsSinceWeightFit >= configuration.refitEvery { refitWeights() }
        }
    }

    /// Records the event's row: its signals in the learned state, labelled with its target (nothing
    /// when the target is not known yet). Returns the row's signals and label (nil: no row), which a
    /// training walk also pools for the population (`BlendTrainer.walk`).
    @discardableResult
    mutating func collectRow(for event: Event) -> (signals: [Double], label: Int)? {
        guard let label = profile.space.index(of: event.target) else { return nil }
        let moment = Moment(date: rowDate(for: event), utcOffset: event.utcOffset, context: event.context)
        let signals = learnedSignals(at: moment)
        rows.append(features: signals, candidates: profile.space.targetCount, label: label.rawValue, weights: weights,
                    maxRows: configuration.maxRows, maxValues: configuration.maxRowValues)
        return (signals, label.rawValue)
    }

    /// The signals of the event's long row, for the population's pool only: asked
    /// `BlendConfiguration.longRowLeadMinutes` before the event when the previous learned use is more than
    /// `longRowGapMinutes` before it (nil otherwise, when long rows are off, and in a log whose uses share
    /// instants). The event's own row (`rowDate(for:)`) asks near the event; this one asks what a person
    /// asking earlier in the quiet hour wants, a habit due in 45 minutes.
    ///
    ///     // previous use 09:00, event 10:30, longRowLeadMinutes 45, longRowGapMinutes 60: signals at 09:45
    ///     let early = model.longRowSignals(for: event)
    func longRowSignals(for event: Event) -> [Double]? {
        let gap = event.date.timeIntervalSince1970 - usage.lastTime
        guard configuration.longRowLeadMinutes > 0, gap.isFinite, gap > configuration.longRowGapMinutes * 60,
              !usage.dayHistory.sharesInstants, profile.space.index(of: event.target) != nil else { return nil }
        let moment = Moment(date: event.date.addingTimeInterval(-configuration.longRowLeadMinutes * 60), utcOffset: event.utcOffset,
                            context: event.context)
        return learnedSignals(at: moment)
    }

    /// The moment an event's row is asked at: halfway between the previous learned use and the event,
    /// at most `BlendConfiguration.rowLeadMinutes` before the event (the event's own instant when nothing
    /// was learned before it, when the previous use shares its instant, and in a log whose uses share
    /// instants, `DayHistory.sharesInstants`: an aggregated log's times are buckets, not moments). A person asks the engine at a
    /// moment without knowing when the next donation will come; a row asked at the event's very instant
    /// teaches the weights what happens *at* a known time, which favours whatever is used often at any
    /// time over a habit due in ten minutes (docs/WORLDS.md).
    func rowDate(for event: Event) -> Date {
        let gap = event.date.timeIntervalSince1970 - usage.lastTime
        guard gap.isFinite, gap > 0, !usage.dayHistory.sharesInstants else { return event.date }
        return event.date.addingTimeInterval(-min(gap / 2, configuration.rowLeadMinutes * 60))
    }

    /// Teaches every component the event (no row).
    mutating func learn(_ event: Event, memo: ClockMemo? = nil) {
        let time = event.date.timeIntervalSince1970
        let inOrder = time >= usage.lastTime
        profile.update(with: event)
        if inOrder {
            let clock = clockInputs(at: event.date, utcOffset: event.utcOffset, memo: memo)
            usage.record(target: profile.space.index(of: event.target)!.rawValue, time: time, weight: event.weight,
                         kernels: clock.kernels, fine: clock.fine, reading: clock.reading, activityKernels: clock.activity)
        } else {
            rebuildUsage(memo: memo)
        }
        if !logisticFrozen { logistic?.update(with: event) }
    }

    /// The prior the weights are pulled toward (the population's when trained with other users).
    package var prior: BlendTrainer.Prior { BlendTrainer.Prior(weights: weightGuard.center, name: weightGuard.centerName) }

    /// Refits the blend weights on the stored rows, pulled toward the guard's centre and shrunk toward
    /// its anchor as the guard chose. The fit starts from the previous fit (the current weights with the
    /// guard's shrinkage undone, `WeightGuard.fitted(from:)`), which a few more rows hardly move: starting
    /// from the shrunk weights cost the fit many more iterations for every user with a partial share.
    /// A guard that keeps none of the fit (share 0: the anchor alone) needs no fit.
    package mutating func refitWeights() { refitWeights(from: nil) }

    /// `refitWeights()` with the fit started from `start` (nil: from the previous fit, as above).
    mutating func refitWeights(from start: [Double]?) {
        eventsSinceWeightFit = 0
        guard rows.count > 0 else { return }
        let start = start ?? weightGuard.fitted(from: weights) ?? weights
        if rows.count >= configuration.guardMinimumRows,
           eventsSinceGuard >= max(configuration.guardMinimumRows, weightGuard.rowsAtChoice / 2) {
            chooseGuard(prior: prior)
        }
        guard weightGuard.keepsFit else {
            weights = weightGuard.anchor
            return
        }
        weights = weightGuard.combine(fitWeights(rows, start: start, center: weightGuard.center))
    }

    /// Lets the guard choose again on the stored rows (see `WeightGuard.choose`).
    mutating func chooseGuard(prior: BlendTrainer.Prior) {
        let model = self
        weightGuard = WeightGuard.choose(rows: rows, center: prior.weights, centerName: prior.name,
                                         trustPrior: !prior.isFixed, configuration: configuration,
                                         holdout: .fitting(dates: profile.log.events.lazy.map(\.date))) { rows in
            model.fitWeights(rows, start: prior.weights, center: prior.weights)
        }
        eventsSinceGuard = 0
    }

    /// Weights fitted on `rows`, pulled toward `center`.
    func fitWeights(_ rows: BlendRows, start: [Double], center: [Double]) -> [Double] {
        rows.fitWeights(start: start, prior: center, l2: configuration.weightL2, rowHalfLife: configuration.rowHalfLife)
    }

    /// Forgets one event: exactly in the profile (see `ProfileModel.remove`),
    /// by refit in the logistic component; recency state is replayed from the
    /// remaining events and the stored rows are dropped (they were computed
    /// with the event). The weights stay until the next refit; refit the user
    /// (`BlendTrainer.fit`) to remove every trace of the event from them.
    /// - Returns: `false` when no such event was learned.
    @discardableResult
    public mutating func remove(_ event: Event) -> Bool {
        guard profile.remove(event) else { return false }
        logistic?.remove(event)
        rebuildUsage()
        rows.removeAll()
        return true
    }
}

/// The clock inputs of events one blend model learned (`BlendModel.update(with:memo:)`), by instant: what
/// replaying the usage state after an older event computes for every learned event. Held for one run of
/// updates of one model, on one thread.
public final class ClockMemo {
    struct Key: Hashable {
        /// The date's own bits (`timeIntervalSinceReferenceDate`): equal keys are equal dates.
        var date: UInt64
        var utcOffset: Int?
    }
    var inputs: [Key: BlendModel.ClockInputs] = [:]

    public init() {}
}
