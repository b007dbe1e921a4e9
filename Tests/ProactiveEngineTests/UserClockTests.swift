import Foundation
import ProactiveCore
@testable import ProactiveEngine
import ProactiveStore
import Testing

/// Dates read on the user's clock, one answer per instant (issue 29 items 1 and 8, issue 31 item 8).
@Suite("The user's clock")
struct UserClockTests {
    @Test func aDayIsTheUsersLocalMidnight() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        try SQLiteDonationStore(database: engine.database).setTimeZone("America/Los_Angeles", forUser: "alice")
        let alice = try engine.readDate("2026-10-20", user: "alice")
        #expect(Timestamp.format(secondsSince1970: alice.date.timeIntervalSince1970, utcOffsetSeconds: alice.utcOffset)
                == "2026-10-20T00:00:00-07:00")
        #expect(alice.clock == "America/Los_Angeles")
        // Without a user: UTC, and the clock says so.
        let nobody = try engine.readDate("2026-10-20", user: nil)
        #expect(Timestamp.format(secondsSince1970: nobody.date.timeIntervalSince1970, utcOffsetSeconds: 0) == "2026-10-20T00:00:00Z")
        #expect(nobody.clock == "UTC (no user given)")
        // An instant stays that instant; its offset on the user's clock.
        let instant = try engine.readDate("2026-10-20T12:00:00Z", user: "alice")
        #expect(instant.utcOffset == -7 * 3600)
        // A question's moment needs a time of day.
        #expect(throws: DonationLineError.self) { try engine.readMoment("2026-11-16", user: "alice") }
        // A wall time the zone skips is refused.
        #expect(throws: DonationLineError.self) { try engine.readDate("2026-03-08T02:30", user: "alice") }
    }

    /// Without a zone, the clock is the offset of the user's latest donation, whatever offset the
    /// question's instant is written in: the same instant, the same prediction.
    @Test func oneInstantOneAnswerWithoutAZone() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        for donation in try sampleLog() { try engine.donate(donation) }
        #expect(try SQLiteDonationStore(database: engine.database).timeZone(forUser: "me") == nil)
        let pacific = try engine.readMoment("2026-11-20T07:30:00-08:00", user: "me")
        let utc = try engine.readMoment("2026-11-20T15:30:00Z", user: "me")
        let tokyo = try engine.readMoment("2026-11-21T00:30:00+09:00", user: "me")
        #expect(pacific == utc && utc == tokyo)
        #expect(pacific.utcOffset == -8 * 3600)
        #expect(pacific.clock.hasPrefix("UTC-08:00, the offset of the user's latest donation"))
        let answers = try [pacific, utc, tokyo].map { try engine.predict(user: "me", at: $0.date, utcOffset: $0.utcOffset, k: 4) }
        #expect(answers[0].suggestions.map(\.target) == answers[1].suggestions.map(\.target))
        #expect(answers[0].suggestions.map(\.probability) == answers[2].suggestions.map(\.probability))
        // The local time without an offset is the same instant on that clock.
        #expect(try engine.readMoment("2026-11-20T07:30", user: "me") == pacific)
    }

    /// A held model's clock (what the service reads per question) is the store's: with and without a
    /// zone, for moments after the donations it holds and before them.
    @Test func aHeldModelsClockIsTheStores() throws {
        let store = try TemporaryStore()
        let engine = try store.engine()
        for donation in try sampleLog() { try engine.donate(donation) }
        for zone in [nil, "Asia/Tokyo"] {
            try engine.donations.setTimeZone(zone, forUser: "me")
            let live = try engine.liveModel(user: "me")
            for text in ["2026-11-20T07:30:00-08:00", "2026-11-20T07:30", "2027-01-04T09:00", "2027-01-04T09:00:00Z", nil] {
                let now = Date(timeIntervalSince1970: 1_800_000_000)
                #expect(try engine.readMoment(text, live: live, now: now) == engine.readMoment(text, user: "me", now: now), "\(zone ?? "-") \(text ?? "now")")
            }
        }
    }
}
