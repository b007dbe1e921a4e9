import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// Errors a newcomer meets first: an unknown command, names the store does not hold, and what an
    /// import warning says was stored.
    @Suite("a newcomer's third tour")
    struct ThirdTourCommandTests {
        /// A misspelled or unknown command is named as such, with the nearest one, and exits 64;
        /// `--help` after it does not print the root's help with exit 0.
        @Test func anUnknownCommandIsNamedWithTheNearestOne() async throws {
            for arguments in [["sugest", "--help"], ["sugest", "--user", "dana"], ["sugest"], ["help", "sugest"]] {
                let run = await proactive(arguments)
                #expect(run.status == 64, "\(run)")
                #expect(run.error.contains("unknown command 'sugest' (did you mean 'suggest'?)"), "\(run)")
                #expect(run.error.contains("See 'proactive --help'."), "\(run)")
                #expect(run.output.isEmpty, "\(run)")
            }
            let far = await proactive(["glorp", "--help"])
            #expect(far.status == 64, "\(far)")
            #expect(far.error.contains("unknown command 'glorp'; the commands are import, export, donate"), "\(far)")
            let nested = await proactive(["focus", "sett", "work"])
            #expect(nested.status == 64, "\(nested)")
            #expect(nested.error.contains("unknown command 'focus sett' (did you mean 'focus set'?)"), "\(nested)")
            #expect(nested.error.contains("See 'proactive focus --help'."), "\(nested)")
            // Known commands, help and options pass untouched.
            #expect(await proactive(["suggest", "--help"]).status == 0)
            #expect(await proactive(["help", "suggest"]).status == 0)
            #expect(await proactive(["--version"]).status == 0)
            #expect(await proactive(["focus", "set", "--help"]).status == 0)
        }

        /// delete, forget and train of a user or app the store does not hold say so, list what it
        /// holds and exit 1, as predict does; nothing is deleted.
        @Test func unknownUsersAndAppsAreNamedWithWhatTheStoreHolds() async throws {
            let store = try await CLIStore.sample(trained: false)
            let before = try await store.succeed("stats", "--json").json()["rows"]?.integer
            let app = await store.run("delete", "--app", "com.acme.nothing")
            #expect(app.status == 1, "\(app)")
            #expect(app.error.contains("app com.acme.nothing has no donations; the store's apps: com.example."), "\(app)")
            #expect(app.error.contains("nothing was deleted"), "\(app)")
            let user = await store.run("delete", "--user", "ghost")
            #expect(user.status == 1, "\(user)")
            #expect(user.error.contains("user ghost has no donations; the store's users: me"), "\(user)")
            let forget = await store.run("forget", "--user", "ghost")
            #expect(forget.status == 1, "\(forget)")
            #expect(forget.error.contains("the store holds nothing for user ghost; the store's users: me"), "\(forget)")
            let train = await store.run("train", "--user", "dan")
            #expect(train.status == 1, "\(train)")
            #expect(train.error.contains("user dan has no donations; the store's users: me"), "\(train)")
            #expect(!train.output.contains("trained 0 of 1"), "\(train)")
            // Deletes by identifier stay idempotent, as an app's are, even for an app the store no longer holds.
            let identified = try await store.succeed("delete", "--app", "com.acme.nothing", "--identifier", "x-1")
            #expect(identified.output == "deleted 0 donations\n", "\(identified)")
            // A known user whose span matches nothing is not an error: nothing matched, 0 deleted.
            let none = try await store.succeed("delete", "--user", "me", "--before", "2000-01-01")
            #expect(none.output == "deleted 0 donations\n", "\(none)")
            let stats = try await store.succeed("stats", "--json")
            let after = try stats.json()["rows"]?.integer
            #expect(before != nil && after == before, "\(stats)")
        }

        /// One shape for one answer: `why` is an array of phrases in `predict --json`, `suggest --json` and
        /// `stack --json` (each span and event) alike.
        @Test func whyIsAnArrayOfPhrasesInEveryAnswer() async throws {
            let store = try await CLIStore.sample()
            func phrases(_ value: JSONValue?) -> Bool {
                guard let items = value?.array, !items.isEmpty else { return false }
                return items.allSatisfy { $0.string?.isEmpty == false }
            }
            let at = "2026-11-20T07:00:00-08:00"
            let predicted = try await store.succeed("predict", "--user", "me", "--at", at, "-k", "3", "--json").json()
            #expect(predicted["suggestions"]?.array?.allSatisfy { phrases($0["why"]) } == true, "\(predicted)")
            let suggested = try await store.succeed("suggest", "--user", "me", "--at", at, "-k", "3", "--json").json()
            #expect(suggested.array?.allSatisfy { phrases($0["why"]) } == true, "\(suggested)")
            let day = try await store.succeed("stack", "--user", "me", "--widgets", "weather,reminders", "--day", "2026-11-20", "--json").json()
            #expect(day["spans"]?.array?.isEmpty == false && day["spans"]?.array?.allSatisfy { phrases($0["why"]) } == true, "\(day)")
            #expect(day["events"]?.array?.allSatisfy { phrases($0["why"]) } == true, "\(day)")
        }

        /// A misspelled field: the warning says what the summary counts, that the lines were stored
        /// without the field.
        @Test func aMisspelledFieldWarningSaysWhatWasStored() async throws {
            let store = try CLIStore()
            let file = store.directory.appendingPathComponent("typo.jsonl").path
            let line = NewcomerInputCommandTests.misspelled
            try (line + "\n" + line.replacingOccurrences(of: "07:30", with: "08:30") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let run = await store.run("import", file, "--progress", "none")
            #expect(run.status == 0, "\(run)")
            #expect(run.error.contains(#"2 lines have the field "paramters", which the format does not define (did you mean "parameters"?); they were stored without it"#),
                    "\(run)")
            #expect(!run.error.contains("not stored"), "\(run)")
            #expect(run.error.contains("2 lines: 2 stored"), "\(run)")
        }
    }
}
