import Foundation
import ProactiveCore
import Testing

// MARK: - import, export, delete and stats on scratch stores

/// The store checks scripts/cli-checks.sh ran on the binary, in process: one test per check, the same assertions.
extension CommandTests {
    @Suite("store commands")
    struct StoreCommandTests {
        /// The store's donation count (`stats --json`).
        static func count(_ store: CLIStore) async throws -> Int? {
            try await store.succeed("stats", "--json").json()["donations"]?.integer
        }

        /// `export -o` into the store's directory (as app `asApp` if given), read back.
        static func export(_ store: CLIStore, _ name: String, asApp: String? = nil) async throws -> String {
            let path = store.directory.appendingPathComponent(name).path
            try await store.succeed(["export", "-o", path] + (asApp.map { ["--as-app", $0] } ?? []))
            return try String(contentsOfFile: path, encoding: .utf8)
        }

        /// Writes `text` beside the store and returns its path.
        static func file(_ store: CLIStore, _ name: String, _ text: String) throws -> String {
            let path = store.directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        @Test("import -> export round trip is byte-stable")
        func roundTrip() async throws {
            let store = try CLIStore()
            try await store.succeed("import", Sample.donations, "--progress", "none")
            #expect(try await Self.export(store, "export.jsonl") == String(contentsOfFile: Sample.donations, encoding: .utf8))
        }

        @Test("export then import into the same store stores nothing new (no identifiers)")
        func reimportWithoutIdentifiers() async throws {
            let store = try CLIStore()
            let anonymous = try Sample.lines().map { $0.replacing(/,"identifier":"[^"]*"/, with: "") }
            #expect(!anonymous.contains { $0.contains("identifier") })
            try await store.succeed("import", try Self.file(store, "anonymous.jsonl", anonymous.joined(separator: "\n") + "\n"), "--progress", "none")
            #expect(try await Self.count(store) == anonymous.count)
            let exported = try await Self.export(store, "anonymous-export.jsonl")
            let again = try await store.succeed("import", store.directory.appendingPathComponent("anonymous-export.jsonl").path, "--progress", "none")
            #expect(again.error.contains(": \(anonymous.count) lines: 0 stored, \(anonymous.count) already stored, 0 rejected"), "\(again)")
            #expect(try await Self.count(store) == anonymous.count)
            #expect(try await Self.export(store, "after.jsonl") == exported)
        }

        static let mixed = try! Sample.lines()[0 ..< 3] + [#"{"app":"a","intent":"open","date":"2026-11-20T07:00:00Z","count":0}"#]
            + Sample.lines()[3 ..< 6] + [#"{"app":"a","intent":"open""#] + Sample.lines()[6 ..< 8]

        @Test("bad lines in the middle: good lines kept, bad ones named, exit 2")
        func badLinesKeepTheGoodOnes() async throws {
            let store = try CLIStore()
            let run = await store.run("import", try Self.file(store, "mixed.jsonl", Self.mixed.joined(separator: "\n") + "\n"), "--progress", "none")
            #expect(run.status == 2, "\(run)")
            #expect(run.error.contains("mixed.jsonl:4: count: must be >= 1, found 0"), "\(run)")
            #expect(run.error.contains("mixed.jsonl:8: invalid JSON"), "\(run)")
            #expect(try await Self.count(store) == 8)
        }

        @Test("--strict stores nothing from a file with a bad line")
        func strictStoresNothing() async throws {
            let store = try CLIStore()
            let run = await store.run("import", "--strict", try Self.file(store, "mixed.jsonl", Self.mixed.joined(separator: "\n") + "\n"),
                                      "--progress", "none")
            #expect(run.status == 1, "\(run)")
            #expect(try await Self.count(store) == 0)
        }

        @Test("delete by group for app A leaves app B's same group untouched")
        func deleteByGroupIsPerApp() async throws {
            let store = try CLIStore()
            let groups = """
                {"app":"com.a","intent":"CheckWeather","date":"2026-11-20T07:00:00Z","group":"san-diego","identifier":"1"}
                {"app":"com.a","intent":"CheckWeather","date":"2026-11-20T08:00:00Z","group":"cupertino","identifier":"2"}
                {"app":"com.b","intent":"CheckWeather","date":"2026-11-20T09:00:00Z","group":"san-diego","identifier":"1"}

                """
            try await store.succeed("import", try Self.file(store, "groups.jsonl", groups), "--progress", "none")
            try await store.succeed("delete", "--app", "com.a", "--group", "san-diego")
            let left = try await Self.export(store, "left.jsonl").split(separator: "\n")
            #expect(left.contains { $0.contains(#""app":"com.b""#) && $0.contains(#""group":"san-diego""#) })
            #expect(!left.contains { $0.contains(#""app":"com.a""#) && $0.contains(#""group":"san-diego""#) })
            #expect(try await Self.count(store) == 2)
            let refused = await store.run("delete", "--group", "san-diego")
            #expect(refused.status != 0, "\(refused)")
        }

        @Test("a corrupt store file is reported, not crashed on")
        func corruptStore() async throws {
            let store = try CLIStore()
            try "not a database at all, just text".write(toFile: store.path, atomically: true, encoding: .utf8)
            let run = await store.run("stats")
            #expect(run.status != 0)
            #expect(run.error.lowercased().contains("error"), "\(run)")
        }

        @Test("bad dates and control characters are refused at their line; the rest is stored (batch size 1)")
        func hostileLines() async throws {
            let store = try CLIStore()
            let hostile = #"""
                {"app":"com.a","intent":"open","date":"2026-11-20T07:00:00Z"}
                {"app":"com.a","intent":"open","date":"2026-11-20T07:00:00+18:30"}
                {"app":"com.a","intent":"open","date":"1970-01-01T05:00:00+09:00"}
                {"app":"com.a","intent":"open","date":"2200-12-31T23:00:00-05:00"}
                {"user":"victim\u0000x","app":"com.a","intent":"open","date":"2026-11-20T08:00:00Z"}
                {"app":"com.a","intent":"open","date":"2026-11-20T08:00:00Z","identifier":"x\u0000y"}
                {"app":"com.caf\u00e9","intent":"open","date":"2026-11-20T08:00:00Z"}
                {"app":"com.a","intent":"open","date":"2026-11-20T09:00:00Z"}

                """#
            let run = await store.run("import", try Self.file(store, "hostile.jsonl", hostile), "--batch-size", "1", "--progress", "none")
            #expect(run.status == 2, "\(run)")
            for line in 2 ... 4 { #expect(run.error.contains("hostile.jsonl:\(line): date: "), "\(run)") }
            #expect(run.error.contains("hostile.jsonl:5: user: must not contain control characters"), "\(run)")
            #expect(run.error.contains("hostile.jsonl:6: identifier: must not contain control characters"), "\(run)")
            #expect(run.error.contains("hostile.jsonl:7: app: a bundle identifier is printable ASCII"), "\(run)")
            #expect(try await Self.count(store) == 2)
        }

        @Test("while paused, feedback is refused and the message that nothing was stored is true")
        func pausedFeedback() async throws {
            let store = try CLIStore()
            try await store.succeed("pause", "on")
            let refused = await store.run("feedback", "add", "never", "--user", "u1", "--app", "com.a")
            #expect(refused.status != 0, "\(refused)")
            #expect(refused.error.contains("nothing was stored"), "\(refused)")
            #expect(try await store.succeed("feedback", "list", "--user", "u1").output.isEmpty)
            try await store.succeed("pause", "off")
            try await store.succeed("feedback", "add", "never", "--user", "u1", "--app", "com.a")
            #expect(try await !store.succeed("feedback", "list", "--user", "u1").output.isEmpty)
        }

        @Test("focus schedule add takes --timezone (and its old spelling --time-zone)")
        func scheduleTimeZoneSpellings() async throws {
            let store = try CLIStore()
            let work = try await store.succeed("focus", "schedule", "add", "work", "--days", "Mon-Fri", "--start", "09:00", "--end", "17:00",
                                               "--timezone", "Europe/Paris")
            #expect(work.output.contains("schedule 1: work"), "\(work)")
            let gym = try await store.succeed("focus", "schedule", "add", "gym", "--days", "daily", "--start", "18:00", "--end", "19:00",
                                              "--time-zone", "Europe/Paris")
            #expect(gym.output.contains("schedule 2: gym"), "\(gym)")
            let help = await proactive(["focus", "schedule", "add", "--help"])
            #expect(!help.output.contains("--time-zone"), "\(help)")
        }
    }
}
