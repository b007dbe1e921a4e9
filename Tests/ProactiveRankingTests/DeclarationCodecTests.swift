import Foundation
import ProactiveCore
import Testing
@testable import ProactiveRanking

@Suite struct DeclarationCodecTests {
    static let shortcutsJSON = """
    {"app": "com.example.bank",
     "shortcuts": [
       {"widgetKind": "recentPurchases", "role": "information", "title": "Recent purchases",
        "configuration": {"intent": "ViewRecentPurchases", "parameters": {"card": {"id": "visa", "display": "Visa"}}},
        "relevanceProviders": [
          {"kind": "date", "start": "2026-11-20T09:41:00-08:00", "duration": 1800},
          {"kind": "date", "start": "2026-11-20T18:00:00-08:00", "end": "2026-11-20T19:00:00-08:00"},
          {"kind": "location", "latitude": 37.33, "longitude": -122.01, "radius": 150, "identifier": "store"},
          {"kind": "dailyRoutine", "situation": "morning"}]},
       {"widgetKind": "balance"}]}
    """

    // MARK: Relevant shortcuts

    @Test func decodesTheDocumentedExample() throws {
        let set = try RelevantShortcutCodec.decode(Self.shortcutsJSON, app: "com.example.bank", declaredAt: Day.at(9, 41))
        #expect(set.app == "com.example.bank" && set.declaredAt == Day.at(9, 41) && set.shortcuts.count == 2)
        let purchases = set.shortcuts[0]
        #expect(purchases.role == .information && purchases.title == "Recent purchases")
        #expect(purchases.intent == WidgetConfiguration(intent: "ViewRecentPurchases", parameters: ["card": .entity(id: "visa", display: "Visa")]))
        #expect(purchases.windows == [DateInterval(start: Day.at(9, 41), end: Day.at(10, 11)), DateInterval(start: Day.at(18), end: Day.at(19))])
        #expect(purchases.providers[2] == .location(latitude: 37.33, longitude: -122.01, radius: 150, identifier: "store"))
        #expect(purchases.providers[3] == .dailyRoutine(situation: "morning"))
        let balance = set.shortcuts[1]
        #expect(balance.role == .action && balance.isNewContent && balance.intent == nil)   // static widget, new content
        #expect(balance.widget.key == "com.example.bank/balance")
        #expect(purchases.widget.key == "com.example.bank/recentPurchases[ViewRecentPurchases(card=visa)]")
    }

    @Test func encodingRoundTrips() throws {
        let set = try RelevantShortcutCodec.decode(Self.shortcutsJSON, app: nil, declaredAt: Day.at(9, 41))
        let text = RelevantShortcutCodec.encode(set, utcOffset: Day.offset)
        #expect(try RelevantShortcutCodec.decode(text, app: nil, declaredAt: Day.at(9, 41)) == set)
        #expect(text.contains("\"start\":\"2026-11-20T09:41:00-08:00\",\"end\":\"2026-11-20T10:11:00-08:00\""))
    }

