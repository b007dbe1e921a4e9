import Foundation
import Hummingbird
import Testing
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime
import ProactiveService
import ProactiveStore

/// What another process erases (the owner's CLI beside a running service), the service unlearns before
/// its next answer, and no later save writes it back: the store file and its log never hold it again.
@Suite("Service: erasures made by another process")
struct ServiceErasureTests {
    static let secret = "SECRET-XYZ-123"

    /// 14 mornings of coffee for user u, the first 7 ordering the secret item.
    static func lines() -> String {
        (1...14).map { day in
            donationLine(item: day <= 7 ? secret : "latte", date: String(format: "2026-11-%02dT07:15:00-08:00", day),
                         identifier: "order-\(day)", user: "u")
        }.joined(separator: "\n")
    }

    static let question = #"{"user": "u", "at": "2026-11-15T07:15:00-08:00", "k": 8, "developer": true}"#

    /// How many times the store file and its write-ahead log hold `text`.
    static func occurrences(of text: String, in fixture: ServiceFixture) throws -> Int {
        let needle = Data(text.utf8)
        return try [fixture.path, fixture.path + "-wal"].reduce(0) { count, file in
            guard FileManager.default.fileExists(atPath: file) else { return count }
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            var found = 0
            var start = data.startIndex
            while let range = data.range(of: needle, in: start..<data.endIndex) {
                found += 1
                start = range.upperBound
            }
            return count + found
        }
    }

    /// The store as another process opens it: connections of its own.
    static func otherProcess(_ fixture: ServiceFixture) throws -> ProactiveDatabase {
        try ProactiveDatabase(path: fixture.path, mode: .mustExist)
    }

    enum Erasure: String, CaseIterable, Sendable {
        case forget, deleteByUser, deleteByIdentifier

        /// Erases the secret orders as the CLI command would (`forget`, `delete --user`, `delete --identifier`).
        func run(_ database: ProactiveDatabase) throws {
            switch self {
            case .forget:
                _ = try SQLitePrivacyStore(database: database).forget(user: "u")
            case .deleteByUser:
                try Engine(database: database).delete(.matching(DonationFilter(user: "u")))
            case .deleteByIdentifier:
                try Engine(database: database).delete(.identifiers((1...7).map { "order-\($0)" }, app: "com.example.coffee"))
            }
        }
    }

    @Test("a forget or delete by another process is unlearned before the next answer and never saved back",
          arguments: Erasure.allCases)
    func erasedElsewhere(_ erasure: Erasure) async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let stored = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: Self.lines(),
                                               contentType: "application/x-ndjson")
            #expect(stored.json?.int("stored") == 14)
            let before = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: Self.question)
            #expect(before.text.contains(Self.secret))  // the model is held, and it learned the secret

            try erasure.run(try Self.otherProcess(fixture))

            let after = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: Self.question)
            #expect(!after.text.contains(Self.secret), "\(erasure): \(after.text)")
            let predicted = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: #"{"user": "u", "k": 8}"#)
            #expect(!predicted.text.contains(Self.secret), "\(erasure): \(predicted.text)")

            // One new donation, then the periodic save and the shutdown save: nothing erased comes back.
            let new = try await client.send(.post, "/v1/donations", credential: fixture.owner,
                                            body: donationLine(item: "espresso", date: "2026-11-16T07:15:00-08:00", user: "u"))
            #expect(new.status == .created)
            _ = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: Self.question)
        }
        await fixture.service.models.flush()
        _ = await fixture.service.models.saveForShutdown(budget: .seconds(5))
        _ = try SQLitePrivacyStore(database: fixture.database).eraseTraces()
        #expect(try Self.occurrences(of: Self.secret, in: fixture) == 0, "\(erasure)")
        let answer = try Engine(database: try Self.otherProcess(fixture)).predict(user: "u", at: Date(timeIntervalSince1970: 1_795_190_100), utcOffset: -8 * 3600, k: 8)
        #expect(!answer.suggestions.contains { $0.summary.contains(Self.secret) || $0.target.rawValue.contains(Self.secret) })
    }

    @Test("the periodic retention sweep erases bytes as delete does: no copy in the file, its log or a saved state")
    func retentionErasesBytes() async throws {
        let fixture = try ServiceFixture { $0.retentionInterval = .zero }
        let marker = "MARKER-OCT-777"
        let now = Date()
        @Sendable func line(_ item: String, daysAgo: Double) -> String {
            let seconds = (now.timeIntervalSince1970 - daysAgo * 86_400).rounded()
            return #"{"user":"u","app":"com.example.coffee","intent":"OrderCoffeeIntent","parameters":{"item":"\#(item)"},"date":\#(seconds)}"#
        }
        try await fixture.test { client async throws in
            let old = (0..<20).map { line(marker, daysAgo: 40 + Double($0)) }
            let recent = (1...3).map { line("latte", daysAgo: Double($0)) }
            let stored = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: (old + recent).joined(separator: "\n"),
                                               contentType: "application/x-ndjson")
            #expect(stored.json?.int("stored") == 23)
            let before = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: #"{"user": "u", "k": 8, "developer": true}"#)
            #expect(before.text.contains(marker))
            try SQLitePrivacyStore(database: fixture.database).setRetention(.days(7))
            let posted = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: line("latte", daysAgo: 0.5))
            #expect(posted.status == .created)
            let after = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: #"{"user": "u", "k": 8, "developer": true}"#)
            #expect(!after.text.contains(marker))
        }
        #expect(try fixture.storedCount() == 4)
        // Without a shutdown save (as after SIGKILL): the retention sweep alone left nothing behind.
        #expect(try Self.occurrences(of: marker, in: fixture) == 0)
    }
}

/// What another process stores (the owner's `import` beside a running service), the service learns before
/// its next answer for that user, without a donation through the service.
@Suite("Service: donations made by another process")
struct ServiceExternalDonationTests {
    @Test("another process's donations for a held user are in the next suggestions and predictions")
    func donatedElsewhere() async throws {
        let fixture = try ServiceFixture()
        let item = "ELSEWHERE-ITEM"
        try await fixture.test { client async throws in
            let stored = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: ServiceErasureTests.lines(),
                                               contentType: "application/x-ndjson")
            #expect(stored.json?.int("stored") == 14)
            let before = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: ServiceErasureTests.question)
            #expect(before.status == .ok && !before.text.contains(item))  // held, and its answer kept

            let other = Engine(database: try ServiceErasureTests.otherProcess(fixture))
            let mornings = (1...14).map { day in
                Donation(user: "u", app: "com.example.tea", intent: "OrderTeaIntent", parameters: ["item": .string(item)],
                         date: Date(timeIntervalSince1970: 1_793_546_160 + Double(day - 1) * 86_400), utcOffset: -8 * 3600)
            }
            #expect(try other.donate(batch: mornings).count == 14)

            let after = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: ServiceErasureTests.question)
            #expect(after.text.contains(item), "\(after.text)")
            let predicted = try await client.send(.post, "/v1/predict", credential: fixture.owner, body: #"{"user": "u", "k": 8}"#)
            #expect(predicted.text.contains("com.example.tea"), "\(predicted.text)")
        }
    }
}
