import Foundation
import ProactiveCore

// MARK: - Reasons

/// One human-readable reason a target scored well, with its weight: the
/// log-score it adds for this target beyond the average target.
public struct Reason: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case timeOfDay, day, context, previous, frequency, recency
    }

    public var kind: Kind
    /// e.g. "usually 07:00-08:00", "on weekdays", "when focus=work", "after Order coffee".
    public var text: String
    public var weight: Double

    public init(kind: Kind, text: String, weight: Double) {
        self.kind = kind
        self.text = text
        self.weight = weight
    }

    public var description: String { text }
}

/// A model that can say why it ranks a target where it does.
public protocol ExplainableModel: FittedModel {
    /// The strongest positive reasons for `target` at `moment`, strongest first.
    /// - Parameters:
    ///   - describe: a target's human name (e.g. its summary) for "after ..." reasons.
    ///   - limit: at most this many reasons.
    func reasons(for target: TargetKey, at moment: Moment, describe: (TargetKey) -> String, limit: Int) -> [Reason]

    /// `reasons(for:at:describe:limit:)` of each of `targets`, in order: a model whose reasons read
    /// every target's signals at the moment computes them once for all.
    func reasons(for targets: [TargetKey], at moment: Moment, describe: (TargetKey) -> String, limit: Int) -> [[Reason]]
}

extension ExplainableModel {
    public func reasons(for targets: [TargetKey], at moment: Moment, describe: (TargetKey) -> String, limit: Int) -> [[Reason]] {
        targets.map { reasons(for: $0, at: moment, describe: describe, limit: limit) }
    }
}

// MARK: - Profile

extension ProfileModel: ExplainableModel {
    public func reasons(for target: TargetKey, at moment: Moment, describe: (TargetKey) -> String, limit: Int = 3) -> [Reason] {
        guard let index = space.index(of: target) else { return [] }
        let lifts = columnLifts(target: index, at: moment)
        return Array(reasons(fromColumnLifts: lifts, target: index, at: moment, describe: describe, scale: 1,
                             uses: MomentUses(self, targets: [index], at: moment))
            .filter { $0.weight > 0.05 }.sorted { $0.weight > $1.weight }.prefix(limit))
    }

    /// Each column's contribution for `target` minus its mean over all targets.
    func columnLifts(target: TargetIndex, at moment: Moment) -> [Double] {
        let x = scoringVector(for: moment)
        let targets = space.targetCount
        var lifts = [Double](repeating: 0, count: width)
        for j in 0 ..< width where x[j] != 0 {
            let mean = logProfile.columnSum(j) / Double(targets)
            lifts[j] = (logProfile[target.rawValue, j] - mean) * x[j]
        }
        return lifts
    }

    /// Groups column lifts into reasons (weights multiplied by `scale`, and by `groupScales[group.rawValue]`
    /// when given: e.g. a blend weight per group, one per `ProfileGroup` case); `uses` holds the target's
    /// uses at the moment (its habit window).
    func reasons(fromColumnLifts lifts: [Double], target: TargetIndex, at moment: Moment, describe: (TargetKey) -> String,
                 scale: Double, groupScales: [Double] = [], uses: MomentUses) -> [Reason] {
        let layout = layout
        func groupScale(_ group: ProfileGroup) -> Double { scale * (groupScales.isEmpty ? 1 : groupScales[group.rawValue]) }
        var reasons: [Reason] = []
        /// A reason only when the evidence favours the target and its weight in the model is positive.
        func add(_ kind: Reason.Kind, _ text: String, lift: Double, group: ProfileGroup) {
            let scaled = lift * groupScale(group)
            if lift > 0, scaled > 0 { reasons.append(Reason(kind: kind, text: text, weight: scaled)) }
        }
        func groupLift(_ group: ProfileGroup) -> Double {
            (0 ..< width).filter { self.group(ofColumn: $0, at: moment) == group }.reduce(0.0) { $0 + lifts[$1] }
        }
        // Time of day, described by the slice near the moment that favours the target most.
        let x = scoringVector(for: moment)
        let strongest = layout.time.map { x[$0] }.max() ?? 0
        if layout.time.contains(where: { x[$0] >= 0.5 * strongest && x[$0] > 0 }), let habit = uses.habitWindow(of: target) {
            add(.timeOfDay, "usually \(habit)", lift: groupLift(.timeOfDay), group: .timeOfDay)
        }
        let reading = encoder.clock.read(moment.date, writtenOffset: moment.utcOffset)
        add(.day, reading.isWeekend ? "on weekends" : "on weekdays", lift: groupLift(.day), group: .day)
        for column in space.columns(for: moment.context) {
            add(.context, "when \(space.contextValue(at: column))", lift: lifts[layout.column(of: column)], group: .context)
        }
        // "After X" only while X is recent enough to count (its column's weight fades with the gap).
        if let previous = MomentEncoder.previous(of: moment, in: space) ?? log.latest(atOrBefore: moment.date),
           encoder.weight(of: previous, at: moment.date, layout: layout) >= 0.05,
           lifts[layout.column(previous: previous.target)] > 0 {
            add(.previous, "after \(describe(space.target(at: previous.target)))", lift: groupLift(.previous), group: .previous)
        }
        add(.frequency, "used often", lift: lifts[layout.bias], group: .prior)
        return reasons
    }
}

