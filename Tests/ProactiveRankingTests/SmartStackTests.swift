import Foundation
import ProactiveCore
import ProactiveModels
import Testing
@testable import ProactiveRanking

/// docs/DOMAIN.md 3 and 4 played out on the talks' day.
@Suite struct SmartStackTests {
    func simulate(_ stack: SmartStack, declarations: Declarations, feedback: [FeedbackEvent] = [], model: HourlyModel = Talk.model(),
                  configuration: FusionConfiguration = .standard, from start: Date = Day.midnight, to end: Date = Day.at(24)) -> StackSimulation {
        let ranker = Ranker(configuration: configuration, declarations: declarations, feedback: FeedbackIndex(feedback), targets: Talk.targets)
        return DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffset: Day.offset).run(stack, model: model, from: start, to: end)
    }

    /// (start HH:MM, top kind, reason) of each span.
    func outline(_ simulation: StackSimulation) -> [String] {
        simulation.spans.map { "\(RelevanceSignals.clock($0.start, Day.offset)) \($0.top.kind) \($0.reason.rawValue)" }
    }

    func events(_ simulation: StackSimulation) -> [String] {
        simulation.events.map { event in
            let time = RelevanceSignals.clock(event.date, Day.offset)
            switch event.change {
            case let .rotated(from, to): return "\(time) rotate \(from.kind)->\(to.kind)"
            case let .inserted(widget): return "\(time) insert \(widget.kind)"
            case let .removed(widget): return "\(time) remove \(widget.kind)"
            }
        }
    }

    // MARK: The talks' day

    @Test func theTalksDay() throws {
        let stack = SmartStack(widgets: [Talk.weather, Talk.reminders])
        let day = simulate(stack, declarations: try Talk.declarations())
        #expect(outline(day) == [
            "00:00 weather resting",
            "06:00 weather rotated",      // checks the weather right after waking (model)
            "09:00 weather resting",
            "09:30 calendar inserted",    // a widget not in the stack, for the 10:00 meeting
            "10:30 weather resting",      // removed after the meeting: back to the original state
            "15:00 reminders rotated",    // the reminder due at 15:00 (timeline)
            "16:00 reminders resting",
            "18:00 weather rotated",      // rain from 18:00 (timeline)
            "20:00 weather resting",
        ])
        #expect(events(day) == ["09:30 insert calendar", "10:30 remove calendar", "15:00 rotate weather->reminders",
                                "18:00 rotate reminders->weather"])
        let insertion = try #require(day.events.first { if case .inserted = $0.change { return true } else { return false } })
        #expect(insertion.why == ["score 0.9", "window 09:30–10:30", "until 10:30"])
        #expect(insertion.text == "score 0.9: window 09:30–10:30; until 10:30")
        let evening = try #require(day.spans.first { RelevanceSignals.clock($0.start, Day.offset) == "18:00" })
        #expect(evening.why.first == "timeline 1 (100% of its best) since 18:00 until 20:00")
        #expect(day.rows == [Talk.weather, Talk.reminders, Talk.calendar])
        #expect(day.steps.count == 1440 && day.topRow.count == 1440)
    }

    @Test func aPurchaseSuggestsRecentPurchasesForHalfAnHour() throws {
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: Talk.purchases.app, shortcuts: [
            RelevantShortcut(widget: Talk.purchases, role: .information, providers: [.date(start: Day.at(9, 41), end: Day.at(9, 41).addingTimeInterval(1800))]),
        ], declaredAt: Day.at(9, 41)))
        let day = simulate(SmartStack(widgets: [Talk.weather, Talk.reminders]), declarations: declarations)
        #expect(events(day) == ["09:41 insert recentPurchases", "10:11 remove recentPurchases"])
        let minute = { (hour: Int, minute: Int) in day.rows[day.topRow[(hour * 60 + minute)]].kind }
        #expect(minute(9, 40) == "weather" && minute(9, 41) == "recentPurchases" && minute(10, 10) == "recentPurchases" && minute(10, 11) == "weather")
    }

    @Test func aPurchaseDuringTheMeetingWindowIsInsertedAlongsideTheCalendar() throws {
        var declarations = try Talk.declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: Talk.purchases.app, shortcuts: [
            RelevantShortcut(widget: Talk.purchases, role: .information, providers: [.date(start: Day.at(9, 41), end: Day.at(10, 11))]),
        ], declaredAt: Day.at(9, 41)))
        let day = simulate(SmartStack(widgets: [Talk.weather, Talk.reminders]), declarations: declarations)
        #expect(events(day).prefix(4) == ["09:30 insert calendar", "09:41 insert recentPurchases", "10:11 remove recentPurchases", "10:30 remove calendar"])
        let during = try #require(day.spans.first { RelevanceSignals.clock($0.start, Day.offset) == "09:41" })
        #expect(during.top == Talk.calendar && during.inserted == [Talk.calendar, Talk.purchases])   // equal scores: the one on top stays
        let purchasesRow = try #require(day.rows.firstIndex(of: Talk.purchases))
        #expect(day.insertedRows[purchasesRow][9 * 60 + 40] == false && day.insertedRows[purchasesRow][9 * 60 + 41])
        #expect(day.insertedRows[purchasesRow][10 * 60 + 10] && !day.insertedRows[purchasesRow][10 * 60 + 11])
    }

    @Test func redeclaringTheSetWithoutAShortcutWithdrawsItImmediately() throws {
        var declarations = try Talk.declarations()
        let stack = SmartStack(widgets: [Talk.weather, Talk.reminders])
        let engine = { (declarations: Declarations) in SmartStackEngine(ranker: Ranker(declarations: declarations, targets: Talk.targets)) }
        var state = StackState()
        let model = Talk.model()
        let at945 = Day.moment(9, 45)
        #expect(engine(declarations).step(stack, scores: model.scores(at: at945), moment: at945, state: &state).top == Talk.calendar)
        // The meeting is cancelled: the calendar app declares its set again, without it.
        declarations.shortcuts.replace(RelevantShortcutSet(app: Talk.calendar.app, shortcuts: [], declaredAt: Day.at(9, 46)))
        let at946 = Day.moment(9, 46)
        let decision = engine(declarations).step(stack, scores: model.scores(at: at946), moment: at946, state: &state)
        #expect(decision.changes == [.removed(Talk.calendar)])
        #expect(decision.top == Talk.weather && state.inserted.isEmpty)
    }

    @Test func locationAndDailyRoutineProvidersDoNotDriveWidgetSuggestions() throws {
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: Talk.purchases.app, shortcuts: [
            RelevantShortcut(widget: Talk.purchases, providers: [.location(latitude: 37.33, longitude: -122.01, radius: 150, identifier: "store"),
                                                                 .dailyRoutine(situation: "morning")]),
        ], declaredAt: Day.at(0)))
        let ranker = Ranker(declarations: declarations, targets: Talk.targets)
        #expect(ranker.suggestibleWidgets.isEmpty)                          // stored, but watch-face only
        let day = simulate(SmartStack(widgets: [Talk.reminders]), declarations: declarations)
        #expect(day.events.isEmpty)
    }

    @Test func theFocusFilterKeepsAWidgetOutOfTheStack() throws {
        let workApps: Set<String> = [Talk.calendar.app]
        let gate = ClosureFocusGate { candidate, focus, _ in focus != "personal" || !workApps.contains(candidate.app) }
        let ranker = Ranker(declarations: try Talk.declarations(), targets: Talk.targets, focusGate: gate)
        let engine = SmartStackEngine(ranker: ranker)
        let stack = SmartStack(widgets: [Talk.weather, Talk.reminders])
        for (focus, inserted) in [("work", [Talk.calendar]), ("personal", [])] {
            var state = StackState()
            let moment = Day.moment(9, 45, context: ["focus": focus])
            let decision = engine.step(stack, scores: Talk.model().scores(at: moment), moment: moment, state: &state)
            #expect(decision.inserted.map(\.widget) == inserted, "focus \(focus)")
        }
        // Through a day whose Focus changes: the calendar comes in when Work starts at 09:40.
        let workStarts = Day.at(9, 40)
        let day = DaySimulation(engine: engine, utcOffset: Day.offset, contextAt: { ["focus": $0 < workStarts ? "personal" : "work"] })
            .run(stack, model: Talk.model(), from: Day.at(9), to: Day.at(11))
        #expect(events(day) == ["09:40 insert calendar", "10:30 remove calendar"])
        let blocked = ranker.widgetSignals(Talk.calendar, probability: 0, timeline: false, moment: Day.moment(9, 45, context: ["focus": "personal"]))
        #expect(blocked.why(.standard, utcOffset: Day.offset) == "filtered out by the personal Focus")
    }

    // MARK: Settings

    @Test func settingsTurnEachSurfaceOff() throws {
        let declarations = try Talk.declarations()
        let noRotate = simulate(SmartStack(widgets: [Talk.weather, Talk.reminders], settings: StackSettings(smartRotate: false)), declarations: declarations)
        #expect(outline(noRotate) == ["00:00 weather resting", "09:30 calendar inserted", "10:30 weather resting"])
        let noSuggestions = simulate(SmartStack(widgets: [Talk.weather, Talk.reminders], settings: StackSettings(widgetSuggestions: false)),
                                     declarations: declarations)
        #expect(!noSuggestions.spans.contains { $0.reason == .inserted })
        #expect(noSuggestions.spans.contains { $0.top == Talk.reminders })
    }

    @Test func developerModeListsEveryCandidateAndLiftsTheFloor() throws {
        let stack = SmartStack(widgets: [Talk.weather, Talk.reminders], settings: StackSettings(developerMode: true))
        let ranker = Ranker(declarations: try Talk.declarations(), targets: Talk.targets)
        var state = StackState(rotation: Talk.reminders, rotatedAt: Day.at(12))
        let moment = Day.moment(12, 5)
        let decision = SmartStackEngine(ranker: ranker).step(stack, scores: Talk.model().scores(at: moment), moment: moment, state: &state)
        #expect(decision.candidates.map(\.widget) == [Talk.weather, Talk.reminders, Talk.calendar])   // every candidate, best first
        #expect(decision.candidates[0].score > 0 && decision.candidates[0].score < 0.3)                 // below the normal floor...
        #expect(decision.changes == [.rotated(from: Talk.reminders, to: Talk.weather)])                  // ...yet rotated, no dwell
        var normalState = StackState(rotation: Talk.reminders, rotatedAt: Day.at(12))
        let normal = SmartStackEngine(ranker: ranker).step(SmartStack(widgets: stack.widgets), scores: Talk.model().scores(at: moment), moment: moment, state: &normalState)
        #expect(normal.changes.isEmpty && normal.top == Talk.reminders && normal.reason == .resting)
    }

    // MARK: Stability and rate limits

    @Test func rotationHasHysteresisAndAMinimumDwell() throws {
        // Two widgets whose timelines alternate by a hair every minute.
        var entriesA: [TimelineEntry] = []
        var entriesB: [TimelineEntry] = []
        for minute in 0..<60 {
            entriesA.append(TimelineEntry(date: Day.at(12, minute), score: minute % 2 == 0 ? 1.0 : 0.95))
            entriesB.append(TimelineEntry(date: Day.at(12, minute), score: minute % 2 == 0 ? 0.95 : 1.0))
        }
        let a = WidgetID(app: "a", kind: "a")
        let b = WidgetID(app: "b", kind: "b")
        let declarations = Declarations(timelines: WidgetTimelineRegistry([try WidgetTimeline(widget: a, entries: entriesA),
                                                                            try WidgetTimeline(widget: b, entries: entriesB)]))
        let day = simulate(SmartStack(widgets: [b, a]), declarations: declarations, from: Day.at(12), to: Day.at(13))
        #expect(outline(day) == ["12:00 b rotated"])                    // b (on top, sticky) stays the whole hour
        #expect(day.events.isEmpty)
        // Without hysteresis and dwell the stack would flip every minute.
        var jumpy = FusionConfiguration()
        jumpy.hysteresis = 0
        jumpy.minimumDwell = 0
        let flipping = simulate(SmartStack(widgets: [b, a]), declarations: declarations, configuration: jumpy, from: Day.at(12), to: Day.at(13))
        #expect(flipping.events.count == 60)
        // Dwell alone: at most one rotation per 15 minutes.
        var dwellOnly = jumpy
        dwellOnly.minimumDwell = 15 * 60
        let dwelling = simulate(SmartStack(widgets: [b, a]), declarations: declarations, configuration: dwellOnly, from: Day.at(12), to: Day.at(13))
        #expect(events(dwelling) == ["12:00 rotate b->a", "12:15 rotate a->b", "12:30 rotate b->a", "12:45 rotate a->b"])
    }

    @Test func insertionsPerDayAreCapped() throws {
        var configuration = FusionConfiguration()
        configuration.maximumInsertionsPerDay = 2
        let windows = (0..<4).map { RelevanceProvider.date(start: Day.at(8 + 2 * $0), end: Day.at(9 + 2 * $0)) }
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: Talk.purchases.app, shortcuts: [RelevantShortcut(widget: Talk.purchases, providers: windows)],
                                                           declaredAt: Day.at(0)))
        let ranker = Ranker(configuration: configuration, declarations: declarations, targets: Talk.targets)
        let simulation = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffset: Day.offset)
        let day = simulation.run(SmartStack(widgets: [Talk.reminders]), model: Talk.model(), from: Day.midnight, to: Day.at(24))
        #expect(events(day) == ["08:00 insert recentPurchases", "09:00 remove recentPurchases", "10:00 insert recentPurchases", "11:00 remove recentPurchases"])
        let developer = simulation.run(SmartStack(widgets: [Talk.reminders], settings: StackSettings(developerMode: true)), model: Talk.model(),
                                       from: Day.midnight, to: Day.at(24))
        #expect(developer.events.count == 8)
    }

    // MARK: docs/DOMAIN.md 4.3

    @Test func donationsOfAConfigurationIntentDriveRotateAndSuggestions() throws {
        let definitions = try IntentDefinitionSet([IntentDefinition(
            app: "com.example.weather", name: "CheckWeatherIntent", parameters: [ParameterDefinition(name: "location", type: .entity(type: "City"))],
            combinations: [ParameterCombination(parameters: ["location"], summary: "Weather in ${location}")], widgetKind: "weather")])
        let ranker = Ranker(targets: Talk.targets, resolver: TargetResolver(definitions: definitions))
        #expect(ranker.suggestibleWidgets == [Talk.weather])
        let engine = SmartStackEngine(ranker: ranker)
        let moment = Day.moment(7)
        // Not in the stack: inserted on the strength of the prediction alone.
        var state = StackState()
        let inserted = engine.step(SmartStack(widgets: [Talk.reminders]), scores: Talk.model().scores(at: moment), moment: moment, state: &state)
        #expect(inserted.changes == [.inserted(Talk.weather)] && inserted.inserted.map(\.expectedEnd) == [nil])
        #expect(inserted.topSignals.why(.standard, utcOffset: Day.offset) == "predicted 70% now")
        // In the stack: rotated to.
        state = StackState()
        let rotated = engine.step(SmartStack(widgets: [Talk.reminders, Talk.weather]), scores: Talk.model().scores(at: moment), moment: moment, state: &state)
        #expect(rotated.changes == [.rotated(from: Talk.reminders, to: Talk.weather)] && rotated.reason == .rotated)
    }

    // MARK: Across a DST change

    @Test func reasonsShowEachInstantOnTheClockInForceThen() throws {
        // 2026-11-01 in Los Angeles: 25 hours, -07:00 until 02:00, then -08:00.
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let start = try Date(timeIntervalSince1970: Timestamp.parse("2026-11-01T00:00:00-07:00").secondsSince1970)
        let end = try Date(timeIntervalSince1970: Timestamp.parse("2026-11-02T00:00:00-08:00").secondsSince1970)
        let rainFrom = try Date(timeIntervalSince1970: Timestamp.parse("2026-11-01T01:00:00-07:00").secondsSince1970)
        let rainUntil = try Date(timeIntervalSince1970: Timestamp.parse("2026-11-01T23:30:00-08:00").secondsSince1970)
        var declarations = Declarations()
        declarations.timelines.replace(try WidgetTimeline(widget: Talk.weather, entries: [
            TimelineEntry(date: start, score: 0),
            TimelineEntry(date: rainFrom, score: 1, duration: rainUntil.timeIntervalSince(rainFrom)),
        ]))
        let ranker = Ranker(configuration: .standard, declarations: declarations, feedback: FeedbackIndex([]), targets: Talk.targets)
        let day = DaySimulation(engine: SmartStackEngine(ranker: ranker), utcOffsetAt: { zone.secondsFromGMT(for: $0) }, contextAt: { _ in [:] })
            .run(SmartStack(widgets: [Talk.reminders, Talk.weather]), model: Talk.model(), from: start, to: end)
        let rain = try #require(day.spans.first { $0.start == rainFrom })
        #expect(rain.top == Talk.weather)
        #expect(rain.text.contains("since 01:00 until 23:30"), "\(rain.why)")
    }
}
