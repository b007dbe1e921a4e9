import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// The retention window on import, and where import writes its summary.
    @Suite("retention and import summaries")
    struct RetentionCommandTests {
        /// Donations 40, 35, 1 and 0 days (and a minute) old of com.a, and one of com.h 3 days old,
        /// dated from `now` (the CLI reads the window from the real clock, as the script did).
        static func aged(_ store: CLIStore, now: Date = Date()) throws -> String {
            let seconds = Int(now.timeIntervalSince1970)
            let lines = [40, 35, 1, 0].map { days in
                #"{"app":"com.a","intent":"open","date":\#(seconds - days * 86400 - 60),"parameters":{"age":\#(days)}}"#
            } + [#"{"app":"com.h","intent":"open","date":\#(seconds - 3 * 86400),"parameters":{"age":3}}"#]
            return try StoreCommandTests.file(store, "aged.jsonl", lines.joined(separator: "\n") + "\n")
        }

        @Test("a new store keeps everything")
        func aNewStoreKeepsEverything() async throws {
            let store = try CLIStore()
            let shown = try await store.succeed("retention", "show")
            #expect(shown.lines.contains("default: keep everything"), "\(shown)")
            try await store.succeed("import", try Self.aged(store), "--progress", "none")
            #expect(try await StoreCommandTests.count(store) == 5)
        }

        @Test("with a window, old donations are counted, never stored; an app's window applies first")
        func oldDonationsAreCountedNotStored() async throws {
            let store = try CLIStore()
            let aged = try Self.aged(store)
            try await store.succeed("retention", "set", "--days", "28")
            let run = try await store.succeed("import", aged, "--progress", "none")
            #expect(run.error.contains("aged.jsonl: 5 lines: 3 stored, 0 already stored, 2 older than the retention window (28 days) not stored"),
                    "\(run)")
            #expect(!run.error.contains("erased"), "the import erased something: \(run)")
            #expect(try await StoreCommandTests.count(store) == 3)
            let apply = try await store.succeed("retention", "apply")
            #expect(apply.output.contains("erased 0 donations"), "\(apply)")
            try await store.succeed("retention", "set", "--app", "com.h", "--days", "2")
            // The app window erases com.h's 3-day-old donation before the import, and the import leaves it out.
            let report = try await store.succeed("import", aged, "--progress", "none", "--json").json()
            #expect(report["stored"]?.integer == 0, "\(report)")
            #expect(report["already_stored"]?.integer == 2, "\(report)")
            #expect(report["older_than_retention"]?.integer == 3, "\(report)")
            #expect(Set(report["retention_days"]?.keys ?? []) == ["default", "com.h"], "\(report)")
            #expect(report["retention_days"]?["default"]?.integer == 28, "\(report)")
            #expect(report["retention_days"]?["com.h"]?.integer == 2, "\(report)")
        }

        @Test("import writes its summary to standard error, nothing to standard output")
        func importSummaryOnStandardError() async throws {
            let store = try CLIStore()
            let run = try await store.succeed("import", Sample.donations, "--progress", "none")
            #expect(run.output.isEmpty, "\(run)")
            #expect(run.error.contains("283 lines: 283 stored"), "\(run)")
        }
    }
}
