import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// Dates on the command line read on the user's clock (issue 29, items 1, 7 and 8).
    @Suite("dates on the user's clock")
    struct UserClockCommandTests {
        /// `delete --user alice --before 2026-10-20` is midnight in Alice's zone: her evening of Oct 19
        /// (after midnight UTC) goes, her Oct 20 morning stays; the reading is printed.
        @Test func deleteBeforeADayIsTheUsersMidnight() async throws {
            let store = try CLIStore()
            try await store.succeed("donate", "--user", "alice", "--app", "com.example.a", "--intent", "open",
                                    "--date", "2026-10-19T21:00:00-07:00")   // Oct 20 04:00 UTC
            try await store.succeed("donate", "--user", "alice", "--app", "com.example.a", "--intent", "open",
                                    "--date", "2026-10-20T06:00:00-07:00")
            try await store.succeed("users", "timezone", "set", "alice", "America/Los_Angeles")
            let deleted = try await store.succeed("delete", "--user", "alice", "--before", "2026-10-20")
            #expect(deleted.output == "deleted 1 donation\n", "\(deleted)")
            #expect(deleted.error.contains("--before 2026-10-20 read as 2026-10-20T00:00:00-07:00 (clock: America/Los_Angeles)"), "\(deleted)")
            // Without --user a day is UTC's, and the note says so.
            let all = try await store.succeed("stats", "--before", "2026-10-21", "--json")
            #expect(all.error.contains("read as 2026-10-21T00:00:00Z (clock: UTC (no user given))"), "\(all)")
        }

        /// A bare day is not a moment: predict refuses it and shows what to write; an input in error is quoted unchanged.
        @Test func predictAtADayIsRefusedWithAnExample() async throws {
            let store = try await CLIStore.sample(trained: false)
            let day = await store.run("predict", "--user", "me", "--at", "2026-11-16")
            #expect(day.status != 0)
            #expect(day.error.contains("2026-11-16 is a day, not a moment: give a time on the user's clock, such as 2026-11-16T07:38"), "\(day)")
            let slashes = await store.run("predict", "--user", "me", "--at", "16/11/2026T07:38")
            #expect(slashes.status != 0)
            #expect(slashes.error.contains("\"16/11/2026T07:38\" is not an ISO 8601 date"), "\(slashes)")
            #expect(!slashes.error.contains("07:38:00Z"), "\(slashes)")
            // A space for the T is the same local time.
            let spaced = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23 06:55", "--json").json()
            let tee = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T06:55", "--json").json()
            #expect(spaced["at"]?.string == "2026-11-23T06:55:00-08:00")
            #expect(probabilities(spaced["suggestions"]?.array ?? []) == probabilities(tee["suggestions"]?.array ?? []))
        }

        /// Without a zone, the same instant in any offset gives the same answer.
        @Test func oneInstantOneAnswer() async throws {
            let store = try CLIStore()
            try await store.succeed("import", Sample.donations, "--progress", "none")   // no zone configured
            var answers: [JSONValue] = []
            for at in ["2026-11-20T07:30:00-08:00", "2026-11-20T15:30:00Z", "2026-11-21T00:30:00+09:00", "2026-11-20T07:30"] {
                answers.append(try await store.succeed("predict", "--user", "me", "--at", at, "--json").json())
            }
            for answer in answers.dropFirst() {
                #expect(answer["at"]?.string == "2026-11-20T07:30:00-08:00")
                #expect(probabilities(answer["suggestions"]?.array ?? []) == probabilities(answers[0]["suggestions"]?.array ?? []))
            }
        }
    }
}
