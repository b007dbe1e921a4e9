import Foundation
import ProactiveCore
import Testing

/// Dates people write for flags, query parameters and body fields (issue 29, items 1 and 7).
@Suite("Dates people write")
struct DateTextTests {
    @Test func readsInstantsWallTimesAndDays() throws {
        #expect(try DateText.parse("2026-11-16T07:38:00-08:00") == .instant(Date(timeIntervalSince1970: 1_794_843_480), utcOffset: -28_800))
        #expect(try DateText.parse("1794843480") == .instant(Date(timeIntervalSince1970: 1_794_843_480), utcOffset: nil))
        let wall = Double(Timestamp.daysFromCivil(year: 2026, month: 11, day: 16) * 86_400 + 7 * 3600 + 38 * 60)
        #expect(try DateText.parse("2026-11-16T07:38") == .wallTime(localSeconds: wall))
        // A space may replace the T, as in donation dates: the same local time.
        #expect(try DateText.parse("2026-11-16 07:38") == .wallTime(localSeconds: wall))
        #expect(try DateText.parse("2026-11-16") == .day(localSeconds: Double(Timestamp.daysFromCivil(year: 2026, month: 11, day: 16) * 86_400)))
    }

    @Test func errorsQuoteTheTextAsGiven() {
        for text in ["16/11/2026T07:38", "2026-11-16T7:38", "2026-11-31"] {
            #expect(throws: DonationLineError.self) { try DateText.parse(text) }
            do { _ = try DateText.parse(text) } catch {
                #expect(error.reason.hasPrefix("\"\(text)\" is not an ISO 8601 date ("), "\(error)")
                #expect(!error.reason.contains(text + ":00Z"), "\(error)")
            }
        }
    }

    @Test func aWallTimeIsReadOnTheClockAcrossDaylightSaving() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let offsetAt = { (date: Date) in zone.secondsFromGMT(for: date) }
        // Midnight of Oct 20 in Los Angeles (PDT, -07:00).
        let day = try DateText.parse("2026-10-20").resolve(offsetAt: offsetAt)
        #expect(Timestamp.format(secondsSince1970: day.date.timeIntervalSince1970, utcOffsetSeconds: 0) == "2026-10-20T07:00:00Z")
        // The morning after the fall-back change: -08:00.
        let after = try DateText.parse("2026-11-02T07:00").resolve(offsetAt: offsetAt)
        #expect(Timestamp.format(secondsSince1970: after.date.timeIntervalSince1970, utcOffsetSeconds: 0) == "2026-11-02T15:00:00Z")
        // 02:30 on 2026-03-08 does not exist there.
        #expect(!(try DateText.parse("2026-03-08T02:30").resolve(offsetAt: offsetAt)).exists)
    }

    @Test func donationDatesStillNeedAnOffsetAndSaySo() {
        do { _ = try Timestamp.parse("2026-11-16 07:38"); Issue.record("accepted") } catch {
            #expect(error.reason.contains("missing time zone offset: add Z or an offset such as -08:00"), "\(error)")
        }
    }
}