/// The uses of a few targets at or before a moment, gathered from the log in one pass (a saved log read in
/// place: `EventLog.forEachUse`), with each use's time of day on the user's clock: what the reasons say of a
/// target's habit time and recent use, for every target explained at that moment, without a pass each.
///
/// ```swift
/// let uses = MomentUses(profile, targets: [mail, news], at: moment)
/// uses.uses(of: mail, inDays: 14, nearTime: true)   // opens of the last 14 days within 90 minutes of now
/// uses.habitWindow(of: mail)                         // "09:00-09:20"
/// ```
///
/// Only the uses the reasons read are kept: those within 90 minutes of the moment's time of day, and
/// every use of the last `recentDays` (so `uses(of:inDays:nearTime: false)` counts at most that far back).
struct MomentUses {
    /// The moment's time (seconds since 1970) and its minute of the day on the user's clock.
    let end: Double
    let now: Double
    /// Per target asked (`slot`), its uses at or before `end` in log order: time, weight, minute of the day.
    private var times: [[Double]]
    private var weights: [[Double]]
    private var minutes: [[Double]]
    /// Per target index: its slot among those asked, or -1.
    private let slot: [Int]

    /// Gathers `targets`' uses at or before `moment`, each with its minute of the day on the profile's clock.
    init(_ profile: ProfileModel, targets: [TargetIndex], at moment: Moment) {
        let clock = profile.encoder.clock
        end = moment.date.timeIntervalSince1970
        now = clock.read(moment.date, writtenOffset: moment.utcOffset).minuteOfDay
        var slot = [Int](repeating: -1, count: profile.space.targetCount)
        var asked = 0
        for target in targets where slot[target.rawValue] < 0 {
            slot[target.rawValue] = asked
            asked += 1
        }
        self.slot = slot
        var times = [[Double]](repeating: [], count: asked)
        var weights = times, minutes = times
        let (end, now) = (end, now)
        let recentStart = end - Self.recentDays * 86_400
        profile.log.forEachUse(of: slot.map { $0 >= 0 }) { use in
            guard use.time <= end else { return }
            let minute = clock.read(use.date, writtenOffset: use.utcOffset).minuteOfDay
            guard use.time >= recentStart || Self.isNear(minute, now) else { return }
            let s = slot[use.target.rawValue]
            times[s].append(use.time)
            weights[s].append(use.weight)
            minutes[s].append(minute)
        }
        (self.times, self.weights, self.minutes) = (times, weights, minutes)
    }

    /// `minute` of the day less `now`, across midnight the short way (in -720 ... 720).
    private static func offset(_ minute: Double, from now: Double) -> Double {
        let delta = minute - now
        return delta > 720 ? delta - 1440 : delta < -720 ? delta + 1440 : delta
    }

    /// Whether a use at `minute` of the day is within 90 minutes of `now`, across midnight too.
    private static func isNear(_ minute: Double, _ now: Double) -> Bool { abs(offset(minute, from: now)) <= 90 }

    /// The uses of `target` (one of those gathered) in the `days` before the moment, counts included, summed
    /// newest first; with `nearTime`, only those within 90 minutes of the moment's time of day.
    /// `days` is at most `recentDays` without `nearTime`.
    func uses(of target: TargetIndex, inDays days: Double, nearTime: Bool) -> Double {
        precondition(nearTime || days <= Self.recentDays, "uses of every time of day are kept for \(Self.recentDays) days")
        guard target.rawValue < slot.count, slot[target.rawValue] >= 0 else { return 0 }
        let s = slot[target.rawValue]
        let start = end - days * 86_400
        var total = 0.0
        for i in times[s].indices.reversed() {
            if times[s][i] < start { break }
            if nearTime, !Self.isNear(minutes[s][i], now) { continue }
            total += weights[s][i]
        }
        return total
    }

