import Foundation
import Testing
import ProactiveCore
import ProactiveModels
@testable import ProactiveRanking

/// An instant from an ISO 8601 text (test helper).
func at(_ text: String) -> Date {
    Date(timeIntervalSince1970: try! Timestamp.parse(text).secondsSince1970)
}

let losAngeles = TimeZone(identifier: "America/Los_Angeles")!

@Suite("Focus schedules and timeline")
struct FocusTimelineTests {
    static func work() throws -> FocusSchedule {
        try FocusSchedule(focus: "Work", weekdays: FocusSchedule.parseWeekdays("Mon-Fri"),
                          start: FocusSchedule.parseTime("09:00"), end: FocusSchedule.parseTime("17:30"), timeZone: losAngeles)
    }

    static func sleep() throws -> FocusSchedule {
        try FocusSchedule(focus: "Sleep", weekdays: FocusSchedule.parseWeekdays("daily"),
                          start: FocusSchedule.parseTime("22:00"), end: FocusSchedule.parseTime("07:00"), timeZone: losAngeles)
    }

    // MARK: Schedules

    @Test func weekdayScheduleCoversOfficeHoursOnly() throws {
        let timeline = FocusTimeline(schedules: [try Self.work()])
        #expect(timeline.focus(at: at("2026-11-16T08:59:59-08:00")) == nil)          // Monday, before
        #expect(timeline.focus(at: at("2026-11-16T09:00:00-08:00")) == "work")       // start is inclusive
        #expect(timeline.focus(at: at("2026-11-16T17:29:59-08:00")) == "work")
        #expect(timeline.focus(at: at("2026-11-16T17:30:00-08:00")) == nil)          // end is exclusive
        #expect(timeline.focus(at: at("2026-11-21T10:00:00-08:00")) == nil)          // Saturday
        // The same instant written in UTC reads the schedule's own zone.
        #expect(timeline.focus(at: at("2026-11-16T18:00:00Z")) == "work")
    }

    @Test func overnightScheduleRunsPastMidnight() throws {
        let timeline = FocusTimeline(schedules: [try Self.sleep()])
        #expect(timeline.focus(at: at("2026-11-16T23:00:00-08:00")) == "sleep")
        #expect(timeline.focus(at: at("2026-11-17T06:59:00-08:00")) == "sleep")
        #expect(timeline.focus(at: at("2026-11-17T07:00:00-08:00")) == nil)
    }

    @Test func daylightSavingKeepsLocalTimes() throws {
        let work = try Self.work()
        // Friday before the March 8 2026 change: PST (-08:00); Monday after: PDT (-07:00).
        #expect(work.occurrence(containing: at("2026-03-06T12:00:00-08:00"))?.start == at("2026-03-06T09:00:00-08:00"))
        #expect(work.occurrence(containing: at("2026-03-09T12:00:00-07:00"))?.start == at("2026-03-09T09:00:00-07:00"))
        #expect(work.nextBoundary(after: at("2026-03-06T18:00:00-08:00")) == at("2026-03-09T09:00:00-07:00"))
    }

    @Test func laterStartWinsWhenSchedulesOverlap() throws {
        let lunch = try FocusSchedule(focus: "Personal", weekdays: [0], start: 12 * 60, end: 13 * 60, timeZone: losAngeles)
        let timeline = FocusTimeline(schedules: [try Self.work(), lunch])
        #expect(timeline.focus(at: at("2026-11-16T12:30:00-08:00")) == "personal")
        #expect(timeline.focus(at: at("2026-11-16T13:00:00-08:00")) == "work")
        #expect(timeline.state(at: at("2026-11-16T12:30:00-08:00")).until == at("2026-11-16T13:00:00-08:00"))
    }

    // MARK: Manual changes

    @Test func manualSetHoldsUntilTheNextScheduleBoundary() throws {
        var timeline = FocusTimeline(schedules: [try Self.work()])
        timeline.set("Personal", at: at("2026-11-16T12:00:00-08:00"))
        let state = timeline.state(at: at("2026-11-16T13:00:00-08:00"))
        #expect(state.focus == "personal")
        #expect(state.source == .manual(since: at("2026-11-16T12:00:00-08:00")))
        #expect(state.until == at("2026-11-16T17:30:00-08:00"))
        #expect(timeline.focus(at: at("2026-11-16T17:30:00-08:00")) == nil)           // Work ended: schedules decide
        #expect(timeline.focus(at: at("2026-11-17T10:00:00-08:00")) == "work")
    }

