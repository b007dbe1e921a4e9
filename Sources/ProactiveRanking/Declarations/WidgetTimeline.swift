import Foundation

// MARK: - Timeline entries

/// The relevance a timeline entry carries (`TimelineEntryRelevance`).
package struct EntryRelevance: Sendable, Hashable {
    /// Any consistent non-negative scale; 0 = never rotate to the widget for this entry.
    package var score: Double
    /// Seconds the score holds from the entry's date; 0 = until the next entry with relevance.
    package var duration: TimeInterval

    package init(score: Double, duration: TimeInterval = 0) {
        self.score = score
        self.duration = duration
    }
}

/// One entry of a widget's timeline: a date and, optionally, its relevance.
/// Entries without relevance do not change the widget's relevance.
public struct TimelineEntry: Sendable, Hashable {
    public var date: Date
    package var relevance: EntryRelevance?

    package init(date: Date, relevance: EntryRelevance? = nil) {
        self.date = date
        self.relevance = relevance
    }

    public init(date: Date, score: Double, duration: TimeInterval = 0) {
        self.init(date: date, relevance: EntryRelevance(score: score, duration: duration))
    }
}

/// How relevant a widget's timeline says it is at one instant.
package struct TimelineReading: Sendable, Hashable {
    /// The score in the app's own scale (0 when the entry's duration has run out).
    package var score: Double
    /// `score` divided by the largest score in the same timeline, in 0...1.
    package var normalized: Double
    /// Since when the reading holds: the date of the entry that gives it, or
    /// the end of that entry's duration once it has run out (score 0).
    package var since: Date
    /// When the reading stops holding: the end of the entry's duration or the
    /// next entry with relevance, whichever is first; nil = open-ended.
    package var until: Date?

    /// Positive relevance: the widget may be rotated to.
    package var isEligible: Bool { score > 0 }
}

// MARK: - Timeline

/// A widget's timeline with relevance (docs/DOMAIN.md 4.2).
///
/// At time `t` the entry that speaks is the latest entry *with relevance* dated
/// at or before `t`. Its score holds for `duration` seconds (after which the
/// score counts as 0 until a later entry gives relevance again); a duration of
/// 0 holds it until the next entry with relevance. Scores are relative to the
/// other entries of the same timeline, so `normalized` divides by the largest
/// score in the timeline: a widget's best moment reads 1 whatever scale its
/// app uses (dollars, 50-or-1, ...).
///
/// ```swift
/// let purchases = WidgetTimeline(widget: recentPurchases, entries: [
///     TimelineEntry(date: at(8, 15), score: 0), TimelineEntry(date: at(9, 41), score: 52.6)])
/// purchases.reading(at: at(10, 0))?.score   // 52.6
/// ```
public struct WidgetTimeline: Sendable, Hashable {
    public let widget: WidgetID
    /// Entries sorted by date (stable for equal dates: the later-listed entry wins).
    public let entries: [TimelineEntry]
    /// The largest score among the entries (0 when none has a positive score).
    public let maximumScore: Double
    /// Indices into `entries` of the entries with relevance, in date order.
    private let relevant: [Int]

    /// The largest score an entry may carry (any consistent scale fits below it,
    /// and every score stays printable and finite after normalising).
    public static let maximumEntryScore = 1e12

    /// - Throws: `DeclarationError` for a date outside the supported years, a
    ///   negative, non-finite or too large score, or a duration that is
    ///   negative or ends after the supported years.
    public init(widget: WidgetID, entries: [TimelineEntry]) throws(DeclarationError) {
        for (index, entry) in entries.enumerated() {
            try DeclarationBounds.checkDate(entry.date, path: "entries[\(index)].date")
            guard let relevance = entry.relevance else { continue }
            guard relevance.score.isFinite, relevance.score >= 0 else {
                throw DeclarationError(path: "entries[\(index)].score", reason: "must be a finite number >= 0, found \(relevance.score)")
            }
            guard relevance.score <= Self.maximumEntryScore else {
                throw DeclarationError(path: "entries[\(index)].score", reason: "must be at most \(Self.maximumEntryScore), found \(relevance.score)")
            }
            guard relevance.duration.isFinite, relevance.duration >= 0 else {
                throw DeclarationError(path: "entries[\(index)].duration", reason: "must be >= 0 seconds, found \(relevance.duration)")
            }
            try DeclarationBounds.checkEnd(of: entry.date, after: relevance.duration, path: "entries[\(index)].duration")
        }
        self.widget = widget
        let sorted = entries.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        self.entries = sorted
        self.relevant = sorted.indices.filter { sorted[$0].relevance != nil }
        self.maximumScore = sorted.reduce(0) { max($0, $1.relevance?.score ?? 0) }
    }

    // MARK: Reading

    /// The relevance at `date`, or nil when no entry with relevance has started yet.
    /// - Complexity: O(log n).
    package func reading(at date: Date) -> TimelineReading? {
        // Binary search: the last entry with relevance whose date <= `date`.
        var low = 0
        var high = relevant.count
        while low < high {
            let middle = (low + high) / 2
            if entries[relevant[middle]].date <= date { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let entry = entries[relevant[low - 1]]
        let relevance = entry.relevance!
        let next = low < relevant.count ? entries[relevant[low]].date : nil
        if relevance.duration > 0 {
            let expiry = entry.date.addingTimeInterval(relevance.duration)
            if date >= expiry {
                return TimelineReading(score: 0, normalized: 0, since: expiry, until: next)
            }
            return reading(score: relevance.score, since: entry.date, until: next.map { min($0, expiry) } ?? expiry)
        }
        return reading(score: relevance.score, since: entry.date, until: next)
    }

    private func reading(score: Double, since: Date, until: Date?) -> TimelineReading {
        TimelineReading(score: score, normalized: maximumScore > 0 ? score / maximumScore : 0, since: since, until: until)
    }

    /// The instants at which the reading can change (entry dates with relevance
    /// and duration ends), sorted: a surface only needs to re-evaluate there.
    public var changePoints: [Date] {
        var points: [Date] = []
        for index in relevant {
            let entry = entries[index]
            points.append(entry.date)
            if let duration = entry.relevance?.duration, duration > 0 { points.append(entry.date.addingTimeInterval(duration)) }
        }
        return points.sorted()
    }
}

// MARK: - Registry

/// Every widget's current timeline for one user. Setting a widget's timeline
/// replaces the previous one (a WidgetKit timeline reload); an empty one removes it.
public struct WidgetTimelineRegistry: Sendable, Hashable {
    public private(set) var timelines: [WidgetID: WidgetTimeline] = [:]

    public init() {}

    public init(_ timelines: [WidgetTimeline]) {
        for timeline in timelines { replace(timeline) }
    }

    public mutating func replace(_ timeline: WidgetTimeline) {
        timelines[timeline.widget] = timeline.entries.isEmpty ? nil : timeline
    }

    public subscript(widget: WidgetID) -> WidgetTimeline? { timelines[widget] }

    /// All timelines ordered by widget key.
    public var sorted: [WidgetTimeline] { timelines.keys.sorted().map { timelines[$0]! } }
}
