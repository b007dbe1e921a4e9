import Foundation
import ProactiveCore
import Testing

extension CommandTests {
    /// predict, suggest, stack, train, lint and donate on the bundled sample: what they answer and how they read the clock.
    @Suite("the sample's day")
    struct SampleDayCommandTests {
        @Test("predict on the sample: morning routine first at 07:30, not at 21:00")
        func morningRoutine() async throws {
            let store = try await CLIStore.sample()
            let morning = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T07:30", "-k", "2")
            #expect(morning.lines.count > 1 && morning.lines[1].contains(/Weather in Cupertino|Order a large iced latte/),
                    "morning top target is not weather or coffee: \(morning)")
            #expect(morning.output.contains(/usually 0[67]:[0-5][05]-0[6-8]:[0-5][05]/),
                    "no time-of-day reason (the habit's own window) in the morning prediction: \(morning)")
            let evening = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T21:00", "-k", "1")
            #expect(!evening.output.contains(/Weather in Cupertino|iced latte/), "the morning routine tops the evening: \(evening)")
        }

        @Test("a stack day is the calendar day in the zone (25 hours on 2026-11-01, 23 on 2027-03-14); moments in the gap are refused")
        func stackDayAcrossDaylightSaving() async throws {
            let store = try await CLIStore.sample()
            let news = try StoreCommandTests.file(store, "news.json",
                #"{"app":"com.example.news","widgetKind":"headlines","entries":[{"date":"2027-03-14T11:00:00-07:00","score":5,"duration":3600}]}"#)
            try await store.succeed("timeline", "set", "--user", "me", news)
            var last: CommandRun?
            for day in ["2026-11-01", "2027-03-14"] {
                let run = try await store.succeed("stack", "--user", "me", "--widgets", "weather,headlines", "--day", day,
                                                  "--timezone", "America/Los_Angeles")
                #expect(run.lines.count > 1 && run.lines[1].hasPrefix("00:00-"), "\(day) does not start at local midnight: \(run)")
                let rows = run.lines.filter { $0.prefixMatch(of: /[0-9]{2}:[0-9]{2}-/) != nil }
                #expect(rows.last?.prefixMatch(of: #/[0-9:]*-24:00 /#) != nil, "\(day) does not end at local midnight: \(run)")
                last = run
            }
            #expect(last?.lines.contains { $0.prefixMatch(of: /11:[0-9]{2}-12:00 .*since 11:00 until 12:00/) != nil } == true,
                    "the timeline's row and its reason disagree: \(String(describing: last))")
            let gap = await store.run("predict", "--user", "me", "--at", "2027-03-14T02:30", "--timezone", "America/Los_Angeles")
            #expect(gap.status != 0 && gap.error.contains("does not exist in America/Los_Angeles"), "a local time in the DST gap was accepted: \(gap)")
            try await store.succeed("predict", "--user", "me", "--at", "2027-03-14T03:30", "--timezone", "America/Los_Angeles")
            for arguments in [["-k", "-1"], ["--at", "-5"]] {
                let run = await store.run(["predict", "--user", "me"] + arguments)
                #expect(run.status != 0 && !run.error.contains("Missing value"), "\(run)")
            }
        }

        @Test("one clock per user: the same instant written in two offsets gets one answer; users timezone set/show")
        func oneClockPerUser() async throws {
            let store = try CLIStore()
            try await store.succeed("import", Sample.donations)
            try await store.succeed("train", "--quiet")
            let a = try await store.succeed("predict", "--user", "me", "--at", "2026-11-24T02:00:00Z", "-k", "3", "--json")
            let b = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T18:00:00-08:00", "-k", "3", "--json")
            #expect(a.output == b.output, "the same instant in two offsets gave two answers: \(a) \(b)")
            #expect(a.output.contains(#""clock":"UTC-08:00, the offset of"#), "predict --json does not say which clock it used: \(a)")
            let set = try await store.succeed("users", "timezone", "set", "me", "America/Los_Angeles")
            #expect(set.output.contains("me: America/Los_Angeles"), "\(set)")
            let show = try await store.succeed("users", "timezone", "show")
            #expect(show.lines.contains("me: America/Los_Angeles"), "\(show)")
            let local = try await store.succeed("predict", "--user", "me", "--at", "2026-11-23T18:00", "-k", "1", "--json")
            #expect(local.output.contains(#""clock":"America/Los_Angeles""#), "predict does not read --at in the configured zone: \(local)")
            let mars = await store.run("users", "timezone", "set", "me", "Mars/Olympus")
            #expect(mars.status != 0, "an unknown zone was accepted: \(mars)")
            #expect((mars.output + mars.error).contains("unknown time zone"), "\(mars)")
        }

        @Test("--json on train, lint and stack")
        func jsonReports() async throws {
            let store = try await CLIStore.sample(trained: false)
            let train = try await store.succeed("train", "--json").json()
            let user = train["users"]?.array?.first
            #expect(train["model"]?.string == "blend" && user?["user"]?.string == "me" && user?["donations"]?.integer == 283
                    && (user?["targets"]?.integer ?? 0) > 0 && train["failures"]?.array?.isEmpty == true, "\(train)")
            let lint = try await store.succeed("lint", "--json").json()
            #expect(lint["donations"]?.integer == 283 && lint["users"]?.integer == 1 && lint["warnings"]?.array != nil, "\(lint)")
            let stack = try await store.succeed("stack", "--user", "me", "--widgets", "weather", "--day", "2026-11-20", "--json").json()
            let spans = stack["spans"]?.array ?? []
            #expect(stack["zone"]?.string == "America/Los_Angeles" && !spans.isEmpty, "\(stack)")
            #expect(spans.first?["start"]?.string == "2026-11-20T00:00:00-08:00" && spans.last?["end"]?.string == "2026-11-21T00:00:00-08:00", "\(spans)")
            for (span, next) in zip(spans, spans.dropFirst()) {
                #expect(span["end"]?.string == next["start"]?.string, "the spans leave gaps: \(spans)")
            }
        }

        @Test("suggest says which Focus it applied (from the schedules) and what the score fuses")
        func suggestNamesItsFocus() async throws {
            let store = try await CLIStore.sample()
            try await store.succeed("focus", "schedule", "add", "work", "--days", "Mon-Fri", "--start", "07:00", "--end", "17:00",
                                    "--timezone", "America/Los_Angeles")
            let run = try await store.succeed("suggest", "--user", "me", "--at", "2026-11-23T07:30", "-k", "2")
            let errors = run.error.split(separator: "\n")
            #expect(errors.contains { $0.hasPrefix("focus: work (on at that moment by the Focus schedules") }, "suggest did not name the Focus it applied: \(run)")
            #expect(errors.contains { $0.hasPrefix("model: blend; scores fuse") }, "suggest did not name its model and signals: \(run)")
            let given = try await store.succeed("suggest", "--user", "me", "--at", "2026-11-23T07:30", "-k", "2", "--context", "focus=personal")
            #expect(!given.error.split(separator: "\n").contains { $0.hasPrefix("focus:") },
                    "suggest claimed a scheduled Focus although --context focus= was given: \(given)")
        }

        @Test("donate types parameters by the stored definitions")
        func donateTypesParameters() async throws {
            let store = try await CLIStore.sample(trained: false)
            let weather = try await store.succeed("donate", "--user", "me", "--app", "com.example.weather", "--intent", "CheckWeatherIntent",
                                                  "--param", "location=sf", "--date", "2026-11-23T07:00:00-08:00")
            #expect(weather.output.contains(#""location":{"id":"sf"}"#), "donate stored an entity parameter as a string: \(weather)")
            let huge = await store.run("donate", "--user", "me", "--app", "com.example.coffee", "--intent", "OrderCoffeeIntent", "--param", "size=huge")
            #expect(huge.status != 0, "donate accepted a value outside the enum: \(huge)")
            #expect((huge.output + huge.error).contains(#"--param size: "huge" does not fit its type"#), "\(huge)")
        }
    }
}