    /// The habit's own time near the moment: the middle half (quartiles, to 5 minutes) of the target's
    /// uses within 90 minutes of the moment's time of day, on the user's clock, in the
    /// `habitWindowDays` before the moment when there are at least 3 there (a habit that moved is
    /// described where it is now), else in the whole history when there are at least 3; nil otherwise
    /// (then no time-of-day reason is given).
    func habitWindow(of target: TargetIndex) -> String? {
        guard target.rawValue < slot.count, slot[target.rawValue] >= 0 else { return nil }
        let s = slot[target.rawValue]
        let recentStart = end - Self.habitWindowDays * 86_400
        var near: [Double] = [], recentNear: [Double] = []
        for i in times[s].indices {
            let delta = Self.offset(minutes[s][i], from: now)
            guard abs(delta) <= 90 else { continue }
            near.append(now + delta)
            if times[s][i] >= recentStart { recentNear.append(now + delta) }
        }
        if recentNear.count >= 3 { near = recentNear }
        guard near.count >= 3 else { return nil }
        near.sort()
        func quantile(_ q: Double) -> Double { near[Int((Double(near.count - 1) * q).rounded())] }
        func text(_ minute: Double, _ rule: FloatingPointRoundingRule) -> String {
            Timestamp.clock(minuteOfDay: Int((minute / 5).rounded(rule)) * 5)
        }
        let (low, high) = (text(quantile(0.25), .down), text(quantile(0.75), .up))
        return low == high ? "around \(low)" : "\(low)-\(high)"
    }

    /// Days of recent history that describe a habit's time when they hold enough of its uses (`habitWindow`).
    static let habitWindowDays = 14.0
    /// Days back for which uses at any time of day are kept (`uses(of:inDays:nearTime:)`).
    static let recentDays = 14.0
}

/// "12 min", "3 h", "2 days": a past span for a person.
func spanText(seconds: Double) -> String {
    let minutes = max(0, seconds) / 60
    if minutes < 90 { return "\(Int(minutes.rounded())) min" }
    let hours = minutes / 60
    if hours < 36 { return "\(Int(hours.rounded())) h" }
    return "\(Int((hours / 24).rounded())) days"
}

// MARK: - Blend

extension BlendModel: ExplainableModel {
    public func reasons(for target: TargetKey, at moment: Moment, describe: (TargetKey) -> String, limit: Int = 3) -> [Reason] {
        if let then = asOfIfAsked(moment) { return then.reasons(for: target, at: moment, describe: describe, limit: limit) }
        guard let index = profile.space.index(of: target) else { return [] }
        return reasons(for: target, at: moment, describe: describe, limit: limit, signals: signals(at: moment),
                       uses: MomentUses(profile, targets: [index], at: moment))
    }

    public func reasons(for targets: [TargetKey], at moment: Moment, describe: (TargetKey) -> String, limit: Int) -> [[Reason]] {
        if let then = asOfIfAsked(moment) { return then.reasons(for: targets, at: moment, describe: describe, limit: limit) }
        guard targets.contains(where: { profile.space.index(of: $0) != nil }) else { return targets.map { _ in [] } }
        let signals = signals(at: moment)
        let uses = MomentUses(profile, targets: targets.compactMap { profile.space.index(of: $0) }, at: moment)
        return targets.map { reasons(for: $0, at: moment, describe: describe, limit: limit, signals: signals, uses: uses) }
    }

