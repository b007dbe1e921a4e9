import Foundation
@testable import ProactiveCLI
import ProactiveCore
import ProactivePostgres
import Testing

// MARK: - Every command on either store

/// The README's tour, run in process once on a SQLite file and once on a PostgreSQL database
/// (`--store postgres://...`): every command answers the same.
@Suite("commands on PostgreSQL", PostgresTestServer.available, .serialized)
struct PostgresCommandTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("datasets/sample")

    /// Runs `proactive ARGUMENTS --store STORE` in process; returns the status and both outputs.
    static func run(_ arguments: [String], store: String) async -> (status: Int32, output: String, error: String) {
        await run(arguments + ["--store", store])
    }

    /// Runs `proactive ARGUMENTS` in process; returns the status and both outputs.
    static func run(_ arguments: [String]) async -> (status: Int32, output: String, error: String) {
        let capture = OutputCapture()
        let status = await Output.$capture.withValue(capture) { await Proactive.run(arguments: arguments) }
        return (status, capture.standardOutput, capture.standardError)
    }

    /// The tour's commands, each with what it printed (the store's name replaced by STORE).
    static func tour(store: String, display: String) async throws -> [String] {
        let donations = sample.appendingPathComponent("donations.jsonl").path
        let steps: [[String]] = [
            ["import", donations, "--user-timezone", "me=America/Los_Angeles", "--progress", "none"],
            ["definitions", "add", sample.appendingPathComponent("definitions.json").path],
            ["train"],
            ["suggest", "--user", "me", "--at", "2026-11-23T07:15", "-k", "3"],
            ["donate", "--user", "me", "--app", "com.example.weather", "--intent", "CheckWeatherIntent",
             "--param", "location=@cupertino:Cupertino", "--date", "2026-11-23T07:14:00-08:00"],
            ["predict", "--user", "me", "--at", "2026-11-23T07:15", "-k", "3"],
            ["delete", "--user", "me", "--app", "com.example.weather"],
            ["predict", "--user", "me", "--at", "2026-11-23T07:15", "-k", "3"],
            ["models", "list"],
            ["stats"],
            ["export"],
        ]
        var printed: [String] = []
        for step in steps {
            let result = await run(step, store: store)
            let text = normalized((result.output + result.error).replacingOccurrences(of: display, with: "STORE"))
            #expect(result.status == 0, "proactive \(step.joined(separator: " ")) on \(display):\n\(text)")
            printed.append("$ proactive \(step.joined(separator: " "))\n\(text)")
        }
        return printed
    }

    /// What differs between two runs whatever the store: durations, rates, timestamps, the schema's
    /// migration name (each database numbers its own), and the note on erasing old copies, which
    /// names each database's own mechanism.
    static func normalized(_ text: String) -> String {
        let patterns = [
            #"\d+(\.\d+)? s\b"#: "T s", #"\(\d+ lines/s\)"#: "(R lines/s)", #"\d+ users/s"#: "R users/s",
            #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z"#: "TIME", #"schema v\d+_\w+"#: "schema S",
        ]
        var text = text
        for (pattern, replacement) in patterns {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("write-ahead log open") && !$0.contains("PostgreSQL frees a deleted row") }
            .joined(separator: "\n")
    }

    @Test("the README's tour answers the same on a file and on a database")
    func tourAnswersTheSame() async throws {
        let database = try TestDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("proactive-pg-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.sqlite").path

        let onFile = try await Self.tour(store: file, display: file)
        let onDatabase = try await Self.tour(store: database.url, display: PostgresLocation.redacted(database.url))
        #expect(onFile.count == onDatabase.count)
        for (fileStep, databaseStep) in zip(onFile, onDatabase) {
            #expect(fileStep == databaseStep)
        }
    }

    @Test("delete and compact on a database say what PostgreSQL keeps, and succeed")
    func deleteAndCompactOnADatabase() async throws {
        let database = try TestDatabase()
        let donations = Self.sample.appendingPathComponent("donations.jsonl").path
        #expect(await Self.run(["import", donations, "--progress", "none"], store: database.url).status == 0)
        let deleted = await Self.run(["delete", "--app", "com.example.weather"], store: database.url)
        #expect(deleted.status == 0)
        #expect(deleted.error.contains("proactive compact (VACUUM FULL)"))
        let compacted = await Self.run(["compact"], store: database.url)
        #expect(compacted.status == 0, "\(compacted.error)")
        #expect(compacted.output.hasPrefix("database "))
        #expect(compacted.error.contains("write-ahead log"))
    }

    @Test("a database without the schema is refused by a command that only reads, and named")
    func emptyDatabaseIsNamed() async throws {
        let database = try TestDatabase()
        let result = await Self.run(["stats"], store: database.url)
        #expect(result.status != 0)
        #expect(result.error.contains(PostgresLocation.redacted(database.url)))
        #expect(result.error.contains("holds no Proactive store"))
    }
}
