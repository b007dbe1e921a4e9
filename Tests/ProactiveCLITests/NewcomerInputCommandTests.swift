import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// Input a newcomer gets wrong: said clearly, nothing lost silently (issue 29, items 2, 4 and 7).
    @Suite("a newcomer's input")
    struct NewcomerInputCommandTests {
        static let misspelled = #"{"user":"me","app":"com.example.coffee","intent":"OrderCoffeeIntent","paramters":{"item":"latte"},"date":"2026-11-20T07:30:00-08:00"}"#

        /// A misspelled field: stored without it, with one warning counting the lines and naming the
        /// field it is nearest to; --strict refuses the line and stores nothing from the file.
        @Test func aMisspelledFieldIsWarnedAboutAndRefusedUnderStrict() async throws {
            let store = try CLIStore()
            let file = store.directory.appendingPathComponent("typo.jsonl").path
            let second = Self.misspelled.replacingOccurrences(of: "07:30", with: "08:30")
            try (Self.misspelled + "\n" + second + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let strict = await store.run("import", "--strict", file, "--progress", "none")
            #expect(strict.status == 1, "\(strict)")
            #expect(strict.error.contains(#"\#(file):1: paramters: unknown field (did you mean "parameters"?)"#), "\(strict)")
            let lenient = await store.run("import", file, "--progress", "none", "--json")
            #expect(lenient.status == 0, "\(lenient)")
            #expect(lenient.error.contains(#"warning: \#(file):1: 2 lines have the field "paramters", which the format does not define (did you mean "parameters"?)"#),
                    "\(lenient)")
            #expect(try lenient.json()["unknown_fields"]?["paramters"]?.integer == 2, "\(lenient)")
        }

        /// A JSON array is named as such once, with how to convert it; nothing is stored.
        @Test func aJSONArrayIsNamedOnce() async throws {
            let store = try CLIStore()
            let file = store.directory.appendingPathComponent("array.json").path
            try "[\n  \(Self.misspelled),\n  \(Self.misspelled)\n]\n".write(toFile: file, atomically: true, encoding: .utf8)
            let run = await store.run("import", file, "--progress", "none")
            #expect(run.status != 0)
            #expect(run.error.contains("a JSON array; import reads JSON Lines"), "\(run)")
            #expect(!run.error.contains("invalid JSON"), "\(run)")
        }

        /// Zones: the argument at fault is named, with the nearest known zone.
        @Test func unknownZonesAreNamedWithTheNearestOne() async throws {
            let store = try CLIStore()
            let set = await store.run("users", "timezone", "set", "alice", "Europe/Berln")
            #expect(set.status != 0)
            #expect(set.error.contains(#"zone: unknown time zone "Europe/Berln" (did you mean Europe/Berlin?)"#), "\(set)")
            #expect(!set.error.contains("--timezone"), "\(set)")
            let imported = await store.run("import", Sample.donations, "--user-timezone", "alice=America/LosAngeles")
            #expect(imported.status != 0)
            #expect(imported.error.contains(#"--user-timezone alice: unknown time zone "America/LosAngeles" (did you mean America/Los_Angeles?)"#),
                    "\(imported)")
        }

        /// A directory as the store, or a store in a missing folder, is named with its path.
        @Test func storePathsThatCannotBeAStoreAreNamed() async throws {
            let store = try CLIStore()
            let directory = await proactive(["stats", "--store", store.directory.path])
            #expect(directory.status != 0)
            #expect(directory.error.contains("\(store.directory.path) is a directory"), "\(directory)")
            let missing = store.directory.appendingPathComponent("no-such-folder/store.sqlite").path
            let folder = await proactive(["import", Sample.donations, "--store", missing])
            #expect(folder.status != 0)
            #expect(folder.error.contains("the folder \(store.directory.path)/no-such-folder does not exist"), "\(folder)")
            #expect(!folder.error.contains("SQLite error"), "\(folder)")
        }

        /// `donate` without --user says whose history it went to.
        @Test func donateWithoutUserSaysSo() async throws {
            let store = try CLIStore()
            let run = try await store.succeed("donate", "--app", "com.example.a", "--intent", "open", "--date", "2026-11-20T07:30:00Z")
            #expect(run.error.contains(#"stored under user "default""#), "\(run)")
            let named = try await store.succeed("donate", "--user", "u1", "--app", "com.example.a", "--intent", "open")
            #expect(!named.error.contains("stored under"), "\(named)")
            let help = await proactive(["help", "donate"])
            #expect(help.output.contains("proactive donate --user u1 --app"), "\(help)")
        }

        /// `predict` for a user without donations lists the users the store has.
        @Test func predictForAnUnknownUserListsTheUsers() async throws {
            let store = try await CLIStore.sample(trained: false)
            let run = await store.run("predict", "--user", "mee", "--at", "2026-11-20T07:30")
            #expect(run.status != 0)
            #expect(run.error.contains("user mee has no donations"), "\(run)")
            #expect(run.error.contains("users: me"), "\(run)")
        }
    }
}

extension CommandTests.NewcomerInputCommandTests {
    /// Export -> import keeps users' zones (each line of a user with one says `"timezone"`); the
    /// round trip stays byte-identical and a re-import stores nothing. A zone the store already has
    /// for the user is kept, with a warning (issue 29, item 5).
    @Test func exportImportKeepsUserZones() async throws {
        let source = try CLIStore()
        try await source.succeed("import", Sample.donations, "--user-timezone", "me=America/Los_Angeles", "--progress", "none")
        try await source.succeed("donate", "--user", "nozone", "--app", "com.example.a", "--intent", "open", "--date", "2026-11-20T07:30:00Z")
        let first = source.directory.appendingPathComponent("first.jsonl").path
        try await source.succeed("export", "-o", first)
        let text = try String(contentsOfFile: first, encoding: .utf8)
        #expect(text.split(separator: "\n").filter { $0.contains(#""user":"me""#) }.allSatisfy { $0.hasSuffix(#","timezone":"America/Los_Angeles"}"#) })
        #expect(text.split(separator: "\n").filter { $0.contains(#""user":"nozone""#) }.allSatisfy { !$0.contains("timezone") })

        let target = try CLIStore()
        try await target.succeed("import", first, "--progress", "none")
        let zones = try await target.succeed("users", "timezone", "show")
        #expect(zones.output.contains("me: America/Los_Angeles"), "\(zones)")
        let again = try await target.succeed("import", first, "--progress", "none")
        #expect(again.error.contains("0 stored"), "\(again)")
        let second = target.directory.appendingPathComponent("second.jsonl").path
        try await target.succeed("export", "-o", second)
        #expect(try Data(contentsOf: URL(fileURLWithPath: second)) == Data(contentsOf: URL(fileURLWithPath: first)))

        let other = try CLIStore()
        try await other.succeed("users", "timezone", "set", "me", "Europe/Berlin")
        let kept = try await other.succeed("import", first, "--progress", "none")
        #expect(kept.error.contains("warning: \(first):1: user me's zone is Europe/Berlin; the America/Los_Angeles the donations state was not taken"),
                "\(kept)")
    }
}
