import Foundation
import Hummingbird
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime
import ProactiveService
import ProactiveStore
import Testing

@Suite("Service: group commit of donation batches")
struct ServiceGroupCommitTests {
    /// The identifiers of batch `index`: its own 40 (`s<index>-0` to `-39`), then the first 20 of the next batch's,
    /// which that batch sends too.
    static func identifiers(_ index: Int) -> [String] {
        (0..<40).map { "s\(index)-\($0)" } + (0..<20).map { "s\(index + 1)-\($0)" }
    }

    @Test("concurrent batches: every donation acknowledged as stored is stored exactly once, every other one is a duplicate")
    func concurrentBatches() async throws {
        let fixture = try ServiceFixture()
        let count = 24
        let answers = try await fixture.test { client async throws -> [JSONValue] in
            try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let answer = try await client.send(.post, "/v1/donations", credential: fixture.coffee,
                                                           body: Self.identifiers(index).map { donationLine(item: $0, identifier: $0) }.joined(separator: "\n"), contentType: "application/x-ndjson")
                        #expect(answer.status == .ok)
                        return try #require(answer.json)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(answers.count == count)
        let acknowledged = answers.reduce(0) { $0 + ($1.int("stored") ?? 0) }
        let duplicates = answers.reduce(0) { $0 + ($1.int("duplicates") ?? 0) }
        #expect(answers.allSatisfy { $0.int("rejected") == 0 })
        let distinct = Set((0..<count).flatMap(Self.identifiers))
        #expect(distinct.count == count * 40 + 20)
        #expect(acknowledged == distinct.count)
        #expect(acknowledged + duplicates == count * 60)
        var stored: [String] = []
        try SQLiteDonationStore(database: fixture.database).forEachDonation { donation in stored.append(donation.identifier ?? "") }
        #expect(stored.count == acknowledged)
        #expect(Set(stored) == distinct)
        let committed = fixture.service.committer.committed
        #expect(committed.batches == count)
        #expect(committed.transactions >= 1 && committed.transactions <= count)
    }

    @Test("a paused store refuses a batch with 409 through the group commit and stores nothing")
    func pausedBatch() async throws {
        let fixture = try ServiceFixture()
        try await fixture.test { client async throws in
            let first = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: donationLine(identifier: "p1"),
                                              contentType: "application/x-ndjson")
            #expect(first.json?.int("stored") == 1)
            try SQLitePrivacyStore(database: fixture.database).setRecordingPaused(true, at: Date())
            let paused = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: donationLine(identifier: "p2"),
                                               contentType: "application/x-ndjson")
            #expect(paused.status == .conflict)
            #expect(paused.json?.string("error", "code") == "recording_paused")
            #expect(paused.json?.string("error", "message")?.contains("proactive") == false)
        }
        #expect(try fixture.storedCount() == 1)
    }
}

@Suite("Donation committer")
struct DonationCommitterTests {
    @Test("batches committed one after another: each answered once its own transaction committed")
    func checkpointsAfterAnswering() async throws {
        let fixture = try ServiceFixture()
        let committer = DonationCommitter(engine: Engine(database: fixture.database))
        let lines = (0..<30).map { donationLine(item: "i\($0)", identifier: "c\($0)") }
        for (index, chunk) in [lines[0..<10], lines[10..<20], lines[20..<30]].enumerated() {
            let batch = PreparedDonations(chunk.map { try! DonationLineCodec.decode($0) })
            let answers = try await committer.commit(batch)
            #expect(answers.map { try? $0.get() } == Array(repeating: true, count: 10))
            #expect(committer.committed.transactions == index + 1)
            #expect(try fixture.storedCount() == 10 * (index + 1))
        }
        #expect(committer.committed.transactions == 3)
        #expect(committer.committed.batches == 3)
        #expect(try fixture.storedCount() == 30)
        // Three transactions took some time, and the thread was not on a CPU longer than it ran
        // (a millisecond of slack for the two clocks' resolutions).
        let writing = committer.writing
        #expect(writing.seconds > 0)
        #expect(writing.cpuSeconds > 0 && writing.cpuSeconds <= writing.seconds + 0.001)
        #expect(try await committer.commit(PreparedDonations([])).isEmpty)
    }
}

