import Foundation
import ProactiveCore
import ProactiveStore
import Testing

extension CommandTests {
    /// The live model through the commands: `donate` is learned by the next
    /// query without `train`, `delete` is unlearned at once, `models list` shows it.
    @Suite("live model commands")
    struct LiveModelCommandTests {
        static let moment = ["--user", "me", "--at", "2026-11-23T06:55", "-k", "100", "--json"]

        static func donateNewApp(_ store: CLIStore, identifier: String, at time: String) async throws -> CommandRun {
            try await store.succeed("donate", "--user", "me", "--app", "com.example.newapp", "--intent", "open", "--identifier", identifier,
                                    "--date", "2026-11-23T\(time):00-08:00")
        }

        @Test func donateIsLearnedWithoutTrain() async throws {
            let store = try await CLIStore.sample()
            let lines = try Sample.lines().count
            let trainedAt = try await store.succeed("models", "list", "--json").json().array?.first?["trained_at"]?.string
            let before = try await store.succeed(["predict"] + Self.moment).json()
            #expect(probabilities(before["suggestions"]?.array ?? [])["com.example.newapp:open"] == nil)

            let donated = try await Self.donateNewApp(store, identifier: "new-1", at: "06:40")
            let line = try DonationLineCodec.decode(donated.lines.first ?? "")
            #expect(donated.lines.count == 1)
            #expect(line.app == "com.example.newapp" && line.identifier == "new-1" && line.user == "me")
            // The saved state has not learned it yet: the donation is pending for the next reader.
            var models = try await store.succeed("models", "list", "--json").json().array ?? []
            #expect(models.first?["learned"]?.integer == lines)
            #expect(models.first?["pending_new"]?.integer == 1)
            #expect(models.first?["consistent"]?.bool == true)

            let after = try await store.succeed(["predict"] + Self.moment).json()
            #expect(after["note"]?.isNull == true, "\(after)")  // caught up, not refitted
            let learned = probabilities(after["suggestions"]?.array ?? [])
            #expect((learned["com.example.newapp:open"] ?? 0) > 0)
            #expect(abs(learned.values.reduce(0, +) - 1) < 1e-9)
            let text = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T06:55", "-k", "100")
            #expect(text.lines.contains { $0.contains("Open com.example.newapp") }, "\(text)")
            #expect(!text.error.contains("note:"), "\(text)")

            // More of the same is learned too: the new app climbs.
            for (index, time) in ["06:41", "06:42", "06:43", "06:44"].enumerated() {
                _ = try await Self.donateNewApp(store, identifier: "new-\(index + 2)", at: time)
            }
            let more = probabilities(try await store.succeed(["predict"] + Self.moment).json()["suggestions"]?.array ?? [])
            #expect((more["com.example.newapp:open"] ?? 0) > (learned["com.example.newapp:open"] ?? 1))
            models = try await store.succeed("models", "list", "--json").json().array ?? []
            #expect(models.first?["trained_at"]?.string == trainedAt)  // never retrained
            #expect(models.first?["stored"]?.integer == lines + 5)
            #expect(models.first?["consistent"]?.bool == true)
        }

        /// Deleted whether the saved state learned it (saved by `train`) or not yet (pending: stored after its mark).
        @Test(arguments: [true, false])
        func deleteIsUnlearnedAtOnce(savedStateLearnedIt: Bool) async throws {
            let store = try await CLIStore.sample()
            let lines = try Sample.lines().count
            _ = try await Self.donateNewApp(store, identifier: "new-1", at: "06:40")
            if savedStateLearnedIt {
                try await store.succeed("train", "--quiet")
                let learned = probabilities(try await store.succeed(["predict"] + Self.moment).json()["suggestions"]?.array ?? [])
                #expect(learned["com.example.newapp:open"] != nil)
            }  // else no query runs before the delete (one that folds slowly saves the state, so it would have learned it)
            let before = try await store.succeed("models", "list", "--json").json().array?.first
            #expect(before?["learned"]?.integer == (savedStateLearnedIt ? lines + 1 : lines))

            let deleted = try await store.succeed("delete", "--app", "com.example.newapp", "--identifier", "new-1")
            #expect(deleted.output == "deleted 1 donation\n")
            // The saved state itself no longer knows the target: deletes settle before the command returns.
            let saved = try #require(try SQLiteModelStateStore(database: ProactiveDatabase(path: store.path, mode: .mustExist))
                .load(user: "me", name: "blend"))
            #expect(!saved.catalogue.contains("com.example.newapp"))
            #expect(!Data(saved.bytes).contains(Data("com.example.newapp".utf8)))
            #expect(saved.key.donationCount == lines)
            let models = try await store.succeed("models", "list", "--json").json().array ?? []
            #expect(models.first?["learned"]?.integer == lines)
            #expect(models.first?["pending_new"]?.integer == 0 && models.first?["pending_deleted"]?.integer == 0)

