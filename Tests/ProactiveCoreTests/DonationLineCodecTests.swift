import Foundation
import Testing
@testable import ProactiveCore

@Suite("Donation lines")
struct DonationLineCodecTests {
    static let canonical = #"{"user":"u1","app":"com.example.weather","intent":"CheckWeatherIntent","parameters":{"location":{"id":"cupertino","display":"Cupertino"}},"date":"2026-11-20T07:02:11-08:00","identifier":"68753A44","group":"cupertino","context":{"focus":"work","place":"home"}}"#

    @Test func decodesTheFormatsExample() throws {
        let donation = try DonationLineCodec.decode(Self.canonical)
        #expect(donation.user == "u1")
        #expect(donation.app == "com.example.weather")
        #expect(donation.parameters["location"] == .entity(id: "cupertino", display: "Cupertino"))
        #expect(donation.utcOffset == -8 * 3600)
        // 2026-11-20T15:02:11Z
        #expect(donation.date.timeIntervalSince1970 == 1_795_186_931)
        #expect(donation.context == ["focus": "work", "place": "home"])
        #expect(donation.count == 1)
    }

    @Test func canonicalLinesRoundTripByteForByte() throws {
        let lines = [
            Self.canonical,
            #"{"user":"default","app":"a","intent":"open","date":"2026-01-01T00:00:00Z"}"#,
            #"{"user":"u","app":"a","intent":"Buy","parameters":{"amount":52.6,"n":3,"ok":true,"s":"x\"y"},"date":"2026-01-01T09:41:00.250+05:30","count":7}"#,
        ]
        for line in lines {
            #expect(DonationLineCodec.encode(try DonationLineCodec.decode(line)) == line)
        }
    }

    @Test func defaultsAndUnixSeconds() throws {
        let donation = try DonationLineCodec.decode(#"{"app":"a","intent":"open","date":1795186931}"#)
        #expect(donation.user == Donation.defaultUser)
        #expect(donation.utcOffset == nil)
        #expect(DonationLineCodec.encode(donation) == #"{"user":"default","app":"a","intent":"open","date":"2026-11-20T15:02:11Z"}"#)
    }

    @Test(arguments: [
        (#"{"intent":"open","date":"2026-01-01T00:00:00Z"}"#, "app", "missing (required)"),
        (#"{"app":"a","date":"2026-01-01T00:00:00Z"}"#, "intent", "missing (required)"),
        (#"{"app":"a","intent":"open"}"#, "date", "missing (required)"),
        (#"{"app":5,"intent":"open","date":"2026-01-01T00:00:00Z"}"#, "app", "must be a string, found an integer"),
        (#"{"app":"","intent":"open","date":"2026-01-01T00:00:00Z"}"#, "app", "must not be empty"),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","count":0}"#, "count", "must be >= 1, found 0"),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","count":-3}"#, "count", "must be >= 1, found -3"),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","count":1.5}"#, "count", "must be an integer >= 1, found 1.5"),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","count":9223372036854775808}"#, "count", "9.223372036854776e+18 is too large (at most 2147483647)"),
        (#"{"app":"a","intent":"open","date":"0000-01-01T00:00:00Z"}"#, "date", "year 0 is outside the supported range 1970-2200"),
        (#"{"app":"a","intent":"open","date":"9999-12-31T00:00:00Z"}"#, "date", "year 9999 is outside the supported range 1970-2200"),
        (#"{"app":"a","intent":"open","date":"2026-02-30T00:00:00Z"}"#, "date", #""2026-02-30T00:00:00Z" is not an ISO 8601 date with offset (day 30 does not exist in that month)"#),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00"}"#, "date", #""2026-01-01T00:00:00" is not an ISO 8601 date with offset (missing time zone offset: add Z or an offset such as -08:00)"#),
        (#"{"app":"a","intent":"open","date":true}"#, "date", "must be an ISO 8601 string or Unix seconds, found a boolean"),
        (#"{"app":"a","intent":"open","date":1795705331000}"#, "date", "Unix time 1795705331000.0 is outside the supported years 1970-2200 (milliseconds given as seconds?)"),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","parameters":{"x":[1]}}"#, "parameters.x", "must be a string, number, boolean or entity object, found an array"),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","parameters":{"x":{"display":"y"}}}"#, "parameters.x", "an entity needs a string \"id\""),
        (#"{"app":"a","intent":"open","date":"2026-01-01T00:00:00Z","context":{"focus":1}}"#, "context.focus", "must be a string, found an integer"),
        (#"{"app":"a","app":"b","intent":"open","date":"2026-01-01T00:00:00Z"}"#, "app", "appears twice"),
    ])
    func rejectsBadFieldsNamingThem(line: String, field: String, reason: String) {
        do {
            _ = try DonationLineCodec.decode(line)
            Issue.record("accepted: \(line)")
        } catch {
            #expect(error.field == field)
            #expect(error.reason == reason)
        }
    }

    @Test func rejectsNonObjectsAndBrokenJSON() {
        #expect(throws: DonationLineError(field: nil, reason: "a donation must be a JSON object, found an array")) {
            try DonationLineCodec.decode("[]")
        }
        do {
            _ = try DonationLineCodec.decode(#"{"app":"a""#)
            Issue.record("accepted broken JSON")
        } catch {
            #expect(error.field == nil)
            #expect(error.category == "invalid JSON")
        }
    }

    @Test func rejectsOverlongLinesBeforeParsing() {
        let long = String(repeating: " ", count: DonationLineCodec.maximumLineBytes + 1)
        #expect(throws: DonationLineError.self) { try DonationLineCodec.decode(long) }
    }

    @Test func ignoresUnknownFieldsAndNullParameters() throws {
        let donation = try DonationLineCodec.decode(#"{"app":"a","intent":"i","date":"2026-01-01T00:00:00Z","future":{"x":1},"parameters":{"p":null,"q":"v"}}"#)
        #expect(donation.parameters == ["q": .string("v")])
    }
}