@Suite("Service: suggestions answered again")
struct ServiceSuggestionAnswerTests {
    @Test("the same question about the same model and inputs gets the same bytes without ranking again; another question, or donations for the user, rank again")
    func keptAnswers() async throws {
        // Inputs held for an hour: only the service's own writes change them during the test.
        let fixture = try ServiceFixture { $0.inputsLifetime = .seconds(3600) }
        let question = #"{"user": "me", "at": "2026-11-20T08:30:00-08:00", "k": 3}"#
        try await fixture.test { client async throws in
            let loaded = try await client.send(.post, "/v1/donations", credential: fixture.owner, body: try ServiceFixture.sampleLines(),
                                               contentType: "application/x-ndjson")
            #expect(loaded.json?.int("stored") == 283)
            // The first question reads the model (a version of its own), the second asks the held one.
            let reading = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: question)
            let first = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: question)
            #expect(first.status == .ok)
            #expect(first.text == reading.text)
            #expect(!(first.json?["suggestions"]?.items.isEmpty ?? true))
            #expect(fixture.service.answers.hits == 0)
            let again = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: question)
            #expect(again.status == .ok)
            #expect(again.text == first.text)
            #expect(fixture.service.answers.hits == 1)

            // Another k, another moment, another context: ranked again.
            for other in [#"{"user": "me", "at": "2026-11-20T08:30:00-08:00", "k": 2}"#,
                          #"{"user": "me", "at": "2026-11-20T08:30:00.001-08:00", "k": 3}"#,
                          #"{"user": "me", "at": "2026-11-20T08:30:00-08:00", "k": 3, "context": {"focus": "work"}}"#] {
                let answer = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: other)
                #expect(answer.status == .ok, "\(other)")
            }
            #expect(fixture.service.answers.hits == 1)

            // The user's donations changed: the kept answer is gone.
            _ = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: question)
            #expect(fixture.service.answers.hits == 1)
            let donated = try await client.send(.post, "/v1/donations", credential: fixture.owner,
                                                body: donationLine(date: "2026-11-20T08:00:00-08:00", identifier: "new"),
                                                contentType: "application/x-ndjson")
            #expect(donated.json?.int("stored") == 1)
            _ = try await client.send(.post, "/v1/suggestions", credential: fixture.owner, body: question)
            #expect(fixture.service.answers.hits == 1)
        }
    }
}

@Suite("Service: ranking inputs held while the store does not change")
struct ServiceRankingInputsTests {
    @Test("inputs past their lifetime are kept (same stamp) until a commit by any connection; without a change probe they are read again")
    func heldUntilACommit() throws {
        let fixture = try ServiceFixture()
        let engine = Engine(database: fixture.database)
        let changes = try #require(Engine(database: fixture.database).changeWatch())
        let probed = RankingInputsCache(lifetime: .zero, changes: changes)  // always past its lifetime
        let first = try probed.stampedInputs(user: "me", engine: engine).stamp
        #expect(try probed.stampedInputs(user: "me", engine: engine).stamp == first)
        #expect(try probed.stampedInputs(user: "me", engine: engine).stamp == first)
        let before = changes.version()
        try SQLitePrivacyStore(database: fixture.database).setRetention(.days(30))  // a commit on the service's own connection
        #expect(changes.version() != before)
        let second = try probed.stampedInputs(user: "me", engine: engine).stamp
        #expect(second != first)
        #expect(try probed.stampedInputs(user: "me", engine: engine).stamp == second)
        // Another process's connection.
        let other = try ProactiveDatabase(path: fixture.path)
        try SQLitePrivacyStore(database: other).setRetention(.keepAll)
        #expect(try probed.stampedInputs(user: "me", engine: engine).stamp != second)

        let unprobed = RankingInputsCache(lifetime: .zero)
        let once = try unprobed.stampedInputs(user: "me", engine: engine).stamp
        #expect(try unprobed.stampedInputs(user: "me", engine: engine).stamp != once)
    }
}
