import Foundation
import ProactiveCore
import ProactiveEngine
@testable import ProactivePostgres
import ProactiveRuntime
import ProactiveStore
import Testing

// MARK: - Several instances, one database

/// Two runtimes (what two `serve` instances hold), each on its own connection to one database, and the
/// owner's engine beside them (what the CLI is): a write through any of them is in every other's next
/// answer, and a deletion is unlearned by both.
@Suite("Several instances on one PostgreSQL database", PostgresTestServer.available, .serialized, .timeLimit(.minutes(10)))
struct PostgresInstancesTests {
    static let offset = -8 * 3600
    static let firstMorning = 1_793_546_100.0  // 2026-11-01T07:15-08:00

    /// 14 mornings of a latte at 07:15 and the news at 07:20 for user u.
    static func mornings() -> [Donation] {
        (1...14).flatMap { day -> [Donation] in
            let morning = Date(timeIntervalSince1970: firstMorning + Double(day - 1) * 86_400)
            return [
                Donation(user: "u", app: "com.example.coffee", intent: "OrderCoffeeIntent", parameters: ["item": .string("latte")],
                         date: morning, utcOffset: offset, identifier: "coffee-\(day)"),
                Donation(user: "u", app: "com.example.news", intent: "ReadNewsIntent", date: morning.addingTimeInterval(300),
                         utcOffset: offset, identifier: "news-\(day)"),
            ]
        }
    }

    /// The weather checked at 07:17 on the same mornings.
    static func weather() -> [Donation] {
        (1...14).map { day in
            Donation(user: "u", app: "com.example.weather", intent: "CheckWeatherIntent",
                     date: Date(timeIntervalSince1970: firstMorning + 120 + Double(day - 1) * 86_400), utcOffset: offset,
                     identifier: "weather-\(day)")
        }
    }

    /// The apps of u's top suggestions on the morning after, as `runtime` answers.
    static func apps(_ runtime: Runtime) async throws -> Set<String> {
        let session = try await runtime.session(user: "u")
        let next = Date(timeIntervalSince1970: firstMorning + 14 * 86_400)
        return Set(try session.suggest(at: next, utcOffset: offset, k: 8, developerMode: true).suggestions.map(\.app))
    }

    @Test("donations through A are answered by B; another's deletion is unlearned by both; a stale save is refused")
    func oneTruth() async throws {
        let database = try TestDatabase()
        let owner = Engine(storage: try PostgresBackend(url: database.url))
        try owner.storage.privacy.setRetention(.keepAll)
        let a = Runtime(engine: Engine(storage: try PostgresBackend(url: database.url, mode: .mustExist)))
        let b = Runtime(engine: Engine(storage: try PostgresBackend(url: database.url, mode: .mustExist)))

        _ = try await a.donate(Self.mornings())
        #expect(try await Self.apps(b) == ["com.example.coffee", "com.example.news"])  // B read it from the database
        #expect(try await Self.apps(a) == ["com.example.coffee", "com.example.news"])  // both hold u's model now

        _ = try await b.donate(Self.weather())
        #expect(try await Self.apps(a) == ["com.example.coffee", "com.example.news", "com.example.weather"])

        // The owner's command beside both instances.
        #expect(try owner.delete(.matching(DonationFilter(app: "com.example.coffee"))) == 14)
        #expect(try await Self.apps(a) == ["com.example.news", "com.example.weather"])
        #expect(try await Self.apps(b) == ["com.example.news", "com.example.weather"])

        // Both save what they hold; neither can write back a state that still learned the deleted donations.
        await a.models.saveAll()
        await b.models.saveAll()
        let saved = try #require(try owner.storage.states.load(user: "u", name: "blend"))
        #expect(saved.key.donationCount == 28)
        let statuses = try owner.storage.modelStatuses(user: "u")
        #expect(!statuses.isEmpty)
        for status in statuses {
            #expect(status.isConsistent, "\(status)")
            #expect(status.pendingDeleted == 0 && status.pendingNew == 0, "\(status)")
        }
    }
}