    @Test func manualSetOnAWeekendLastsUntilMondaysStart() throws {
        var timeline = FocusTimeline(schedules: [try Self.work()])
        timeline.set("Fitness", at: at("2026-11-21T10:00:00-08:00"))
        #expect(timeline.focus(at: at("2026-11-22T20:00:00-08:00")) == "fitness")
        #expect(timeline.focus(at: at("2026-11-23T09:00:00-08:00")) == "work")
    }

    @Test func clearingTurnsAScheduledFocusOffUntilItsEnd() throws {
        var timeline = FocusTimeline(schedules: [try Self.work()])
        timeline.set(nil, at: at("2026-11-16T15:00:00-08:00"))
        #expect(timeline.focus(at: at("2026-11-16T14:59:00-08:00")) == "work")
        #expect(timeline.focus(at: at("2026-11-16T16:00:00-08:00")) == nil)
        #expect(timeline.focus(at: at("2026-11-17T09:30:00-08:00")) == "work")
    }

    @Test func manualChangesWithoutSchedulesLastUntilTheNextChange() {
        var timeline = FocusTimeline()
        timeline.set("Reading", at: at("2026-11-16T20:00:00Z"))
        timeline.set(nil, at: at("2026-11-18T20:00:00Z"))
        timeline.set("Work", at: at("2026-11-17T08:00:00Z"))        // inserted out of order
        #expect(timeline.focus(at: at("2026-11-16T19:59:59Z")) == nil)
        #expect(timeline.focus(at: at("2026-11-17T07:00:00Z")) == "reading")
        #expect(timeline.focus(at: at("2026-11-18T10:00:00Z")) == "work")
        #expect(timeline.focus(at: at("2026-11-19T10:00:00Z")) == nil)
    }

    // MARK: Enrichment

    @Test func enrichmentFillsOnlyMissingFocus() throws {
        let timeline = FocusTimeline(schedules: [try Self.work()])
        let monday = at("2026-11-16T10:00:00-08:00")
        let plain = Donation(app: "com.example.mail", intent: "open", date: monday, context: ["place": "office"])
        #expect(timeline.enrich(plain).context == ["place": "office", "focus": "work"])
        let stated = Donation(app: "com.example.mail", intent: "open", date: monday, context: ["focus": "Personal"])
        #expect(timeline.enrich(stated).focus == "personal")
        let saturday = Donation(app: "com.example.mail", intent: "open", date: at("2026-11-21T10:00:00-08:00"))
        #expect(timeline.enrich(saturday).context.isEmpty)
        let moment = timeline.enrich(Moment(date: monday, utcOffset: -8 * 3600))
        #expect(moment.context["focus"] == "work")
    }

    // MARK: Parsing

    @Test func weekdayAndTimeTexts() throws {
        #expect(try FocusSchedule.parseWeekdays("Mon-Fri") == [0, 1, 2, 3, 4])
        #expect(try FocusSchedule.parseWeekdays("fri-mon") == [4, 5, 6, 0])
        #expect(try FocusSchedule.parseWeekdays("Mon,Wed,sat") == [0, 2, 5])
        #expect(try FocusSchedule.parseWeekdays("weekends") == [5, 6])
        #expect(FocusSchedule.formatWeekdays([0, 1, 2, 3, 4]) == "Mon-Fri")
        #expect(FocusSchedule.formatWeekdays([0, 2]) == "Mon,Wed")
        #expect(try FocusSchedule.parseTime("17:30") == 1050)
        #expect(throws: FocusError.self) { try FocusSchedule.parseWeekdays("Funday") }
        #expect(throws: FocusError.self) { try FocusSchedule.parseTime("25:00") }
        #expect(throws: FocusError.self) { try FocusSchedule.parseTime("9:5") }
        #expect(throws: FocusError.self) { try FocusSchedule(focus: "  ", weekdays: [0], start: 0, end: 60, timeZone: losAngeles) }
        #expect(try Self.work().summary == "Mon-Fri 09:00-17:30 America/Los_Angeles")
    }
}
