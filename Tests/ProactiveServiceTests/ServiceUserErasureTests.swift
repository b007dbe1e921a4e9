import Foundation
import Hummingbird
import Testing
import ProactiveCore
import ProactiveEngine
import ProactivePostgres
import ProactiveService
import ProactiveStore

/// `DELETE /v1/users`: what `proactive forget` does, over HTTP. The secret a user's donations, widget
/// timeline and relevant shortcuts hold is gone from every table and from the store file and its log.
@Suite("Service: erasing a user over HTTP")
struct ServiceUserErasureTests {
    static let secret = ServiceErasureTests.secret

    /// A coffee widget timeline whose configuration names `item`.
    static func timeline(_ item: String, app: String = "com.example.coffee") -> String {
        #"[{"app": "\#(app)", "widgetKind": "\#(app).order", "configuration": {"intent": "OrderIntent", "#
            + #""parameters": {"item": {"id": "\#(item)", "display": "\#(item)"}}}, "entries": [{"date": "2026-11-20T00:00:00-08:00", "score": 1}]}]"#
    }

    /// Coffee's relevant shortcuts, one titled `item`.
    static func shortcuts(_ item: String) -> String {
        #"{"app": "com.example.coffee", "shortcuts": [{"widgetKind": "com.example.coffee.order", "role": "information", "title": "\#(item)", "#
            + #""configuration": {"intent": "OrderCoffeeIntent", "parameters": {"item": "\#(item)"}}, "#
            + #""relevanceProviders": [{"kind": "date", "start": "2026-11-20T09:41:00-08:00", "duration": 1800}]}]}"#
    }

    /// Donations, a held model, a timeline and shortcuts of user u holding the secret, through the service.
    static func declareSecret(_ client: TestClient, _ fixture: ServiceFixture) async throws {
        let stored = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: ServiceErasureTests.lines(),
                                           contentType: "application/x-ndjson")
        #expect(stored.json?.int("stored") == 14)
        let held = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: ServiceErasureTests.question)
        #expect(held.text.contains(secret))
        let timeline = try await client.send(.put, "/v1/timelines?user=u", credential: fixture.owner, body: timeline(secret))
        #expect(timeline.status == .ok, "\(timeline.text)")
        let shortcuts = try await client.send(.put, "/v1/apps/com.example.coffee/shortcuts?user=u", credential: fixture.owner,
                                              body: shortcuts(secret))
        #expect(shortcuts.status == .ok, "\(shortcuts.text)")
        #expect(try ServiceErasureTests.occurrences(of: secret, in: fixture) > 0)
    }

    @Test("the owner's DELETE /v1/users erases every table's rows of the user; 0 bytes of the secret in the file and its log")
    func ownerErasesEverything() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            try await Self.declareSecret(client, fixture)
            let erased = try await client.send(.delete, "/v1/users?user=u", credential: fixture.owner)
            #expect(erased.status == .ok, "\(erased.text)")
            #expect(erased.json?.string("user") == "u")
            #expect(erased.json?["erased"]?.int("donation") == 14, "\(erased.text)")
            #expect(erased.json?["erased"]?.int("widget_timeline") == 1, "\(erased.text)")
            #expect(erased.json?["erased"]?.int("relevant_shortcut_set") == 1, "\(erased.text)")
            // Straight after the answer, before any save: no copy in the file or its log.
            #expect(try ServiceErasureTests.occurrences(of: Self.secret, in: fixture) == 0)
            let after = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: ServiceErasureTests.question)
            #expect(!after.text.contains(Self.secret), "\(after.text)")
            // Required: no default user is erased by a forgotten parameter.
            let unnamed = try await client.send(.delete, "/v1/users", credential: fixture.owner)
            #expect(unnamed.status == .badRequest && unnamed.json?.string("error", "field") == "user", "\(unnamed.text)")
        }
        await fixture.service.models.flush()
        _ = await fixture.service.models.saveForShutdown(budget: .seconds(5))
        #expect(try ServiceErasureTests.occurrences(of: Self.secret, in: fixture) == 0)
        let declarations = SQLiteDeclarationStore(database: fixture.database)
        #expect(try declarations.timelines(user: "u").isEmpty && declarations.shortcutSets(user: "u").isEmpty)
        #expect(try fixture.storedCount() == 0)
    }

    @Test("an app's DELETE /v1/users erases its own data of the user only; another app's is a 403")
    func appErasesItsOwn() async throws {
        let fixture = try ServiceFixture()
        let kept = "WEATHER-KEPT-456"
        try await fixture.test { client async throws in
            try await Self.declareSecret(client, fixture)
            let weather = try await client.send(.put, "/v1/timelines?user=u", credential: fixture.weather,
                                                body: Self.timeline(kept, app: "com.example.weather"))
            #expect(weather.status == .ok, "\(weather.text)")
            let tea = donationLine(app: "com.example.weather", intent: "CheckWeatherIntent", item: kept, date: "2026-11-16T07:15:00-08:00", user: "u")
            #expect(try await client.send(.post, "/v1/donations", credential: fixture.weather, body: tea).status == .created)

            let foreign = try await client.send(.delete, "/v1/users?user=u&app=com.example.weather", credential: fixture.coffee)
            #expect(foreign.status == .forbidden, "\(foreign.text)")
            let erased = try await client.send(.delete, "/v1/users?user=u", credential: fixture.coffee)
            #expect(erased.status == .ok, "\(erased.text)")
            #expect(erased.json?["erased"]?.int("donation") == 14, "\(erased.text)")
            #expect(erased.json?["erased"]?.int("widget_timeline") == 1, "\(erased.text)")
            #expect(erased.json?["erased"]?.int("relevant_shortcut_set") == 1, "\(erased.text)")
            #expect(erased.json?.int("total") == 16, "\(erased.text)")
            let after = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: ServiceErasureTests.question)
            #expect(!after.text.contains(Self.secret), "\(after.text)")
        }
        await fixture.service.models.flush()
        _ = await fixture.service.models.saveForShutdown(budget: .seconds(5))
        _ = try SQLitePrivacyStore(database: fixture.database).eraseTraces()
        #expect(try ServiceErasureTests.occurrences(of: Self.secret, in: fixture) == 0)
        // The other app's data of the user stays.
        #expect(try fixture.storedCount() == 1)
        #expect(try SQLiteDeclarationStore(database: fixture.database).timelines(user: "u").map(\.app) == ["com.example.weather"])
    }
}

