import Foundation
import Testing
@testable import ProactiveRanking

/// docs/DOMAIN.md 4.2: the Recent Purchases widget's timelines from the talk.
@Suite struct WidgetTimelineTests {
    let widget = Talk.purchases

    // MARK: Score = dollars spent

    @Test func dollarsSpentIsTheScore() throws {
        let timeline = try WidgetTimeline(widget: widget, entries: [
            TimelineEntry(date: Day.at(8, 15), score: 0),       // no purchase
            TimelineEntry(date: Day.at(9, 41), score: 52.6),    // $52.60
            TimelineEntry(date: Day.at(13, 5), score: 12.5),    // $12.50
        ])
        #expect(timeline.reading(at: Day.at(8, 0)) == nil)                    // nothing has started yet
        let before = try #require(timeline.reading(at: Day.at(9, 0)))
        #expect(before.score == 0 && !before.isEligible)                      // 8:15 -> 0: never rotate to it
        let after = try #require(timeline.reading(at: Day.at(10, 0)))
        #expect(after.score == 52.6 && after.isEligible)
        #expect(after.normalized == 1)                                         // the best entry of this timeline
        #expect(after.since == Day.at(9, 41) && after.until == Day.at(13, 5))
        let lunch = try #require(timeline.reading(at: Day.at(14, 0)))
        #expect(abs(lunch.normalized - 12.5 / 52.6) < 1e-12)                  // relative to the same widget's entries
        #expect(lunch.until == nil)                                            // duration 0, no later entry: open-ended
    }

    // MARK: 50 for purchases over $50, 1 below, 0 for none

    @Test func fiftyOrOneHoldsFrom941Until652pm() throws {
        let timeline = try WidgetTimeline(widget: widget, entries: [
            TimelineEntry(date: Day.at(8, 15), score: 0),
            TimelineEntry(date: Day.at(9, 41), score: 50),
            TimelineEntry(date: Day.at(18, 52), score: 1),
        ])
        for (hour, minute) in [(9, 41), (12, 0), (15, 30), (18, 51)] {
            let reading = try #require(timeline.reading(at: Day.at(hour, minute)))
            #expect(reading.score == 50 && reading.normalized == 1, "at \(hour):\(minute)")
        }
        let evening = try #require(timeline.reading(at: Day.at(18, 52)))
        #expect(evening.score == 1 && evening.normalized == 1.0 / 50)
        #expect(try #require(timeline.reading(at: Day.at(9, 40, 59))).score == 0)
    }

    // MARK: Duration 1800 s

    @Test func durationLimitsEligibilityToHalfAnHour() throws {
        let timeline = try WidgetTimeline(widget: widget, entries: [
            TimelineEntry(date: Day.at(8, 15), score: 0),
            TimelineEntry(date: Day.at(9, 41), score: 52.6, duration: 1800),
            TimelineEntry(date: Day.at(13, 5), score: 12.5, duration: 1800),
        ])
        #expect(try #require(timeline.reading(at: Day.at(9, 41))).isEligible)
        let during = try #require(timeline.reading(at: Day.at(10, 10, 59)))
        #expect(during.score == 52.6 && during.until == Day.at(10, 11))
        let expired = try #require(timeline.reading(at: Day.at(10, 11)))
        #expect(expired.score == 0 && !expired.isEligible && expired.since == Day.at(10, 11))
        #expect(expired.until == Day.at(13, 5))                                // until a later entry gives relevance
        #expect(try #require(timeline.reading(at: Day.at(13, 20))).score == 12.5)
        #expect(try #require(timeline.reading(at: Day.at(13, 35))).score == 0)
        #expect(timeline.changePoints == [Day.at(8, 15), Day.at(9, 41), Day.at(10, 11), Day.at(13, 5), Day.at(13, 35)])
    }

    // MARK: Entries without relevance

    @Test func entriesWithoutRelevanceDoNotInterruptAndDurationZeroHolds() throws {
        let timeline = try WidgetTimeline(widget: widget, entries: [
            TimelineEntry(date: Day.at(11), relevance: nil),
            TimelineEntry(date: Day.at(9, 41), score: 50),                    // listed out of order: sorted by date
            TimelineEntry(date: Day.at(12), relevance: nil),
        ])
        #expect(timeline.entries.map(\.date) == [Day.at(9, 41), Day.at(11), Day.at(12)])
        let reading = try #require(timeline.reading(at: Day.at(12, 30)))
        #expect(reading.score == 50 && reading.since == Day.at(9, 41) && reading.until == nil)
    }

    @Test func allZeroTimelineNormalisesToZero() throws {
        let timeline = try WidgetTimeline(widget: widget, entries: [TimelineEntry(date: Day.at(8), score: 0)])
        #expect(timeline.maximumScore == 0)
        #expect(try #require(timeline.reading(at: Day.at(9))).normalized == 0)
    }

    @Test func negativeScoreIsRejectedWithItsPath() {
        #expect(throws: DeclarationError(path: "entries[1].score", reason: "must be a finite number >= 0, found -1.0")) {
            try WidgetTimeline(widget: widget, entries: [TimelineEntry(date: Day.at(8), score: 1), TimelineEntry(date: Day.at(9), score: -1)])
        }
    }

    // MARK: Registry

    @Test func settingATimelineReplacesTheWidgetsPreviousOne() throws {
        var registry = WidgetTimelineRegistry()
        registry.replace(try WidgetTimeline(widget: widget, entries: [TimelineEntry(date: Day.at(9), score: 5)]))
        registry.replace(try WidgetTimeline(widget: widget, entries: [TimelineEntry(date: Day.at(10), score: 7)]))
        #expect(registry[widget]?.entries.map(\.date) == [Day.at(10)])
        registry.replace(try WidgetTimeline(widget: widget, entries: []))
        #expect(registry[widget] == nil)
    }
}
