import Foundation
import Hummingbird
import ProactiveCore
import ProactiveService
import ProactiveStore
import Testing

@Suite("Service: declarations")
struct ServiceDeclarationTests {
    static func sample(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("datasets/sample/declarations/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    func shortcutSets(_ fixture: ServiceFixture, user: String) throws -> [StoredShortcutSet] {
        try SQLiteDeclarationStore(database: fixture.database).shortcutSets(user: user)
    }

    @Test("PUT shortcuts replaces the app's set; another app's credential gets 403 and changes nothing")
    func shortcuts() async throws {
        let fixture = try ServiceFixture()
        let bank = try Self.sample("bank.json")
        let bankCredential = try fixture.credentials.add(app: "com.example.bank")
        try await fixture.test { client async throws in
            let foreign = try await client.send(.put, "/v1/apps/com.example.bank/shortcuts?user=me", credential: fixture.coffee, body: bank)
            #expect(foreign.status == .forbidden)
            #expect(try shortcutSets(fixture, user: "me").isEmpty)
            let own = try await client.send(.put, "/v1/apps/com.example.bank/shortcuts?user=me", credential: bankCredential, body: bank)
            #expect(own.status == .ok)
            #expect(own.json?.int("shortcuts") == 1)
            #expect(try shortcutSets(fixture, user: "me").map(\.app) == ["com.example.bank"])
            // The body names one app, the path another: refused.
            let mismatch = try await client.send(.put, "/v1/apps/com.example.coffee/shortcuts?user=me", credential: fixture.owner, body: bank)
            #expect(mismatch.status == .badRequest)
            let withdraw = try await client.send(.put, "/v1/apps/com.example.bank/shortcuts?user=me", credential: bankCredential,
                                                 body: #"{"shortcuts": []}"#)
            #expect(withdraw.json?.int("shortcuts") == 0)
            let bad = try await client.send(.put, "/v1/apps/com.example.bank/shortcuts?user=me", credential: bankCredential,
                                            body: #"{"shortcuts": [{"role": "information"}]}"#)
            #expect(bad.status == .badRequest)
            #expect(bad.json?.string("error", "message") != nil)
        }
    }

    @Test("PUT timelines stores each widget's timeline; a widget of another app refuses the whole body")
    func timelines() async throws {
        let fixture = try ServiceFixture()
        let timelines = try Self.sample("timelines.json")
        try await fixture.test { client async throws in
            let foreign = try await client.send(.put, "/v1/timelines?user=me", credential: fixture.weather, body: timelines)
            #expect(foreign.status == .forbidden)
            #expect(try SQLiteDeclarationStore(database: fixture.database).timelines(user: "me").isEmpty)
            let owner = try await client.send(.put, "/v1/timelines?user=me", credential: fixture.owner, body: timelines)
            #expect(owner.status == .ok)
            let widgets = owner.json?["widgets"]?.items ?? []
            #expect(widgets.count == (try SQLiteDeclarationStore(database: fixture.database).timelines(user: "me").count))
            #expect(widgets.count >= 2)
            let unknown = try await client.send(.put, "/v1/timelines?colour=red", credential: fixture.owner, body: timelines)
            #expect(unknown.json?.string("error", "field") == "colour")
        }
    }
}

@Suite("Service: feedback, Focus and definitions")
struct ServiceFocusTests {
    @Test("feedback: good events are recorded; one bad event refuses them all, naming its line; owner only")
    func feedback() async throws {
        let fixture = try ServiceFixture()
        let good = [#"{"date":"2026-11-20T09:31:00Z","kind":"never","app":"com.example.mail"}"#,
                    #"{"date":"2026-11-20T09:32:00Z","kind":"never","app":"com.example.news","context":{"focus":"work"}}"#]
        @Sendable func stored() throws -> Int { try SQLiteDeclarationStore(database: fixture.database).feedback(user: "me").count }
        try await fixture.test { client async throws in
            let bad = try await client.send(.post, "/v1/feedback?user=me", credential: fixture.owner,
                                            body: (good + [#"{"date":"2026-11-20T09:33:00Z","kind":"wave","app":"com.example.mail"}"#])
                                                .joined(separator: "\n"), contentType: "application/x-ndjson")
            #expect(bad.status == .badRequest)
            #expect(bad.json?.int("error", "line") == 3)
            #expect(try stored() == 0)
            let app = try await client.send(.post, "/v1/feedback?user=me", credential: fixture.coffee, body: good[0])
            #expect(app.status == .forbidden)
            let ok = try await client.send(.post, "/v1/feedback?user=me", credential: fixture.owner, body: "[" + good.joined(separator: ",") + "]")
            #expect(ok.status == .ok)
            #expect(ok.json?.int("recorded") == 2)
            #expect(try stored() == 2)
        }
    }

    @Test("Focus: set by hand, read back; null turns it off; app credentials refused")
    func focus() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let set = try await client.send(.put, "/v1/focus", credential: fixture.owner,
                                            body: #"{"focus": "Work", "at": "2026-11-20T09:00:00-08:00"}"#)
            #expect(set.status == .ok)
            #expect(set.json?.string("focus") == "work")
            let later = try await client.send(.get, "/v1/focus?at=2026-11-20T10:00:00-08:00", credential: fixture.owner)
            #expect(later.json?.string("focus") == "work")
            let before = try await client.send(.get, "/v1/focus?at=2026-11-20T08:00:00-08:00", credential: fixture.owner)
            #expect(before.status == .ok)
            #expect(before.json?["focus"] == .null)
            let off = try await client.send(.put, "/v1/focus", credential: fixture.owner, body: #"{"focus": null, "at": "2026-11-20T11:00:00-08:00"}"#)
            #expect(off.json?["focus"] == .null)
            let bad = try await client.send(.put, "/v1/focus", credential: fixture.owner, body: #"{"focus": 3}"#)
            #expect(bad.json?.string("error", "field") == "focus")
            let missing = try await client.send(.put, "/v1/focus", credential: fixture.owner, body: #"{}"#)
            #expect(missing.status == .badRequest)
            // A control character (here a NUL, found by schemathesis) is refused, not stored.
            let control = try await client.send(.put, "/v1/focus", credential: fixture.owner, body: #"{"focus": "\u0000\u74f0\u00a7"}"#)
            #expect(control.status == .badRequest)
            #expect(control.json?.string("error", "field") == "focus")
            #expect(try await client.send(.put, "/v1/focus", credential: fixture.coffee, body: #"{"focus": "work"}"#).status == .forbidden)
            #expect(try await client.send(.get, "/v1/focus", credential: fixture.coffee).status == .forbidden)
        }
        #expect(try SQLiteFocusStore(database: fixture.database).changes().count == 2)
    }

    @Test("definitions: the stored intent definitions, owner only")
    func definitions() async throws {
        let fixture = try ServiceFixture()
        let definitions = try fixture.storeSampleDefinitions()
        try await fixture.test { client async throws in
            let answer = try await client.send(.get, "/v1/definitions", credential: fixture.owner)
            #expect(answer.status == .ok)
            #expect(answer.json?["definitions"]?.items.count == definitions.count)
            #expect(definitions.count > 0)
            #expect(try await client.send(.get, "/v1/definitions", credential: fixture.coffee).status == .forbidden)
        }
    }
}

@Suite("Service: Smart Stack")
struct ServiceStackTests {
    @Test("the stack's decision at a moment names its top widget and the candidates; bad widgets are a 400; owner only")
    func stackDecision() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
            let timelines = try await client.send(.put, "/v1/timelines?user=me", credential: fixture.owner,
                                                  body: try ServiceDeclarationTests.sample("timelines.json"))
            #expect(timelines.status == .ok)
            let question = #"{"user": "me", "at": "2026-11-20T15:30:00-08:00", "widgets": ["weather", "reminders"]}"#
            let answer = try await client.send(.post, "/v1/stack", credential: fixture.owner, body: question)
            #expect(answer.status == .ok)
            let candidates = answer.json?["candidates"]?.items.compactMap { $0.string("widget") } ?? []
            #expect(candidates.count >= 2)
            let top = try #require(answer.json?.string("top"))
            #expect(candidates.contains(top))
            #expect(["resting", "rotated", "inserted"].contains(answer.json?.string("reason") ?? ""))
            // One shape for one answer: `why` is an array of phrases, as in predict and suggestions.
            func isReasons(_ value: JSONValue?) -> Bool {
                guard case let .array(items)? = value else { return false }
                return !items.isEmpty && items.allSatisfy { if case .string = $0 { true } else { false } }
            }
            #expect(isReasons(answer.json?["why"]), "\(answer.text)")
            #expect(answer.json?["candidates"]?.items.allSatisfy { isReasons($0["why"]) } == true, "\(answer.text)")
            let suggested = try await client.send(.post, "/v1/suggestions", credential: fixture.owner,
                                                  body: #"{"user": "me", "at": "2026-11-20T15:30:00-08:00", "k": 4}"#)
            let suggestions = suggested.json?["suggestions"]?.items ?? []
            #expect(!suggestions.isEmpty && suggestions.allSatisfy { isReasons($0["why"]) }, "\(suggested.text)")
            let unknown = try await client.send(.post, "/v1/stack", credential: fixture.owner,
                                                body: #"{"user": "me", "widgets": ["no-such-widget"]}"#)
            #expect(unknown.status == .badRequest)
            #expect(unknown.json?.string("error", "field") == "widgets")
            // The error speaks HTTP, not the command line.
            let message = unknown.json?.string("error", "message") ?? ""
            #expect(!message.contains("--") && message.contains("GET /v1/definitions"), "\(message)")
            #expect(answer.json?["skipped"]?.items.isEmpty == true)
            let none = try await client.send(.post, "/v1/stack", credential: fixture.owner, body: #"{"user": "me"}"#)
            #expect(none.json?.string("error", "field") == "widgets")
            #expect(try await client.send(.post, "/v1/stack", credential: fixture.coffee, body: question).status == .forbidden)
        }
    }

    /// A static widget's timeline for the whole of 2026-11-20 (Los Angeles) at `score`.
    static func timeline(app: String, kind: String, score: Int) -> String {
        JSONWriter.string(.object([
            ("app", .string(app)), ("widgetKind", .string(kind)),
            ("entries", .array([.object([("date", .string("2026-11-20T00:00:00-08:00")), ("score", .number(Double(score), integer: Int64(score))),
                                         ("duration", .number(86_400, integer: 86_400))])])),
        ]))
    }

    @Test("a widget kind belongs to its app: another app's widget of the same kind never stands in for it; kinds are identifiers")
    func widgetKindsBelongToTheirApp() async throws {
        let fixture = try ServiceFixture()
        let kind = "com.example.weather.today"
        try await fixture.test { client async throws in
            try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                  contentType: "application/x-ndjson")
            #expect(try await client.send(.put, "/v1/timelines?user=me", credential: fixture.weather,
                                          body: Self.timeline(app: "com.example.weather", kind: kind, score: 1)).status == .ok)
            #expect(try await client.send(.put, "/v1/timelines?user=me", credential: fixture.coffee,
                                          body: Self.timeline(app: "com.example.coffee", kind: kind, score: 100)).status == .ok)
            func stack(_ widget: String) async throws -> (status: HTTPResponse.Status, json: JSONValue?, text: String) {
                try await client.send(.post, "/v1/stack", credential: fixture.owner,
                                      body: JSONWriter.string(.object([("user", .string("me")), ("at", .string("2026-11-20T12:00:00-08:00")),
                                                                       ("widgets", .array([.string(widget)]))])))
            }
            // The kind alone names two apps' widgets: refused, naming both by app and kind.
            let ambiguous = try await stack(kind)
            #expect(ambiguous.status == .badRequest, "\(ambiguous.text)")
            #expect(ambiguous.json?.string("error", "field") == "widgets")
            let message = ambiguous.json?.string("error", "message") ?? ""
            #expect(message.contains("com.example.weather/\(kind)") && message.contains("com.example.coffee/\(kind)"), "\(message)")
            // By app and kind: the weather app's own widget, and the answer says whose it is.
            let own = try await stack("com.example.weather/\(kind)")
            #expect(own.status == .ok, "\(own.text)")
            #expect(own.json?.string("app") == "com.example.weather")
            let inStack = own.json?["candidates"]?.items.filter { $0["inStack"] == .bool(true) } ?? []
            #expect(inStack.map { $0.string("app") } == ["com.example.weather"])
            #expect(own.json?["candidates"]?.items.allSatisfy { $0.string("app") != nil } == true)
            // Kinds with path separators or `..` are refused, naming the field; nothing is stored.
            for bad in ["../com.example.weather/w", "a/b", "..", "a\\b", "a b"] {
                let refused = try await client.send(.put, "/v1/timelines?user=me", credential: fixture.coffee,
                                                    body: Self.timeline(app: "com.example.coffee", kind: bad, score: 1))
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(refused.json?.string("error", "field") == "widgetKind", "\(bad): \(refused.text)")
            }
        }
        #expect(try SQLiteDeclarationStore(database: fixture.database).timelines(user: "me").count == 2)
    }
}
