import Foundation

// MARK: - Signals

/// Why a candidate is not shown at all, whatever its evidence.
package enum Block: Sendable, Hashable, CustomStringConvertible {
    /// A "never suggest this" rule applies.
    case never(NeverRule)
    /// The active Focus's filter does not allow it.
    case focus(String?)
    /// The intent is not eligible for suggestions (its definition says so).
    case ineligible

    package var description: String {
        switch self {
        case let .never(rule): return "never suggested (\(rule))"
        case let .focus(focus): return "filtered out by the \(focus ?? "current") Focus"
        case .ineligible: return "not eligible for suggestions"
        }
    }
}

/// The kinds of evidence the fusion combines.
package enum SignalKind: String, Sendable, Hashable {
    case model, window, newContent, timeline
}

/// Everything known about one candidate (an intent or a widget) at one instant,
/// each signal in 0...1 before weighting.
package struct RelevanceSignals: Sendable, Hashable {
    /// `p`: the model's probability of the target (of a widget's configuration intent).
    package var probability: Double = 0
    /// The declared date window `t` is inside (`d` = 1 when set).
    package var window: DateInterval?
    /// A window `t` is inside that was already used (kept for the explanation; `d` = 0).
    package var usedWindow: DateInterval?
    /// `n`: "new content" times the app's usual use at this hour, 0...1.
    package var newContent: Double = 0
    /// When the "new content" was declared.
    package var newContentSince: Date?
    /// The widget's timeline reading (`τ` = its normalised score).
    package var timeline: TimelineReading?
    /// Multiplier from "not now" dismissals, 0...1, and the latest one.
    package var dismissal: Double = 1
    package var lastDismissal: Date?
    /// Multiplier from unanswered impressions, 0...1, and their number.
    package var fatigue: Double = 1
    package var impressions: Int = 0
    /// Set when the candidate must not be shown.
    package var block: Block?

    package init() {}

    package init(probability: Double) { self.probability = probability }

    /// `d`: 1 inside an unused declared window.
    package var windowSignal: Double { window == nil ? 0 : 1 }
    /// `τ`: the normalised timeline relevance.
    package var timelineSignal: Double { timeline?.normalized ?? 0 }

    // MARK: The scoring function

    /// Evidence that the candidate is wanted now, a noisy-OR of the weighted signals:
    ///
    ///     E = 1 - (1 - wp·p) (1 - wd·d) (1 - wn·n) (1 - wt·τ)
    ///
    /// Each factor is the chance that signal alone fails to make the item worth
    /// showing; E is the chance at least one succeeds. It stays in 0...1, any
    /// single signal at full strength reaches its weight on its own, and agreeing
    /// signals raise it without double counting.
    package func evidence(_ configuration: FusionConfiguration) -> Double {
        let model = 1 - configuration.modelWeight * probability
        let window = 1 - configuration.windowWeight * windowSignal
        let fresh = 1 - configuration.newContentWeight * newContent
        let timeline = 1 - configuration.timelineWeight * timelineSignal
        return 1 - model * window * fresh * timeline
    }

    /// The fused score: `S = E · dismissal · fatigue · gate`, where gate is 0 for a
    /// blocked candidate and 1 otherwise. Feedback multiplies instead of adding:
    /// it is the user's word about this item, so it scales whatever evidence there is.
    package func score(_ configuration: FusionConfiguration) -> Double {
        guard block == nil else { return 0 }
        return evidence(configuration) * dismissal * fatigue
    }

    // MARK: Explanation

    /// A short human reason, strongest contribution first, e.g.
    /// `window 09:30–10:30; predicted 12% now; not now 20 min ago (×0.31)`.
    /// Times are shown on the clock of `utcOffset` (seconds east of UTC).
    package func why(_ configuration: FusionConfiguration, utcOffset: Int) -> String {
        why(configuration, utcOffsetAt: { _ in utcOffset })
    }

    /// `why`, each time shown on the clock in force at that instant: `utcOffsetAt(t)` seconds east
    /// of UTC (a zone's offset, which changes at DST within the span a reason covers).
    package func why(_ configuration: FusionConfiguration, utcOffsetAt: (Date) -> Int) -> String {
        reasons(configuration, utcOffsetAt: utcOffsetAt).joined(separator: "; ")
    }

    /// The parts of `why`, one phrase each, strongest contribution first, as answers carry them
    /// (a JSON array `why`, as a prediction's reasons are): `["window 09:30–10:30", "predicted 12% now",
    /// "not now at 09:10 (×0.31)"]`; a blocked candidate has the block's one phrase.
    package func reasons(_ configuration: FusionConfiguration, utcOffset: Int) -> [String] {
        reasons(configuration, utcOffsetAt: { _ in utcOffset })
    }

    /// `reasons`, each time shown on the clock in force at that instant (as `why(_:utcOffsetAt:)`).
    package func reasons(_ configuration: FusionConfiguration, utcOffsetAt: (Date) -> Int) -> [String] {
        func clock(_ date: Date) -> String { Self.clock(date, utcOffsetAt(date)) }
        if let block { return [block.description] }
        var parts: [(weight: Double, text: String)] = []
        if probability > 0 {
            parts.append((configuration.modelWeight * probability, "predicted \(Self.percent(probability)) now"))
        }
        if let window {
            parts.append((configuration.windowWeight, "window \(clock(window.start))–\(clock(window.end))"))
        }
        if newContent > 0, let since = newContentSince {
            parts.append((configuration.newContentWeight * newContent,
                          "new content since \(clock(since)), usual time for the app (\(Self.percent(newContent)))"))
        }
        if let timeline, timeline.score > 0 {
            var text = "timeline \(Self.number(timeline.score)) (\(Self.percent(timeline.normalized)) of its best) since \(clock(timeline.since))"
            if let until = timeline.until { text += " until \(clock(until))" }
            parts.append((configuration.timelineWeight * timeline.normalized, text))
        }
        var texts = parts.sorted { $0.weight > $1.weight }.map(\.text)
        if texts.isEmpty { texts = ["no relevance"] }
        if let usedWindow { texts.append("window \(clock(usedWindow.start))–\(clock(usedWindow.end)) already used") }
        if dismissal < 1, let last = lastDismissal { texts.append("not now at \(clock(last)) (×\(Self.number(dismissal)))") }
        if fatigue < 1 { texts.append("shown \(impressions)× unused (×\(Self.number(fatigue)))") }
        return texts
    }

    /// The signal that contributes most to the evidence (nil when none does).
    package func strongest(_ configuration: FusionConfiguration) -> SignalKind? {
        let contributions: [(SignalKind, Double)] = [
            (.window, configuration.windowWeight * windowSignal), (.timeline, configuration.timelineWeight * timelineSignal),
            (.newContent, configuration.newContentWeight * newContent), (.model, configuration.modelWeight * probability),
        ]
        guard let best = contributions.max(by: { $0.1 < $1.1 }), best.1 > 0 else { return nil }
        return best.0
    }

    /// The instant at which the strongest declared signal ends (window end or
    /// timeline `until`), nil when the item rests on the model or new content.
    package var declaredEnd: Date? {
        if let window { return window.end }
        if let timeline, timeline.score > 0 { return timeline.until }
        return nil
    }

    // MARK: Formatting

    /// `0.423` -> `42%`.
    package static func percent(_ value: Double) -> String { "\(Int((value * 100).rounded()))%" }

    /// Whole numbers without a fraction, others to two decimals (`52.6`, `0.31`).
    package static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String((value * 100).rounded() / 100)
    }

    /// `HH:MM` on the clock `utcOffset` seconds east of UTC.
    package static func clock(_ date: Date, _ utcOffset: Int) -> String {
        let seconds = Int((date.timeIntervalSince1970 + Double(utcOffset)).rounded(.down))
        let minuteOfDay = ((seconds % 86_400) + 86_400) % 86_400 / 60
        let hour = minuteOfDay / 60
        let minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}
