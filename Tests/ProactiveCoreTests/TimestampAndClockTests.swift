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
}
