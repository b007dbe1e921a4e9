import Foundation
import ProactiveCore
import ProactiveModels

// MARK: - Manual changes

/// The user turned a Focus on by hand (`focus` set) or turned Focus off (`focus == nil`).
package struct ManualFocusChange: Sendable, Hashable {
    package var date: Date
    /// The Focus turned on (normalized), or nil for "Focus off".
    package var focus: String?

    package init(date: Date, focus: String?) {
        self.date = date
        self.focus = focus.map(FocusName.normalize)
    }
}

// MARK: - Focus state

/// Which Focus is on at an instant and why.
public struct FocusState: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        /// Nothing is on: no manual change holds and no schedule covers the instant.
        case none
        /// A manual change made at `since` decides (its focus may be nil: turned off by hand).
        case manual(since: Date)
        /// The schedule at this index of `FocusTimeline.schedules` decides.
        case schedule(index: Int)
    }
    /// The Focus on (normalized), nil when none.
    public var focus: String?
    public var source: Source
    /// When this state ends at the latest, by the rules alone (a later manual change may end it sooner); nil = open-ended.
    public var until: Date?
}

// MARK: - The timeline

/// Which Focus was on when: schedules plus manual changes, as a pure value.
///
/// **Rule.** A manual change (turning a Focus on, or clearing the Focus so
/// none is on) decides from its instant until the next manual change or the
/// next *schedule boundary* (any schedule starting or ending), whichever comes
/// first. Everywhere else the schedules decide: the Focus of the schedule
/// covering the instant; when several cover it, the one that started last
/// (ties: the earlier in `schedules`). This mirrors turning a scheduled Focus
/// off by hand: it stays off until the schedule next starts.
///
/// ```swift
/// var timeline = FocusTimeline(schedules: [work])
/// timeline.set("Personal", at: lunch)           // Personal until Work's 17:30 end
/// timeline.focus(at: lunch + 600)               // "personal"
/// let enriched = timeline.enrich(donation)      // context.focus filled when absent
/// ```
public struct FocusTimeline: Sendable, Hashable {
    public var schedules: [FocusSchedule]
    /// Manual changes sorted by date (stable for equal dates: the later call wins).
    package private(set) var changes: [ManualFocusChange]

    package init(schedules: [FocusSchedule] = [], changes: [ManualFocusChange] = []) {
        self.schedules = schedules
        self.changes = changes.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
    }

    /// Records a manual change: turn `focus` on at `date`, or Focus off when nil.
    public mutating func set(_ focus: String?, at date: Date) {
        let change = ManualFocusChange(date: date, focus: focus)
        let index = changes.partitioningIndex { $0.date > date }
        changes.insert(change, at: index)
    }

    /// The Focus on at `date` (normalized), or nil.
    /// - Complexity: O(log m + s) for m manual changes and s schedules.
    public func focus(at date: Date) -> String? { state(at: date).focus }

    /// The Focus on at `date` with the rule that decided it.
    package func state(at date: Date) -> FocusState {
        let nextChange = changes.partitioningIndex { $0.date > date }
        let nextManual = nextChange < changes.count ? changes[nextChange].date : nil
        if nextChange > 0 {
            let change = changes[nextChange - 1]
            let boundary = nextBoundary(after: change.date)
            if boundary.map({ $0 > date }) ?? true {
                return FocusState(focus: change.focus, source: .manual(since: change.date), until: earliest(boundary, nextManual))
            }
        }
        var chosen: (index: Int, occurrence: FocusSchedule.Occurrence)?
        for (index, schedule) in schedules.enumerated() {
            guard let occurrence = schedule.occurrence(containing: date) else { continue }
            if chosen == nil || occurrence.start > chosen!.occurrence.start { chosen = (index, occurrence) }
        }
        let boundary = nextBoundary(after: date)
        guard let chosen else { return FocusState(focus: nil, source: .none, until: earliest(boundary, nextManual)) }
        return FocusState(focus: schedules[chosen.index].focus, source: .schedule(index: chosen.index), until: earliest(boundary, nextManual))
    }

    /// The first schedule boundary strictly after `date`, over all schedules.
    public func nextBoundary(after date: Date) -> Date? {
        var best: Date?
        for schedule in schedules {
            if let boundary = schedule.nextBoundary(after: date), best == nil || boundary < best! { best = boundary }
        }
        return best
    }

    private func earliest(_ a: Date?, _ b: Date?) -> Date? {
        switch (a, b) {
        case let (a?, b?): return min(a, b)
        default: return a ?? b
        }
    }

    // MARK: Enrichment

    /// The donation with `context.focus` filled from the timeline when it has
    /// none. A donation that already states its Focus (an imported log) keeps
    /// it, normalized; when no Focus was on the context is left unchanged.
    public func enrich(_ donation: Donation) -> Donation {
        var copy = donation
        copy.context = enrich(context: donation.context, at: donation.date)
        return copy
    }

    /// The prediction moment with `context.focus` filled in the same way.
    public func enrich(_ moment: Moment) -> Moment {
        var copy = moment
        copy.context = enrich(context: moment.context, at: moment.date)
        return copy
    }

    /// A context dictionary with `focus` filled (or normalized) for the instant `date`.
    public func enrich(context: [String: String], at date: Date) -> [String: String] {
        var context = context
        if let stated = context["focus"] {
            context["focus"] = FocusName.normalize(stated)
        } else if let focus = focus(at: date) {
            context["focus"] = focus
        }
        return context
    }
}

// MARK: - Binary search

fileprivate extension Array {
    /// The first index whose element satisfies `predicate`, assuming the array is
    /// partitioned (all non-matching elements first). `count` when none match.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