/// `DELETE /v1/users` on PostgreSQL: every table's rows of the user go, and after `compact` no table or
/// index file of the database holds the secret (its write-ahead log: docs/RELIABILITY.md).
@Suite("Service: erasing a user over HTTP on PostgreSQL", .enabled(if: OutageDatabase.serverURL != nil,
                                                                   "PROACTIVE_TEST_DATABASE_URL is not set: no PostgreSQL server (scripts/test.sh starts one)"))
struct ServicePostgresUserErasureTests {
    @Test("the owner's and an app's erasure on PostgreSQL: rows gone from every table, the other app's kept")
    func eraseOnPostgres() async throws {
        try await ServicePostgresTests.withDatabase { url, folder in
            let (service, first) = try ServicePostgresTests.service(url, ownerFile: folder.appendingPathComponent("owner").path)
            let owner = try #require(first.credential)
            let coffee = try service.credentials.add(app: "com.example.coffee")
            let secret = ServiceUserErasureTests.secret
            try await serveLive(service) { _, client in
                let stored = try await client.send(.post, "/v1/donations", credential: owner, body: ServiceErasureTests.lines(),
                                                   contentType: "application/x-ndjson")
                #expect(stored.json?.int("stored") == 14)
                let weather = donationLine(app: "com.example.weather", intent: "CheckWeatherIntent", item: "KEPT", date: "2026-11-16T07:15:00-08:00", user: "u")
                #expect(try await client.send(.post, "/v1/donations", credential: owner, body: weather).status == .created)
                for (path, body) in [("/v1/timelines?user=u", ServiceUserErasureTests.timeline(secret)),
                                     ("/v1/apps/com.example.coffee/shortcuts?user=u", ServiceUserErasureTests.shortcuts(secret))] {
                    let answer = try await client.send(.put, path, credential: owner, body: body)
                    #expect(answer.status == .ok, "\(answer.text)")
                }
                let erased = try await client.send(.delete, "/v1/users?user=u", credential: coffee)
                #expect(erased.status == .ok, "\(erased.text)")
                #expect(erased.json?.int("total") == 16, "\(erased.text)")
                let rest = try await client.send(.get, "/v1/stats?user=u", credential: owner)
                #expect(rest.json?.int("rows") == 1, "\(rest.text)")
                let all = try await client.send(.delete, "/v1/users?user=u", credential: owner)
                #expect(all.json?["erased"]?.int("donation") == 1, "\(all.text)")
            }
            let storage = try PostgresBackend(url: url)
            #expect(try storage.declarations.timelines(user: "u").isEmpty && storage.declarations.shortcutSets(user: "u").isEmpty)
            #expect(try storage.donations.statistics(matching: .everything).rows == 0)
        }
    }
}
