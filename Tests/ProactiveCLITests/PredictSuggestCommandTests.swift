import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// `import`, `train`, `predict` and `suggest` on the bundled sample, text and
    /// `--json`, run in process as the executable runs them.
    @Suite("predict and suggest commands")
    struct PredictSuggestCommandTests {
        /// Import and train report what they did; the saved model learned every line.
        @Test func importAndTrainReport() async throws {
            let store = try CLIStore()
            let lines = try Sample.lines().count
            let imported = try await store.succeed("import", Sample.donations, "--user-timezone", "me=America/Los_Angeles", "--progress", "none")
            #expect(imported.output.isEmpty)  // the summary goes to standard error
            #expect(imported.error.contains("donations.jsonl: \(lines) lines: \(lines) stored, 0 already stored, 0 rejected"), "\(imported)")
            let again = try await store.succeed("import", Sample.donations, "--progress", "none")
            #expect(again.error.contains("\(lines) lines: 0 stored, \(lines) already stored"), "\(again)")

            let trained = try await store.succeed("train", "--quiet")
            #expect(trained.lines.count == 1)
            #expect(trained.lines.first?.wholeMatch(of: /trained 1 of 1 users \(blend\) in [0-9]+\.[0-9]{2} s/) != nil, "\(trained)")
            let models = try await store.succeed("models", "list", "--json").json().array ?? []
            #expect(models.count == 1)
            #expect(models.first?["user"]?.string == "me")
            #expect(models.first?["model"]?.string == "blend")
            #expect(models.first?["learned"]?.integer == lines)
            #expect(models.first?["stored"]?.integer == lines)
            #expect(models.first?["consistent"]?.bool == true)
        }

        /// The text table: a header naming the moment on the user's clock, then
        /// ranked lines whose probabilities are the JSON's, rounded.
        @Test func predictText() async throws {
            let store = try await CLIStore.sample()
            let text = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T06:55", "-k", "4")
            #expect(!text.error.contains("note:"), "\(text)")  // the trained state is read, not refitted
            // --at without an offset is the user's local time (America/Los_Angeles: -08:00 in November).
            #expect(text.lines.first == "Top 4 for me at 2026-11-23T06:55:00-08:00, model blend:", "\(text)")
            // The last line states the activity level the probabilities are conditional on.
            #expect(text.lines.last?.hasPrefix("activity ") == true, "\(text)")
            let rows = text.lines.dropFirst().dropLast().map { line in line.wholeMatch(of: /\s?([0-9]+)\. (.+?)  ([01]\.[0-9]{3})(?: -- (.+))?/) }
            #expect(rows.count == 4)
            #expect(rows.allSatisfy { $0 != nil }, "\(text)")
            let parsed = rows.compactMap { $0 }
            #expect(parsed.map { Int($0.1) } == [1, 2, 3, 4])
            let shown = parsed.map { Double($0.3)! }
            #expect(shown == shown.sorted(by: >))
            // The sample's weekday routine: the weather for Cupertino within minutes of waking.
            #expect(parsed.first.map { String($0.2) } == "Weather in Cupertino")

            let json = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T06:55", "-k", "4", "--json").json()
            let suggestions = json["suggestions"]?.array ?? []
            #expect(suggestions.count == 4)
            for (row, line) in zip(suggestions, parsed) {
                #expect(row["summary"]?.string == String(line.2))
                #expect(String(format: "%.3f", row["probability"]?.number ?? -1) == String(line.3))
                #expect((row["why"]?.array ?? []).compactMap(\.string).joined(separator: ", ") == (line.4.map(String.init) ?? ""))
            }
        }

        /// `predict --json`: its fields, and with every target listed the
        /// probabilities are a distribution in decreasing order.
        @Test func predictJSON() async throws {
            let store = try await CLIStore.sample()
            let json = try await store.succeed("predict", "--user", "me", "--at", "2026-11-20T12:15:00-08:00", "--context", "focus=work",
                                               "-k", "100", "--json").json()
            #expect(json.keys == ["user", "at", "clock", "model", "context", "activity", "note", "suggestions"])
            #expect((0 ... 1).contains(json["activity"]?.number ?? -1))
            #expect(json["clock"]?.string == "America/Los_Angeles")
            #expect(json["user"]?.string == "me")
            #expect(json["at"]?.string == "2026-11-20T12:15:00-08:00")
            #expect(json["model"]?.string == "blend")
            #expect(json["context"] == .object([("focus", .string("work"))]))
            #expect(json["note"]?.isNull == true)  // read from the saved state: nothing was refitted
            let rows = json["suggestions"]?.array ?? []
            #expect(rows.count > 4)
            for row in rows {
                #expect(row.keys == ["target", "summary", "probability", "why"])
                #expect(row["summary"]?.string?.isEmpty == false)
                #expect((row["why"]?.array?.count ?? 99) <= 3)
            }
            let values = rows.compactMap { $0["probability"]?.number }
            #expect(values.count == rows.count)
            #expect(values.allSatisfy { $0 > 0 && $0 <= 1 })
            #expect(values == values.sorted(by: >))
            #expect(abs(values.reduce(0, +) - 1) < 1e-9)
            #expect(Set(rows.compactMap { $0["target"]?.string }).count == rows.count)

            // -k limits the list to the top of the same ranking.
            let top = try await store.succeed("predict", "--user", "me", "--at", "2026-11-20T12:15:00-08:00", "--context", "focus=work",
                                              "-k", "3", "--json").json()
            #expect(top["suggestions"]?.array?.map { $0["target"] } == rows.prefix(3).map { $0["target"] })
        }

        /// `suggest` text and `--json`: scores ranked, the text the JSON rounded, and
        /// a moment without declarations gives the model's probabilities as scores.
        @Test func suggestTextAndJSON() async throws {
            let store = try await CLIStore.sample()
            let json = try await store.succeed("suggest", "--user", "me", "--at", "2026-11-20T07:00:00-08:00", "-k", "4", "--json").json()
            let rows = json.array ?? []
            #expect(!rows.isEmpty && rows.count <= 4)
            for row in rows {
                #expect(row.keys == ["target", "app", "summary", "score", "probability", "why"])
                #expect(row["target"]?.string?.hasPrefix((row["app"]?.string ?? "?") + ":") == true)
                // No relevant shortcuts are declared: the score is the model's probability.
                #expect(row["score"] == row["probability"])
            }
            let scores = rows.compactMap { $0["score"]?.number }
            #expect(scores == scores.sorted(by: >))

            let text = try await store.succeed("suggest", "--user", "me", "--at", "2026-11-20T07:00:00-08:00", "-k", "4")
            #expect(text.lines.count == rows.count, "\(text)")
            for (index, (line, row)) in zip(text.lines, rows).enumerated() {
                let match = line.wholeMatch(of: /([0-9]+)\. (.+?) +([0-9]\.[0-9]{3})  (.+)/)
                #expect(match != nil, "\(line)")
                #expect(match.map { Int($0.1) } == index + 1)
                #expect(match.map { String($0.2) } == row["summary"]?.string)
                #expect(match.map { String($0.3) } == String(format: "%.3f", row["score"]?.number ?? -1))
                // `why` is an array of phrases, as in predict; the text joins them with "; ".
                #expect(match.map { String($0.4) } == row["why"]?.array?.compactMap(\.string).joined(separator: "; "))
                #expect(row["why"]?.array?.isEmpty == false, "\(row)")
            }
        }

        /// Declared relevance lifts a suggestion above its probability: the calendar
        /// event's window and the purchase's, as the talks' day declares them.
        @Test func suggestFusesDeclarations() async throws {
            let store = try await CLIStore.sample()
            let before = try await store.succeed("suggest", "--user", "me", "--at", "2026-11-20T09:45:00-08:00", "-k", "4", "--json").json()
            try await store.succeed("shortcuts", "set", "--user", "me", Sample.declaration("calendar.json"), "--at", "2026-11-20T00:00:00-08:00")
            try await store.succeed("shortcuts", "set", "--user", "me", Sample.declaration("bank.json"), "--at", "2026-11-20T09:41:00-08:00")
            let after = try await store.succeed("suggest", "--user", "me", "--at", "2026-11-20T09:45:00-08:00", "-k", "4", "--json").json()
            let top = Array((after.array ?? []).prefix(2))
            #expect(Set(top.compactMap { $0["app"]?.string }) == ["com.example.calendar", "com.example.bank"], "\(after)")
            for row in top {
                let (score, probability) = (row["score"]?.number ?? 0, row["probability"]?.number ?? 1)
                #expect(score > probability)
                #expect(row["why"]?.array?.first?.string?.hasPrefix("window ") == true)
            }
            // The declarations change the ranking, not the model: the probabilities are the same as before.
            let earlier = probabilities(before.array ?? [])
            for (target, probability) in probabilities(after.array ?? []) where earlier[target] != nil {
                #expect(earlier[target] == probability)
            }
        }

        /// For the same user, moment and context, `predict` and `suggest` give the same probabilities.
        @Test(arguments: ["2026-11-20T07:00:00-08:00", "2026-11-20T12:15", "2026-11-20T21:00"])
        func predictAndSuggestAgree(at moment: String) async throws {
            let store = try await CLIStore.sample()
            // A state behind the store (donations since train), so both read a caught-up model.
            let lines = try Sample.lines()
            try await store.succeed("delete", "--user", "me", "--after", "2026-11-19T00:00:00Z")
            let late = store.directory.appendingPathComponent("late.jsonl")
            try lines.joined(separator: "\n").write(to: late, atomically: true, encoding: .utf8)
            try await store.succeed("import", late.path, "--progress", "none")

            let predicted = try await store.succeed("predict", "--user", "me", "--at", moment, "--context", "place=home", "-k", "100", "--json").json()
            let suggested = try await store.succeed("suggest", "--user", "me", "--at", moment, "--context", "place=home", "-k", "100",
                                                    "--developer", "--json").json()
            let predictions = probabilities(predicted["suggestions"]?.array ?? [])
            let suggestions = probabilities(suggested.array ?? [])
            #expect(predictions.count > 4)
            #expect(!suggestions.isEmpty)
            for (target, probability) in suggestions {
                #expect(predictions[target] == probability, "\(target)")
            }
        }
    }
}
