import Foundation
import HummingbirdTesting
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