    @Test func aBareArrayTakesTheAppFromTheCommandLine() throws {
        let set = try RelevantShortcutCodec.decode(#"[{"widgetKind": "calendar"}]"#, app: "com.example.calendar", declaredAt: Day.at(0))
        #expect(set.shortcuts.map(\.widget) == [Talk.calendar])
        #expect(throws: DeclarationError(path: "app", reason: "missing: give the app in the file or on the command line")) {
            try RelevantShortcutCodec.decode(#"[{"widgetKind": "calendar"}]"#, app: nil, declaredAt: Day.at(0))
        }
    }

    @Test(arguments: [
        (#"{"app": "a", "shortcuts": [{"role": "action"}]}"#, "shortcuts[0].widgetKind: missing (required)"),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "role": "both"}]}"#, #"shortcuts[0].role: must be "action" or "information", found "both""#),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "2026-11-20T10:00:00Z", "end": "2026-11-20T09:00:00Z"}]}]}"#,
         "shortcuts[0].relevanceProviders[0].end: must be after start"),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "2026-11-20T10:00:00Z", "end": "2026-11-20T11:00:00Z", "duration": 5}]}]}"#,
         #"shortcuts[0].relevanceProviders[0].duration: give "end" or "duration", not both"#),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "yesterday", "duration": 5}]}]}"#,
         #"shortcuts[0].relevanceProviders[0].start: "yesterday" is not an ISO 8601 date with offset (expected a digit at position 1)"#),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "weather"}]}]}"#,
         #"shortcuts[0].relevanceProviders[0].kind: must be "date", "location" or "dailyRoutine", found "weather""#),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "colour": "red"}]}"#,
         "shortcuts[0].colour: unknown member (expected one of configuration, relevanceProviders, role, title, widgetKind)"),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "configuration": {"intent": "I", "parameters": {"x": [1]}}}]}"#,
         "shortcuts[0].configuration.parameters.x: must be a string, number, boolean or entity object, found an array"),
        (#"{"app": "b", "shortcuts": []}"#, #"app: the file declares "b" but the command names "a""#),
        ("{\"app\": \"a\",\n \"shortcuts\": [\n  {\"widgetKind\": }]}", "line 3: invalid JSON at column 18: unexpected character '}'"),
        // Issue 16: dates and numbers are bounded when declared, with the donation rules.
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "1970-01-01T05:00:00+09:00", "duration": 5}]}]}"#,
         #"shortcuts[0].relevanceProviders[0].start: "1970-01-01T05:00:00+09:00" is 1969-12-31T20:00:00Z in UTC, outside the supported range 1970-2200"#),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "2026-11-20T10:00:00Z", "duration": 1e19}]}]}"#,
         "shortcuts[0].relevanceProviders[0].duration: 1e+19 seconds from the start ends outside the supported years 1970-2200 (UTC)"),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "location", "latitude": 0, "longitude": 0, "radius": 1e308}]}]}"#,
         "shortcuts[0].relevanceProviders[0].radius: must be a number of metres in 0...40075000 (> 0)"),
        (#"{"app": "a", "shortcuts": [{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "2026-11-20T10:00:00.0004Z", "duration": 0.00005}]}]}"#,
         "shortcuts[0].relevanceProviders[0].duration: must be at least a millisecond, found 5e-05 s"),
        (#"{"app": "a/b", "shortcuts": []}"#, "app: a bundle identifier is printable ASCII without '/' or spaces (found '/' at character 2)"),
    ])
    func preciseErrors(text: String, expected: String) {
        expectDeclarationError(expected, input: text) { () throws(DeclarationError) in _ = try RelevantShortcutCodec.decode(text, app: "a", declaredAt: Day.at(0)) }
    }

    /// Issue 16: a set declared at the first instant of the range, stored at a
    /// negative offset (local year 1969), must read back: the range is of instants.
    @Test func aSetAtTheRangeStartReadsBackAtAnyOffset() throws {
        let text = #"[{"widgetKind": "w", "relevanceProviders": [{"kind": "date", "start": "1970-01-01T00:00:00Z", "duration": 60}]}]"#
        let set = try RelevantShortcutCodec.decode(text, app: "com.a", declaredAt: Day.at(0))
        let stored = RelevantShortcutCodec.encodeShortcuts(set.shortcuts, utcOffset: -8 * 3600)
        #expect(stored.contains("1969-12-31T16:00:00-08:00"))
        #expect(try RelevantShortcutCodec.decode(stored, app: "com.a", declaredAt: Day.at(0)) == set)
    }

    // MARK: Registry semantics

    @Test func redeclaringWithoutAShortcutWithdrawsIt() throws {
        var registry = RelevantShortcutRegistry()
        let first = try RelevantShortcutCodec.decode(Self.shortcutsJSON, app: nil, declaredAt: Day.at(9, 41))
        registry.replace(first)
        #expect(registry.shortcuts.count == 2)
        registry.replace(RelevantShortcutSet(app: first.app, shortcuts: [first.shortcuts[1]], declaredAt: Day.at(9, 50)))
        #expect(registry.shortcuts.map(\.shortcut.widget.kind) == ["balance"])
        registry.replace(RelevantShortcutSet(app: first.app, shortcuts: [], declaredAt: Day.at(9, 55)))
        #expect(registry.isEmpty)
    }

    // MARK: Timelines

    @Test func decodesTimelinesAndRoundTrips() throws {
        let text = """
        [{"app": "com.example.bank", "widgetKind": "recentPurchases",
          "entries": [{"date": "2026-11-20T08:15:00-08:00", "score": 0},
                      {"date": "2026-11-20T09:41:00-08:00", "score": 52.6, "duration": 1800},
                      {"date": "2026-11-20T12:00:00-08:00"}]},
         {"app": "com.example.weather", "widgetKind": "weather",
          "configuration": {"intent": "CheckWeatherIntent", "parameters": {"location": {"id": "cupertino", "display": "Cupertino"}}},
          "entries": [{"date": 1795705200, "score": 1}]}]
        """
        let timelines = try WidgetTimelineCodec.decode(text)
        #expect(timelines.map(\.widget) == [Talk.purchases, Talk.weather])
        #expect(timelines[0].entries == [TimelineEntry(date: Day.at(8, 15), score: 0), TimelineEntry(date: Day.at(9, 41), score: 52.6, duration: 1800),
                                         TimelineEntry(date: Day.at(12), relevance: nil)])
        for timeline in timelines {
            #expect(try WidgetTimelineCodec.decode(WidgetTimelineCodec.encode(timeline, utcOffset: Day.offset)) == [timeline])
        }
    }

    @Test(arguments: [
        (#"{"app": "a", "widgetKind": "w", "entries": [{"date": "2026-11-20T08:15:00Z", "score": -2}]}"#, "entries[0].score: must be >= 0, found -2.0"),
        (#"{"app": "a", "widgetKind": "w", "entries": [{"date": "2026-11-20T08:15:00Z", "duration": 60}]}"#,
         #"entries[0].duration: needs a "score" (an entry without score carries no relevance)"#),
        (#"[{"app": "a", "widgetKind": "w"}]"#, "[0].entries: missing (required)"),
        (#"{"app": "a", "widgetKind": "w", "entries": [{"score": 1}]}"#, "entries[0].date: missing (required)"),
        (#"{"app": "a", "widgetKind": "w", "entries": [{"date": "2026-11-20T08:15:00Z", "score": "high"}]}"#, "entries[0].score: must be a number, found a string"),
        // Issue 16: every number is bounded at the codec (a huge duration crashed `stack`; a huge score printed as inf).
        (#"{"app": "a", "widgetKind": "w", "entries": [{"date": "2026-11-20T08:15:00Z", "score": 1, "duration": 1e19}]}"#,
         "entries[0].duration: 1e+19 seconds from the start ends outside the supported years 1970-2200 (UTC)"),
        (#"{"app": "a", "widgetKind": "w", "entries": [{"date": "2026-11-20T08:15:00Z", "score": 1.79e308}]}"#,
         "entries[0].score: must be at most 1000000000000.0, found 1.79e+308"),
        (#"{"app": "a", "widgetKind": "w\u0000x", "entries": []}"#,
         "widgetKind: must not contain control characters (found U+0000 at character 2)"),
        (#"{"app": "com.b/news", "widgetKind": "top", "entries": []}"#,
         "app: a bundle identifier is printable ASCII without '/' or spaces (found '/' at character 6)"),
    ])
    func timelineErrors(text: String, expected: String) {
        expectDeclarationError(expected, input: text) { () throws(DeclarationError) in _ = try WidgetTimelineCodec.decode(text) }
    }
}
