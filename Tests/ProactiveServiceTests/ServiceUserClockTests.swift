import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveStore
import Testing

/// The service reads dates as the CLI does (issue 29 items 1 and 8, issue 31 item 8).
@Suite("Service: the user's clock")
struct ServiceUserClockTests {
    /// The same instant in any offset, or as a local time without one, gives the same prediction;
    /// the answer carries `clock` and `activity` as `predict --json` does; a bare day is a 400.
    @Test func oneInstantOneAnswer() async throws {
        let fixture = try ServiceFixture()
        try fixture.storeSampleDefinitions()
        try await fixture.test { client async throws in
            let loaded = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                               contentType: "application/x-ndjson")
            #expect(loaded.json?.int("stored") == 283)
            var answers: [JSONValue] = []
            for at in ["2026-11-20T07:30:00-08:00", "2026-11-20T15:30:00Z", "2026-11-20T07:30"] {
                let answer = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: #"{"user": "me", "at": "\#(at)"}"#)
                #expect(answer.status == .ok, "\(at): \(answer.text)")
                answers.append(try #require(answer.json))
            }
            for answer in answers {
                #expect(answer.string("at") == "2026-11-20T07:30:00-08:00")
                #expect(answer.string("clock")?.hasPrefix("UTC-08:00, the offset of the user's latest donation") == true, "\(answer)")
                if case .number? = answer["activity"] {} else { Issue.record("no activity: \(answer)") }
                #expect(answer["suggestions"] == answers[0]["suggestions"])
            }
            for path in ["/v1/suggestions", "/v1/stack"] {
                let widgets = path == "/v1/stack" ? #", "widgets": ["weather"]"# : ""
                var bodies: [JSONValue] = []
                for at in ["2026-11-20T07:30:00-08:00", "2026-11-20T15:30:00Z"] {
                    let answer = try await client.send(.post, path, credential: fixture.owner, body: #"{"user": "me", "at": "\#(at)"\#(widgets)}"#)
                    #expect(answer.status == .ok, "\(path) \(at): \(answer.text)")
                    bodies.append(answer.json ?? .null)
                }
                #expect(bodies[0] == bodies[1], "\(path)")
            }
            let day = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: #"{"user": "me", "at": "2026-11-20"}"#)
            #expect(day.status == .badRequest)
            #expect(day.json?.string("error", "field") == "at")
            #expect(day.text.contains("is a day, not a moment"), "\(day.text)")
        }
    }

    /// `before=2026-10-20&user=alice` is midnight in Alice's zone; without a user a day is refused.
    @Test func deleteBeforeADayIsTheUsersMidnight() async throws {
        let fixture = try ServiceFixture()
        try SQLiteDonationStore(database: fixture.database).setTimeZone("America/Los_Angeles", forUser: "alice")
        let lines = [#"{"user":"alice","app":"com.example.a","intent":"open","date":"2026-10-19T21:00:00-07:00"}"#,
                     #"{"user":"alice","app":"com.example.a","intent":"open","date":"2026-10-20T06:00:00-07:00"}"#].joined(separator: "\n")
        try await fixture.test { client async throws in
            _ = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: lines, contentType: "application/x-ndjson")
            let noUser = try await client.send(.delete, "/v1/donations?before=2026-10-20", credential: fixture.owner)
            #expect(noUser.status == .badRequest)
            #expect(noUser.json?.string("error", "field") == "before")
            let deleted = try await client.send(.delete, "/v1/donations?user=alice&before=2026-10-20", credential: fixture.owner)
            #expect(deleted.json?.int("deleted") == 1, "\(deleted.text)")
        }
        #expect(try fixture.storedCount() == 1)
    }
}

/// What a newcomer met at the service's edges (issue 29 items 2 and 8).
@Suite("Service: refusals a client can act on")
struct ServiceRefusalTests {
    /// A misspelled field is a 400 naming it and the field it is nearest to, single or in a batch; nothing is stored.
    @Test func anUnknownDonationFieldIsRefused() async throws {
        let fixture = try ServiceFixture()
        let line = #"{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","paramters":{"item":"latte"},"date":"2026-11-20T07:30:00-08:00"}"#
        try await fixture.test { client async throws in
            let single = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line)
            #expect(single.status == .badRequest)
            #expect(single.json?.string("error", "field") == "paramters")
            #expect(single.text.contains(#"did you mean \"parameters\"?"#), "\(single.text)")
            let batch = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line, contentType: "application/x-ndjson")
            #expect(batch.json?.int("rejected") == 1, "\(batch.text)")
            #expect(batch.json?["results"]?.items.first?.string("field") == "paramters")
        }
        #expect(try fixture.storedCount() == 0)
    }

    /// A donation's `timezone` (as export writes it) sets the user's zone when none is set; an app may not set it.
    @Test func aStatedZoneIsTakenFromTheOwner() async throws {
        let fixture = try ServiceFixture()
        let line = #"{"user":"me","app":"com.example.coffee","intent":"open","date":"2026-11-20T07:30:00-08:00","timezone":"America/Los_Angeles"}"#
        try await fixture.test { client async throws in
            let app = try await client.send(.post, "/v1/donations", credential: fixture.coffee, body: line)
            #expect(app.status == .forbidden, "\(app.text)")
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
            let question = #"{"user": "me", "at": "2026-11-20T07:30:00-08:00"}"#
            let before = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question)
            #expect(before.json?.string("clock")?.hasPrefix("UTC-08:00") == true, "\(before.text)")
            let owner = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line)
            #expect(owner.status == .created, "\(owner.text)")
            // The held model now reads the user's zone.
            let after = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question)
            #expect(after.json?.string("clock") == "America/Los_Angeles", "\(after.text)")
        }
        #expect(try SQLiteDonationStore(database: fixture.database).timeZone(forUser: "me") == "America/Los_Angeles")
        #expect(try fixture.storedCount() == 284)
    }

    /// Another method on a known path is a 405 with the path's methods in `Allow`; an unknown path stays a 404.
    @Test func aWrongMethodIs405WithAllow() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let wrong = try await client.execute(uri: "/v1/predict", method: .get, headers: [.authorization: "Bearer \(fixture.owner)"]) { response in
                (response.status, response.headers[.allow])
            }
            #expect(wrong.0 == .methodNotAllowed)
            #expect(wrong.1 == "POST")
            let donations = try await client.execute(uri: "/v1/donations", method: .put, headers: [.authorization: "Bearer \(fixture.owner)"]) { response in
                (response.status, response.headers[.allow])
            }
            #expect(donations.0 == .methodNotAllowed)
            #expect(donations.1 == "POST, DELETE")
            #expect(try await client.send(.get, "/v1/nothing-here", credential: fixture.owner).status == .notFound)
        }
    }

    /// The answer whose question fitted the model says so; the next answers from the held model do not.
    @Test func theFitIsToldOnce() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
            let question = #"{"user": "me", "at": "2026-11-20T07:30:00-08:00"}"#
            let first = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question)
            #expect(first.json?.string("note")?.contains("fitted") == true, "\(first.text)")
            let second = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: question)
            #expect(second.json?["note"] == .null, "\(second.text)")
            // Errors speak to an HTTP client: no command-line flags.
            let noWidgets = try await client.send(.post, "/v1/stack", credential: fixture.owner, body: #"{"user": "me", "widgets": ["weather"]}"#)
            #expect(noWidgets.status == .badRequest)
            #expect(!noWidgets.text.contains("--"), "\(noWidgets.text)")
        }
    }

    /// `GET /v1/users/{user}/timezone`: no zone, then the offset of the user's latest donation is the clock; a zone set
    /// is the clock; `at` is written back on that clock. Owner only; a bad user, `at` or parameter is a 400 naming it.
    @Test func theUsersZoneAndClock() async throws {
        let fixture = try ServiceFixture()
        let line = #"{"user":"alice","app":"com.example.a","intent":"open","date":"2026-10-19T21:00:00-07:00"}"#
        try await fixture.test { client async throws in
            _ = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line)
            let none = try await client.send(.get, "/v1/users/alice/timezone?at=2026-10-20T12:00:00Z", credential: fixture.owner)
            #expect(none.status == .ok, "\(none.text)")
            #expect(none.json?["timezone"] == .null, "\(none.text)")
            #expect(none.json?.string("at") == "2026-10-20T05:00:00-07:00")
            #expect(none.json?.string("clock")?.hasPrefix("UTC-07:00, the offset of the user's latest donation") == true, "\(none.text)")

            try SQLiteDonationStore(database: fixture.database).setTimeZone("Europe/Paris", forUser: "alice")
            let paris = try await client.send(.get, "/v1/users/alice/timezone?at=2026-10-20T12:00:00Z", credential: fixture.owner)
            #expect(paris.json?.string("user") == "alice")
            #expect(paris.json?.string("timezone") == "Europe/Paris")
            #expect(paris.json?.string("at") == "2026-10-20T14:00:00+02:00")
            #expect(paris.json?.string("clock") == "Europe/Paris")
            // Nobody's zone, nobody's donations: UTC.
            let nobody = try await client.send(.get, "/v1/users/nobody/timezone?at=2026-10-20T12:00:00Z", credential: fixture.owner)
            #expect(nobody.json?.string("at") == "2026-10-20T12:00:00Z", "\(nobody.text)")

            let app = try await client.send(.get, "/v1/users/alice/timezone", credential: fixture.coffee)
            #expect(app.status == .forbidden)
            for (uri, field) in [("/v1/users/alice/timezone?at=2026-10-20", "at"), ("/v1/users/alice/timezone?user=bob", "user"),
                                 ("/v1/users/a%01b/timezone", "user")] {
                let refused = try await client.send(.get, uri, credential: fixture.owner)
                #expect(refused.status == .badRequest, "\(uri): \(refused.text)")
                #expect(refused.json?.string("error", "field") == field, "\(uri): \(refused.text)")
            }
        }
    }
}