            let after = try await store.succeed(["predict"] + Self.moment).json()
            #expect(after["note"]?.isNull == true, "\(after)")  // unlearned, not refitted
            #expect(probabilities(after["suggestions"]?.array ?? [])["com.example.newapp:open"] == nil)
            let nothing = await store.run("delete", "--app", "com.example.newapp", "--identifier", "new-1")
            #expect(nothing.status == 0 && nothing.output == "deleted 0 donations\n")
        }

        /// `train` after a settled delete replaces the saved state with a fit from scratch: the same model a
        /// store that never held the deleted donation trains.
        @Test func trainAfterADeleteReplacesTheState() async throws {
            let store = try await CLIStore.sample()
            _ = try await Self.donateNewApp(store, identifier: "new-1", at: "06:40")
            try await store.succeed("train", "--quiet")
            try await store.succeed("delete", "--app", "com.example.newapp", "--identifier", "new-1")  // unlearned, journal settled
            let unlearned = try await store.succeed("models", "list", "--json").json().array?.first
            try await store.succeed("train", "--quiet")
            let retrained = try await store.succeed("models", "list", "--json").json().array?.first
            #expect(retrained?["trained_at"] != unlearned?["trained_at"], "train did not replace the saved state")
            #expect(retrained?["consistent"]?.bool == true)

            let pristine = try await CLIStore.sample()
            let expected = try await pristine.succeed(["predict"] + Self.moment).json()
            let found = try await store.succeed(["predict"] + Self.moment).json()
            #expect(found["note"]?.isNull == true)
            #expect(found["suggestions"] == expected["suggestions"])
        }

        @Test func modelsListText() async throws {
            let store = try await CLIStore.sample(trained: false)
            let empty = try await store.succeed("models", "list")
            #expect(empty.output.isEmpty && empty.error.contains("no saved models"), "\(empty)")
            try await store.succeed("train", "--quiet", "--model", "profile")
            try await store.succeed("train", "--quiet")
            let list = try await store.succeed("models", "list")
            let lines = try Sample.lines().count
            #expect(list.lines.first == "user\tmodel\tlearned\tpending\tstored\ttrained\tsaved\tbytes")
            let rows = list.lines.dropFirst().map { $0.split(separator: "\t").map(String.init) }
            #expect(rows.map { Array($0.prefix(5)) } == [["me", "blend", "\(lines)", "+0 -0", "\(lines)"], ["me", "profile", "\(lines)", "+0 -0", "\(lines)"]])
            #expect(rows.allSatisfy { $0.count == 8 && (Int($0[7]) ?? 0) > 0 })
            let json = try await store.succeed("models", "list", "--user", "nobody", "--json").json()
            #expect(json.array?.isEmpty == true)
        }

        /// A saved state that disagrees with the store is reported, with exit status 1.
        @Test func modelsListFlagsAnInconsistentState() async throws {
            let store = try await CLIStore.sample()
            let database = try ProactiveDatabase(path: store.path, mode: .mustExist)
            let states = SQLiteModelStateStore(database: database)
            var saved = try #require(try states.load(user: "me", name: "blend"))
            saved.key.donationCount -= 1  // claims to have learned one donation fewer than it did
            saved.savedAt = saved.savedAt.addingTimeInterval(1)
            try states.save(saved)
            let list = await store.run("models", "list")
            #expect(list.status == 1)
            #expect(list.lines.dropFirst().first?.contains("INCONSISTENT") == true, "\(list)")
            let json = await store.run("models", "list", "--json")
            #expect(json.status == 1)
            #expect((try json.json()).array?.first?["consistent"]?.bool == false)
        }
    }
}