    /// The reasons of one target from every target's `signals(at: moment)` and the targets' `uses` at it (this
    /// target's among them).
    private func reasons(for target: TargetKey, at moment: Moment, describe: (TargetKey) -> String, limit: Int,
                         signals: [Double], uses: MomentUses) -> [Reason] {
        let space = profile.space
        guard let index = space.index(of: target) else { return [] }
        let features = BlendFeature.count
        let targets = space.targetCount
        /// The weighted lift of one blend feature for the target.
        func lift(_ feature: BlendFeature) -> Double {
            var mean = 0.0
            for t in 0 ..< targets { mean += signals[t * features + feature.rawValue] }
            mean /= Double(targets)
            return weights[feature.rawValue] * (signals[index.rawValue * features + feature.rawValue] - mean)
        }
        // One weight per `ProfileGroup`, in its cases' order (an array: a dictionary keyed by the group is a
        // generic type the runtime instantiates, with a conformance lookup, in each process that explains).
        let groupFeatures: [BlendFeature] = [.profilePrior, .profileTime, .profileDay, .profileContext, .profilePrevious, .profileAbsence]
        assert(groupFeatures.count == ProfileGroup.allCases.count)
        let groupWeights = groupFeatures.map { weights[$0.rawValue] }
        var reasons = profile.reasons(fromColumnLifts: profile.columnLifts(target: index, at: moment), target: index, at: moment,
                                      describe: describe, scale: 1, groupScales: groupWeights, uses: uses)
        // Transitions strengthen "after ..."; recency and frecency get their own reasons.
        let transition = lift(.transitionRecent) + lift(.transitionStale) + lift(.transitionOvernight)
        if let position = reasons.firstIndex(where: { $0.kind == .previous }) {
            reasons[position].weight += transition
        } else if transition > 0, let previous = usage.lastTarget, previous < targets {
            reasons.append(Reason(kind: .previous, text: "after \(describe(space.target(at: TargetIndex(previous))))", weight: transition))
        }
        // The routine signal speaks of the context it read: what followed the previous target (when that was
        // within the window), else this time of day, else this day type.
        let routine = lift(.routine)
        if routine > 0 {
            let gap = moment.date.timeIntervalSince1970 - usage.lastTime
            let afterPrevious = usage.lastTarget != nil && gap > 0 && gap <= usage.followWindow
            let reading = profile.encoder.clock.read(moment.date, writtenOffset: moment.utcOffset)
            if afterPrevious, let position = reasons.firstIndex(where: { $0.kind == .previous }) {
                reasons[position].weight += routine
            } else if let position = reasons.firstIndex(where: { $0.kind == .timeOfDay }) {
                reasons[position].weight += routine
            } else if let position = reasons.firstIndex(where: { $0.kind == .day }) {
                reasons[position].weight += routine
            } else {
                reasons.append(Reason(kind: .day, text: reading.isWeekend ? "on weekends" : "on weekdays", weight: routine))
            }
        }
        // The habit rate speaks of this time of day lately (its estimate weighs recent days most), the calendar
        // lift of the habit's own time on days like today.
        // A habit taken up lately (most of its uses near this time are from the last 14 days) is "lately at
        // this time"; an older one "usually HH:MM", its window on the user's clock.
        let rate = lift(.habitRate) + lift(.calendarLift)
        let nearAll = uses.uses(of: index, inDays: 3650, nearTime: true)
        let nearRecent = uses.uses(of: index, inDays: MomentUses.recentDays, nearTime: true)
        let takenUpLately = nearRecent >= 2 && nearRecent * 2 >= nearAll
        if rate > 0, !takenUpLately {
            if let position = reasons.firstIndex(where: { $0.kind == .timeOfDay }) {
                reasons[position].weight += rate
            } else if let window = uses.habitWindow(of: index) {
                reasons.append(Reason(kind: .timeOfDay, text: "usually \(window)", weight: rate))
            }
        }
        let rankFeatures: [BlendFeature] = [.rank0, .rank1, .rank2, .rank3, .rank4, .rank5, .rank6, .rank7, .rankOlder,
                                            .backToPrevious, .logAge, .repeat1m, .repeat5m, .repeat30m, .repeat2h, .repeat8h, .repeatLater]
        // Recency and frequency say what the data says, within a stated span (nothing when it is stale).
        let age = moment.date.timeIntervalSince1970 - usage.lastUse[index.rawValue]
        if age >= 0, age <= 7 * 86_400 {
            reasons.append(Reason(kind: .recency, text: "used \(spanText(seconds: age)) ago",
                                  weight: rankFeatures.reduce(0.0) { $0 + lift($1) }))
        }
        let lately = uses.uses(of: index, inDays: MomentUses.recentDays, nearTime: false)
        if lately >= 3 {
            reasons.append(Reason(kind: .frequency, text: "used \(Int(lately)) times in the last \(Int(MomentUses.recentDays)) days",
                                  weight: lift(.frecencyShort) + lift(.frecencyLong)))
        }
        if nearRecent >= 2 {
            reasons.append(Reason(kind: .timeOfDay, text: "lately at this time", weight: lift(.recentTimeOfDay) + (takenUpLately ? max(0, rate) : 0)))
        }
        var merged: [Reason] = []
        for reason in reasons {
            if let position = merged.firstIndex(where: { $0.text == reason.text }) {
                merged[position].weight += reason.weight
            } else {
                merged.append(reason)
            }
        }
        return Array(merged.filter { $0.weight > 0.05 }.sorted { $0.weight > $1.weight }.prefix(limit))
    }
}
