import Foundation
@testable import ProactiveCLI
import ProactivePostgres
import Testing

// MARK: - proactive copy, both ways

@Suite("copy between SQLite and PostgreSQL", PostgresTestServer.available, .serialized)
struct PostgresCopyTests {
    /// What a store holds, as the commands print it: every donation, the definitions, Focus
    /// schedules, retention and the users' zones.
    static func contents(_ store: String) async -> [String] {
        var printed: [String] = []
        for command in [["export"], ["definitions", "list"], ["focus", "schedule", "list"], ["retention", "show"],
                        ["users", "timezone", "show"]] {
            let result = await PostgresCommandTests.run(command, store: store)
            #expect(result.status == 0, "\(command) on \(store): \(result.error)")
            printed.append(result.output)
        }
        return printed
    }

    @Test("a file copied to a database and back exports the same bytes, with its definitions, Focus and settings")
    func roundTrip() async throws {
        let database = try TestDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (file, back) = (directory.appendingPathComponent("a.sqlite").path, directory.appendingPathComponent("b.sqlite").path)
        let sample = PostgresCommandTests.sample
        for step in [
            ["import", sample.appendingPathComponent("donations.jsonl").path, "--user-timezone", "me=America/Los_Angeles", "--progress", "none"],
            ["definitions", "add", sample.appendingPathComponent("definitions.json").path],
            ["focus", "schedule", "add", "work", "--days", "Mon-Fri", "--start", "09:00", "--end", "17:30", "--timezone", "America/Los_Angeles"],
            ["retention", "set", "--app", "com.example.weather", "--days", "400"],
        ] {
            let result = await PostgresCommandTests.run(step, store: file)
            #expect(result.status == 0, "\(step): \(result.error)")
        }
        let there = await PostgresCommandTests.run(["copy", "--from", file, "--to", database.url])
        #expect(there.status == 0, "\(there.error)")
        #expect(there.output.hasPrefix("copied 283 donations, "))
        let again = await PostgresCommandTests.run(["copy", "--from", database.url, "--to", back])
        #expect(again.status == 0, "\(again.error)")

        let original = await Self.contents(file)
        #expect(original[0].split(separator: "\n").count == 283)
        #expect(await Self.contents(database.url) == original)
        #expect(await Self.contents(back) == original)

        // A store that is not new is refused, and keeps what it held.
        let refused = await PostgresCommandTests.run(["copy", "--from", file, "--to", database.url])
        #expect(refused.status != 0)
        #expect(refused.error.contains("is not empty"))
        #expect(await Self.contents(database.url) == original)
    }
}
