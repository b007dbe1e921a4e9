import Foundation
import Testing
@testable import ProactiveCore

@Suite("Timestamps and the local clock")
struct TimestampAndClockTests {
    @Test func civilDayConversionsAreInverse() {
        for day in stride(from: -1000, through: 100_000, by: 37) {
            let civil = Timestamp.civilFromDays(day)
            #expect(Timestamp.daysFromCivil(year: civil.year, month: civil.month, day: civil.day) == day)
        }
        #expect(Timestamp.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test func parsesOffsetsAndFractions() throws {
        let a = try Timestamp.parse("2026-11-20T07:02:11-08:00")
        let b = try Timestamp.parse("2026-11-20T15:02:11Z")
        let c = try Timestamp.parse("2026-11-20T20:32:11.5+0530")
        #expect(a.secondsSince1970 == b.secondsSince1970)
        #expect(c.secondsSince1970 == b.secondsSince1970 + 0.5)
        #expect(c.utcOffsetSeconds == 19_800)
        #expect(Timestamp.format(secondsSince1970: c.secondsSince1970, utcOffsetSeconds: 19_800) == "2026-11-20T20:32:11.500+05:30")
    }

    @Test func localClockUsesTheWrittenOffset() throws {
        let parsed = try Timestamp.parse("2026-11-20T07:30:00-08:00")  // a Friday
        let reading = LocalClock().read(Date(timeIntervalSince1970: parsed.secondsSince1970), writtenOffset: parsed.utcOffsetSeconds)
        #expect(reading.minuteOfDay == 450)
        #expect(reading.weekday == 4)
        #expect(!reading.isWeekend)
    }

    @Test func configuredZoneWinsOverTheWrittenOffset() throws {
        // 2026-07-04T12:00:00Z is 08:00 in New York (EDT, UTC-4), a Saturday.
        let instant = Date(timeIntervalSince1970: try Timestamp.parse("2026-07-04T12:00:00Z").secondsSince1970)
        let clock = LocalClock(timeZone: try #require(TimeZone(identifier: "America/New_York")))
        let reading = clock.read(instant, writtenOffset: 0)
        #expect(reading.minuteOfDay == 480)
        #expect(reading.weekday == 5)
        #expect(reading.isWeekend)
    }

    // MARK: Issue 16, item 12: a day is the calendar day in the zone

    static func day(_ year: Int, _ month: Int, _ day: Int) -> Int { Timestamp.daysFromCivil(year: year, month: month, day: day) }

    @Test func daysAcrossDaylightSavingAre23Or25Hours() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        func start(_ days: Int) -> Date { LocalClock.startOfDay(days, offsetAt: { zone.secondsFromGMT(for: $0) }) }
        let fallBack = Self.day(2026, 11, 1)
        #expect(Timestamp.format(secondsSince1970: start(fallBack).timeIntervalSince1970, utcOffsetSeconds: 0) == "2026-11-01T07:00:00Z")  // 00:00 PDT
        #expect(start(fallBack + 1).timeIntervalSince(start(fallBack)) == 25 * 3600)
        let springForward = Self.day(2026, 3, 8)
        #expect(Timestamp.format(secondsSince1970: start(springForward).timeIntervalSince1970, utcOffsetSeconds: 0) == "2026-03-08T08:00:00Z")  // 00:00 PST
        #expect(start(springForward + 1).timeIntervalSince(start(springForward)) == 23 * 3600)
        #expect(start(Self.day(2026, 11, 20) + 1).timeIntervalSince(start(Self.day(2026, 11, 20))) == 24 * 3600)
    }

    /// Against Foundation's calendar, every day of two years in zones whose DST
    /// changes at 02:00, at midnight (a day without a midnight), by 30 minutes, or never.
    @Test(arguments: ["America/Los_Angeles", "America/Santiago", "Asia/Beirut", "Australia/Lord_Howe", "Europe/London", "UTC", "Asia/Kolkata"])
    func startOfDayMatchesTheCalendar(identifier: String) throws {
        let zone = try #require(TimeZone(identifier: identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        for days in Self.day(2025, 1, 1)..<Self.day(2027, 1, 1) {
            let (year, month, dayOfMonth) = Timestamp.civilFromDays(days)
            let noon = try #require(calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth, hour: 12)))
            let expected = calendar.startOfDay(for: noon)
            #expect(LocalClock.startOfDay(days, offsetAt: { zone.secondsFromGMT(for: $0) }) == expected, "\(identifier) \(year)-\(month)-\(dayOfMonth)")
        }
    }
}
