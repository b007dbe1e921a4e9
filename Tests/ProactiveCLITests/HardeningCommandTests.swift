import Foundation
import GRDB
import ProactiveCore
import Testing

extension CommandTests {
    /// Issue 16: identifiers an app cannot forge, stored rows from older versions,
    /// export targets, deletion that leaves nothing behind, and what an app may read.
    @Suite("issue 16: hardening")
    struct HardeningCommandTests {
        static func file(_ store: CLIStore, _ name: String, _ text: String) throws -> String {
            try StoreCommandTests.file(store, name, text)
        }

        /// Runs `sql` on the store as an older version would have written it.
        static func forge(_ store: CLIStore, _ sql: String) throws {
            try DatabaseQueue(path: store.path).write { try $0.execute(sql: sql) }
        }

        @Test("--as-app takes only plain bundle identifiers (no NFC/NFD twins, no '/')")
        func plainBundleIdentifiers() async throws {
            let store = try CLIStore()
            let twins = await store.run("delete", "--as-app", "com.caf\u{e9}", "--app", "com.cafe\u{301}")
            #expect(twins.status != 0, "a non-ASCII --as-app was accepted: \(twins)")
            // A widget kind is an identifier of its app: no '/' (it would read as another app's widget).
            let slash = await store.run("timeline", "set", try Self.file(store, "news.json",
                #"{"app":"com.b","widgetKind":"news/top","entries":[{"date":"2026-11-20T08:00:00Z","score":5}]}"#))
            #expect(slash.status != 0, "a widget kind with '/' was accepted: \(slash)")
            try await store.succeed("timeline", "set", try Self.file(store, "top.json",
                #"{"app":"com.b","widgetKind":"top","entries":[{"date":"2026-11-20T08:00:00Z","score":5}]}"#))
            let forged = try Self.file(store, "forged.json",
                #"{"app":"com.b/news","widgetKind":"top","entries":[{"date":"2026-11-20T08:00:00Z","score":1}]}"#)
            let asApp = await store.run("timeline", "set", "--as-app", "com.b/news", forged)
            #expect(asApp.status != 0, "--as-app com.b/news was accepted: \(asApp)")
            let app = await store.run("timeline", "set", forged)
            #expect(app.status != 0, "a timeline of app com.b/news was accepted: \(app)")
            let list = try await store.succeed("timeline", "list")
            #expect(list.output.contains("com.b/top (best score 5)"), "com.b's top timeline was overwritten: \(list)")
        }

        @Test("an unbounded stored timeline or bad stored feedback is skipped with a warning, not a crash of every stack")
        func badStoredRowsAreSkipped() async throws {
            let store = try CLIStore()
            try await store.succeed("import", try Self.file(store, "before.jsonl", #"{"app":"com.b","intent":"open","date":"2026-11-19T07:00:00Z"}"# + "\n"),
                                    "--progress", "none")
            for app in ["com.a", "com.b"] {
                try await store.succeed("timeline", "set", try Self.file(store, "t.json",
                    #"{"app":"\#(app)","widgetKind":"w","entries":[{"date":"2026-11-20T08:00:00Z","score":5,"duration":3600}]}"#))
            }
            let huge = await store.run("timeline", "set", try Self.file(store, "huge.json",
                #"{"app":"com.a","widgetKind":"w","entries":[{"date":"2026-11-20T08:00:00Z","score":5,"duration":1e19}]}"#))
            #expect(huge.status != 0 && huge.error.contains("entries[0].duration"), "a duration of 1e19 s was accepted: \(huge)")
            // A row written before the rule existed (by an older version).
            try Self.forge(store, #"UPDATE widget_timeline SET timeline = replace(timeline, '"duration":3600', '"duration":1e19') WHERE app = 'com.a'"#)
            let stack = await store.run("stack", "--widgets", "com.b/w", "--day", "2026-11-20", "--timezone", "UTC")
            #expect(stack.status == 0, "stack with one bad stored timeline: \(stack)")
            #expect(stack.error.contains("stored timeline of com.a/w skipped"), "the skipped timeline is not reported: \(stack)")
            // Feedback stored before the stricter rules (an app name with '/') is skipped the same way.
            try Self.forge(store, """
                INSERT INTO feedback (user, date_ms, kind, scope, app, event) VALUES ('default', 1795737600000, 'never', 'app:com.a/b', 'com.a/b', \
                '{"date":"2026-11-20T08:00:00Z","kind":"never","app":"com.a/b"}')
                """)
            let again = await store.run("stack", "--widgets", "com.b/w", "--day", "2026-11-20", "--timezone", "UTC")
            #expect(again.status == 0 && again.error.contains("stored feedback never app:com.a/b skipped"), "a bad stored feedback event: \(again)")
        }

        /// Reads the FIFO at `path` to its end on a thread of its own (the writer blocks until a reader opens it).
        static func readFIFO(_ path: String) async -> Data? {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: FileHandle(forReadingAtPath: path)?.readDataToEndOfFile()) }.start()
            }
        }

        @Test("export -o refuses the store itself and keeps a FIFO a FIFO")
        func exportTargets() async throws {
            let store = try CLIStore()
            try await store.succeed("import", Sample.donations, "--progress", "none")
            let before = try await StoreCommandTests.count(store)
            for target in [store.path, store.path + "-wal"] {
                let run = await store.run("export", "-o", target)
                #expect(run.status != 0, "export -o \(target) was accepted: \(run)")
                #expect(run.error.contains("refusing to export to"), "no reason given: \(run)")
            }
            #expect(try await StoreCommandTests.count(store) == before, "the store changed after export -o onto it")
            let fifo = store.directory.appendingPathComponent("fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            async let received = Self.readFIFO(fifo)
            try await store.succeed("export", "-o", fifo)
            #expect(await received == FileManager.default.contents(atPath: Sample.donations), "the FIFO did not carry the export")
            var status = stat()
            #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        }

        @Test("delete --app takes the feedback naming its donations with it (no value left in the file)")
        func deleteAppTakesItsFeedback() async throws {
            let store = try CLIStore()
            try await store.succeed("donate", "--user", "u1", "--app", "com.health", "--intent", "LogIntent", "--param", "note=SECRET_X",
                                    "--date", "2026-11-20T08:00:00Z")
            try await store.succeed("donate", "--user", "u1", "--app", "com.other", "--intent", "LogIntent", "--param", "note=KEEP_Y",
                                    "--date", "2026-11-20T08:00:00Z")
            try await store.succeed("feedback", "add", "tap", "--user", "u1", "--target", "com.health:LogIntent(note=SECRET_X)",
                                    "--at", "2026-11-20T09:00:00Z")
            try await store.succeed("feedback", "add", "dismiss", "--user", "u1", "--target", "com.other:LogIntent(note=KEEP_Y)",
                                    "--at", "2026-11-20T09:00:00Z")
            try await store.succeed("compact")
            let secret = Data("SECRET_X".utf8)
            func holdsSecret(_ files: [String]) -> Bool {
                files.contains { FileManager.default.contents(atPath: $0)?.range(of: secret) != nil }
            }
            #expect(holdsSecret([store.path]), "SECRET_X is not in the store before deleting (the check could not fail)")
            try await store.succeed("delete", "--app", "com.health")
            try await store.succeed("compact")
            #expect(!holdsSecret([store.path, store.path + "-wal"]), "SECRET_X is still in the store after delete --app and compact")
            let list = try await store.succeed("feedback", "list", "--user", "u1")
            #expect(list.output.contains("KEEP_Y"), "another app's feedback was deleted: \(list)")
        }

        @Test("an app reads back neither from donate nor from export the owner's Focus")
        func anAppDoesNotReadTheFocus() async throws {
            let store = try CLIStore()
            try await store.succeed("focus", "set", "sleep", "--at", "2026-11-20T00:00:00Z")
            let donated = try await store.succeed("donate", "--as-app", "com.a", "--app", "com.a", "--intent", "open", "--date", "2026-11-20T03:00:00Z")
            #expect(!donated.output.contains("sleep"), "donate --as-app echoed the owner's Focus: \(donated)")
            // Export writes standard output past the harness's capture, so to files here (the same export).
            let asApp = try await StoreCommandTests.export(store, "app.jsonl", asApp: "com.a")
            #expect(!asApp.contains("sleep"), "export --as-app shows the owner's Focus: \(asApp)")
            let owner = try await StoreCommandTests.export(store, "owner.jsonl")
            #expect(owner.contains(#""focus":"sleep""#), "the Focus was not recorded with the donation (the check could not fail): \(owner)")
        }
    }
}
