import Foundation

// MARK: - Feedback index

/// Recorded feedback arranged for questions asked at an instant `t`: only
/// events dated at or before `t` count, so one index serves a whole simulated day.
///
/// Build it once per user (O(n log n)); every query is O(log n) in the number
/// of events about the scope asked for.
public struct FeedbackIndex: Sendable {
    private var dismissals: [FeedbackScope: [Date]] = [:]
    private var impressions: [FeedbackScope: [Date]] = [:]
    private var taps: [FeedbackScope: [Date]] = [:]
    /// Per rule: (date, true = never / false = undo), sorted by date.
    private var toggles: [NeverRule: [(date: Date, on: Bool)]] = [:]
    private var rulesByScope: [FeedbackScope: [NeverRule]] = [:]

    /// The per-item scopes that have dismissals, impressions, taps or rules
    /// (candidates whose score feedback may change).
    package private(set) var itemScopes: Set<FeedbackScope> = []
    /// True when some rule is scoped to a whole app.
    public private(set) var hasAppRules = false
    /// True when any never rule was recorded (active or undone).
    public var hasRules: Bool { !toggles.isEmpty }
    /// True when any tap was recorded (else `lastTap` and `wasTapped` answer nil and false for every scope).
    public var hasTaps: Bool { !taps.isEmpty }

    public init(_ events: [FeedbackEvent] = []) {
        let ordered = events.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        for event in ordered {
            switch event.kind {
            case .dismiss: dismissals[event.scope, default: []].append(event.date)
            case .impression: impressions[event.scope, default: []].append(event.date)
            case .tap: taps[event.scope, default: []].append(event.date)
            case .never, .undoNever:
                let rule = event.rule
                if toggles[rule] == nil { rulesByScope[rule.scope, default: []].append(rule) }
                toggles[rule, default: []].append((event.date, event.kind == .never))
                if case .app = rule.scope { hasAppRules = true }
            }
            if case .app = event.scope { continue }
            itemScopes.insert(event.scope)
        }
    }

    public var isEmpty: Bool { itemScopes.isEmpty && !hasAppRules }

    // MARK: Dismissals and fatigue

    /// The product over dismissals at or before `t` of `1 - strength * 2^(-age / halfLife)`,
    /// and the latest dismissal's date. Dismissals older than 16 half-lives are ignored (< 2e-5).
    package func dismissalFactor(_ scope: FeedbackScope, at t: Date, strength: Double, halfLife: TimeInterval) -> (factor: Double, last: Date?) {
        guard !dismissals.isEmpty, let dates = dismissals[scope], halfLife > 0 else { return (1, nil) }
        var factor = 1.0
        var last: Date?
        let end = Self.countAtOrBefore(dates, t)
        var index = end - 1
        while index >= 0 {
            let age = t.timeIntervalSince(dates[index])
            if age > 16 * halfLife { break }
            factor *= 1 - strength * exp2(-age / halfLife)
            if last == nil { last = dates[index] }
            index -= 1
        }
        return (factor, last)
    }

    /// Impressions of `scope` in `(max(last tap, t - window), t]`: shown again
    /// and again without being used.
    package func unansweredImpressions(_ scope: FeedbackScope, at t: Date, window: TimeInterval) -> Int {
        guard !impressions.isEmpty, let dates = impressions[scope] else { return 0 }
        var from = t.addingTimeInterval(-window)
        if let tap = lastTap(scope, atOrBefore: t), tap > from { from = tap }
        let end = Self.countAtOrBefore(dates, t)
        let start = Self.countAtOrBefore(dates, from)
        return max(0, end - start)
    }

    // MARK: Taps

    /// The latest engagement with `scope` at or before `t`.
    package func lastTap(_ scope: FeedbackScope, atOrBefore t: Date) -> Date? {
        guard !taps.isEmpty, let dates = taps[scope] else { return nil }   // no hashing when nothing was tapped
        let end = Self.countAtOrBefore(dates, t)
        return end > 0 ? dates[end - 1] : nil
    }

    /// Whether `scope` was engaged with inside `interval` at or before `t`
    /// (a used date window does not come back).
    package func wasTapped(_ scope: FeedbackScope, in interval: DateInterval, atOrBefore t: Date) -> Bool {
        guard let tap = lastTap(scope, atOrBefore: min(t, interval.end)) else { return false }
        return tap >= interval.start && tap < interval.end
    }

    // MARK: Never rules

    /// The first rule among `scopes` active at `t` whose context conditions hold in `context`.
    package func activeNeverRule(for scopes: [FeedbackScope], context: [String: String], at t: Date) -> NeverRule? {
        for scope in scopes {
            guard !rulesByScope.isEmpty, let rules = rulesByScope[scope] else { continue }
            for rule in rules where rule.applies(in: context) && isActive(rule, at: t) { return rule }
        }
        return nil
    }

    /// Whether `rule`'s latest toggle at or before `t` is `never` (not undone).
    package func isActive(_ rule: NeverRule, at t: Date) -> Bool {
        guard let list = toggles[rule] else { return false }
        var state = false
        for toggle in list {
            if toggle.date > t { break }
            state = toggle.on
        }
        return state
    }

    /// The rules active at `t`, ordered by their text.
    package func activeRules(at t: Date) -> [NeverRule] {
        toggles.keys.filter { isActive($0, at: t) }.sorted { $0.description < $1.description }
    }

    // MARK: Search

    /// The number of dates in `sorted` that are <= `t`.
    static func countAtOrBefore(_ sorted: [Date], _ t: Date) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= t { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
