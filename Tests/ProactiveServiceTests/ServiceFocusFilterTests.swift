import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveRanking
import ProactiveService
import ProactiveStore
import Testing

@Suite("Service: Focus filters, notifications and people")
struct ServiceFocusFilterTests {
    static let mail = "com.example.mail"
    /// The `focus filter define` example: a required bool, an optional string, an entity that filters by `account`.
    static let declaration = #"""
        {"title": "Set account and appearance", "description": "Choose the account and look of Mail in this Focus",
         "parameters": [
           {"name": "alwaysUseDarkMode", "title": "Always use dark mode", "type": "bool", "optional": false, "default": false},
           {"name": "status", "title": "Status", "type": "string"},
           {"name": "account", "title": "Account", "type": "entity", "entityType": "Account",
            "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}], "matches": "account"}]}
        """#

    func storedFilter(_ fixture: ServiceFixture) throws -> StoredFocusFilter? {
        try SQLiteFocusStore(database: fixture.database).filter(app: Self.mail)
    }

    @Test("define: the app's own credential or the owner's; another app's is refused; bad declarations name the field")
    func define() async throws {
        let fixture = try ServiceFixture()
        let mail = try fixture.credentials.add(app: Self.mail)
        try await fixture.test { client async throws in
            let foreign = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: fixture.coffee, body: Self.declaration)
            #expect(foreign.status == .forbidden)
            #expect(try storedFilter(fixture) == nil)
            let own = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: mail, body: Self.declaration)
            #expect(own.status == .ok)
            #expect(own.json?.string("filter", "app") == Self.mail)
            #expect(own.json?["filter"]?["parameters"]?.items.count == 3)
            #expect(own.json?["dropped"]?.items.isEmpty == true)
            #expect(try storedFilter(fixture) != nil)

            let badType = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: mail,
                                                body: #"{"title": "T", "parameters": [{"name": "x", "type": "colour"}]}"#)
            #expect(badType.status == .badRequest)
            #expect(badType.json?.string("error", "field") == "parameters[0].type")
            let otherApp = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: fixture.owner,
                                                 body: #"{"app": "com.example.coffee", "title": "T", "parameters": []}"#)
            #expect(otherApp.json?.string("error", "field") == "app")
            let notJSON = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: mail, body: "{")
            #expect(notJSON.status == .badRequest)
            #expect(notJSON.json?.string("error", "code") == "invalid_request")
            // Nothing replaced by the refusals.
            #expect(try storedFilter(fixture)?.declaration.contains("alwaysUseDarkMode") == true)

            // Configured values that no longer fit a new declaration are dropped and listed.
            #expect(try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: mail,
                                          body: #"{"set": {"status": "busy", "account": "work"}}"#).status == .ok)
            let narrower = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: mail,
                                                 body: #"{"title": "Status only", "parameters": [{"name": "status", "type": "string"}]}"#)
            #expect(narrower.json?["dropped"]?.items.map { $0.string("parameter") } == ["account"])
            #expect(try storedFilter(fixture)?.values["work"] == ["status": .string("busy")])
        }
    }

    @Test("configure: values typed as on the command line; wrong values and undeclared filters are 400; the perform call when the Focus is on, to the owner only")
    func configure() async throws {
        let fixture = try ServiceFixture()
        let mail = try fixture.credentials.add(app: Self.mail)
        try await fixture.test { client async throws in
            let undeclared = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: mail,
                                                   body: #"{"set": {"status": "x"}}"#)
            #expect(undeclared.status == .badRequest)
            #expect(undeclared.json?.string("error", "message")?.contains("has not declared a Focus filter") == true)
            _ = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: mail, body: Self.declaration)

            let set = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/Work", credential: mail,
                                            body: #"{"set": {"account": "work", "alwaysUseDarkMode": true, "status": "busy"}}"#)
            #expect(set.status == .ok)
            #expect(set.json?.string("focus") == "work")
            #expect(set.json?.string("primary") == "Always use dark mode, Status, Account")
            #expect(set.json?.string("secondary") == "On, busy, Work")
            #expect(set.json?["perform"] == .null)  // work is not on
            #expect(try storedFilter(fixture)?.values["work"]?["account"] == .entity(id: "work", display: "Work"))

            // Removing: unset, or null; the required bool goes back to its default.
            let unset = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: mail,
                                              body: #"{"set": {"status": null}, "unset": ["alwaysUseDarkMode"]}"#)
            #expect(unset.json?.string("secondary") == "Off, Work")
            #expect(try storedFilter(fixture)?.values["work"] == ["account": .entity(id: "work", display: "Work")])

            for (body, field) in [(#"{"set": {"account": "school"}}"#, "account"), (#"{"set": {"alwaysUseDarkMode": "maybe"}}"#, "alwaysUseDarkMode"),
                                  (#"{"set": {"account": [1]}}"#, "set.account"), (#"{"colour": 1}"#, "colour"), (#"{}"#, "set"),
                                  (#"{"unset": "status"}"#, "unset")] {
                let bad = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: mail, body: body)
                #expect(bad.status == .badRequest, "\(body)")
                #expect(bad.json?.string("error", "field") == field, "\(body)")
            }
            let unknown = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: mail, body: #"{"set": {"font": "x"}}"#)
            #expect(unknown.json?.string("error", "message")?.contains("not a parameter") == true)
            #expect(try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: fixture.coffee,
                                          body: #"{"set": {"status": "x"}}"#).status == .forbidden)
            #expect(try storedFilter(fixture)?.values["work"] == ["account": .entity(id: "work", display: "Work")])

            // With personal on now, the app's answer does not tell it so (an app may not read the Focus): perform stays null.
            #expect(try await client.send(.put, "/v1/focus", credential: fixture.owner, body: #"{"focus": "personal"}"#).status == .ok)
            let live = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/personal", credential: mail,
                                             body: #"{"set": {"account": "personal"}}"#)
            #expect(live.status == .ok)
            #expect(live.json?["perform"] == .null, "\(live.text)")
            #expect(try storedFilter(fixture)?.values["personal"]?["account"] == .entity(id: "personal", display: "Personal"))
            // The owner's credential still sees the perform() call the app gets.
            let owner = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/personal", credential: fixture.owner,
                                              body: #"{"set": {"status": "away"}}"#)
            #expect(owner.json?.string("perform", "focus") == "personal")
            #expect(owner.json?.string("perform", "reason") == "configured")
            #expect(owner.json?["perform"]?["values"]?["alwaysUseDarkMode"] == .bool(false))
        }
    }

    @Test("show: the app's declaration and per Focus its values and predicate; only its own")
    func show() async throws {
        let fixture = try ServiceFixture()
        let mail = try fixture.credentials.add(app: Self.mail)
        try await fixture.test { client async throws in
            #expect(try await client.send(.get, "/v1/apps/\(Self.mail)/focus-filter", credential: mail).status == .badRequest)
            _ = try await client.send(.put, "/v1/apps/\(Self.mail)/focus-filter", credential: mail, body: Self.declaration)
            _ = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/work", credential: mail, body: #"{"set": {"account": "work"}}"#)
            _ = try await client.send(.patch, "/v1/apps/\(Self.mail)/focus-filter/personal", credential: mail, body: #"{"set": {"status": "off"}}"#)
            let shown = try await client.send(.get, "/v1/apps/\(Self.mail)/focus-filter", credential: mail)
            #expect(shown.status == .ok)
            #expect(shown.json?.string("title") == "Set account and appearance")
            guard case let .object(focuses)? = shown.json?["focuses"] else { Issue.record("no focuses: \(shown.text)"); return }
            #expect(focuses.map(\.0) == ["personal", "work"])
            #expect(shown.json?.string("focuses", "work", "predicate") == #"account == "work""#)
            #expect(shown.json?.string("focuses", "work", "secondary") == "Off, Work")
            let one = try await client.send(.get, "/v1/apps/\(Self.mail)/focus-filter?focus=work", credential: fixture.owner)
            guard case let .object(only)? = one.json?["focuses"] else { Issue.record("no focuses: \(one.text)"); return }
            #expect(only.map(\.0) == ["work"])
            #expect(try await client.send(.get, "/v1/apps/\(Self.mail)/focus-filter", credential: fixture.coffee).status == .forbidden)
            #expect(try await client.send(.get, "/v1/apps/\(Self.mail)/focus-filter?colour=red", credential: mail)
                .json?.string("error", "field") == "colour")
        }
    }

    @Test("notifications: silenced when the criteria miss the app's predicate in the Focus on; delivered otherwise; owner only")
    func notifications() async throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        _ = try engine.declareFocusFilter(try FocusFilter.parse(Self.declaration, app: Self.mail))
        _ = try engine.configureFocusFilter(app: Self.mail, focus: "work", set: [("account", "work")], unset: [])
        try SQLiteFocusStore(database: fixture.database).recordChange(StoredFocusChange(date: Date(timeIntervalSince1970: 1_795_000_000), focus: "work"))
        let inWork = Timestamp.format(secondsSince1970: 1_795_000_600, utcOffsetSeconds: 0)
        let before = Timestamp.format(secondsSince1970: 1_794_999_000, utcOffsetSeconds: 0)
        try await fixture.test { client async throws in
            func ask(_ body: String, credential: String? = nil) async throws -> (status: HTTPResponse.Status, json: JSONValue?, text: String) {
                try await client.send(.post, "/v1/notifications", credential: credential ?? fixture.owner, body: body)
            }
            let silenced = try await ask(#"{"app": "com.example.mail", "criteria": {"account": "personal"}, "at": "\#(inWork)"}"#)
            #expect(silenced.status == .ok)
            #expect(silenced.json?["delivered"] == .bool(false))
            #expect(silenced.json?.string("focus") == "work")
            #expect(silenced.json?.string("predicate") == #"account == "work""#)
            let delivered = try await ask(#"{"app": "com.example.mail", "criteria": {"account": "work"}, "at": "\#(inWork)"}"#)
            #expect(delivered.json?["delivered"] == .bool(true))
            let noFocus = try await ask(#"{"app": "com.example.mail", "criteria": {"account": "personal"}, "at": "\#(before)"}"#)
            #expect(noFocus.json?["delivered"] == .bool(true))
            #expect(noFocus.json?.string("reason") == "no Focus is on")
            #expect(noFocus.json?["focus"] == .null)
            // The answer is the engine's (what `notify --json` prints).
            let expected = try engine.notificationDecision(app: Self.mail, criteria: FilterCriteria(["account": "personal"]),
                                                           at: Date(timeIntervalSince1970: 1_795_000_600)).json
            #expect(silenced.json == expected)

            #expect(try await ask(#"{"criteria": {}}"#).json?.string("error", "field") == "app")
            #expect(try await ask(#"{"app": "com.example.mail", "criteria": {"account": 1}}"#).json?.string("error", "field") == "criteria.account")
            #expect(try await ask(#"{"app": "com.example.mail", "at": "yesterday"}"#).json?.string("error", "field") == "at")
            #expect(try await ask(#"{"app": "com.example.mail", "loud": true}"#).json?.string("error", "field") == "loud")
            #expect(try await ask(#"{"app": "com.example.coffee"}"#, credential: fixture.coffee).status == .forbidden)
        }
    }

    @Test("people: who goes with which Focus, from messaging donations; thresholds checked; owner only")
    func people() async throws {
        let fixture = try ServiceFixture()
        var lines: [String] = []
        // Alice is messaged at work (6 of her 7 messages), Bob mostly outside it (5 of 7 in personal).
        for index in 0..<14 {
            let (recipient, focus) = index < 6 ? ("alice", "work") : index == 6 ? ("alice", "personal") : ("bob", index < 9 ? "work" : "personal")
            lines.append(JSONWriter.string(.object([
                ("user", .string("me")), ("app", .string("com.example.messages")), ("intent", .string("SendMessageIntent")),
                ("parameters", .object([("recipient", .string(recipient))])),
                ("date", .string(Timestamp.format(secondsSince1970: 1_795_000_000 + Double(index) * 3600, utcOffsetSeconds: 0))),
                ("context", .object([("focus", .string(focus))])),
            ])))
        }
        try SQLiteDonationStore(database: fixture.database).append(try lines.map { try DonationLineCodec.decode($0) }, duplicates: .fail)
        try await fixture.test { client async throws in
            let answer = try await client.send(.get, "/v1/focus/people?user=me", credential: fixture.owner)
            #expect(answer.status == .ok)
            let people = answer.json?["people"]?.items ?? []
            // lift = ((6+1)/(7+2)) / ((8+1)/(14+2)) = 1.38 for Alice in work, ((5+1)/9) / ((6+1)/16) = 1.52 for Bob in personal.
            #expect(Set(people.map { "\($0.string("person") ?? "") in \($0.string("focus") ?? "")" }) == ["alice in work", "bob in personal"])
            let alice = people.first { $0.string("person") == "alice" }
            #expect(alice?.int("messages") == 6)
            if case let .number(lift, _)? = alice?["lift"] { #expect(abs(lift - (7.0 / 9) / (9.0 / 16)) < 1e-9) } else { Issue.record("no lift") }
            // Without a user: the store's only one.
            #expect(try await client.send(.get, "/v1/focus/people", credential: fixture.owner).json?.string("user") == "me")
            let all = try await client.send(.get, "/v1/focus/people?user=me&all=true", credential: fixture.owner)
            #expect((all.json?["people"]?.items.count ?? 0) == 4)  // two people in two Focuses
            let personal = try await client.send(.get, "/v1/focus/people?user=me&all=true&focus=Personal", credential: fixture.owner)
            #expect(Set((personal.json?["people"]?.items ?? []).compactMap { $0.string("focus") }) == ["personal"])
            let expected = try Engine(database: fixture.database).focusPeople(user: "me", all: true).rows.map(\.json)
            #expect(all.json?["people"] == .array(expected))

            for (query, field) in [("minLift=-1", "minLift"), ("smoothing=0", "smoothing"), ("minSupport=x", "minSupport"), ("all=yes", "all"),
                                   ("user=", "user"), ("colour=red", "colour")] {
                let bad = try await client.send(.get, "/v1/focus/people?\(query)", credential: fixture.owner)
                #expect(bad.status == .badRequest, "\(query)")
                #expect(bad.json?.string("error", "field") == field, "\(query)")
            }
            #expect(try await client.send(.get, "/v1/focus/people?user=me", credential: fixture.coffee).status == .forbidden)
        }
    }
}
