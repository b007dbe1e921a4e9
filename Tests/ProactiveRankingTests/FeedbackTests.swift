import Foundation
import ProactiveCore
import ProactiveModels
import Testing
@testable import ProactiveRanking

@Suite struct FeedbackTests {
    let weather = Talk.weatherTarget

    func ranker(_ events: [FeedbackEvent], declarations: Declarations = Declarations()) -> Ranker {
        Ranker(declarations: declarations, feedback: FeedbackIndex(events), targets: Talk.targets)
    }

    // MARK: Dismissals

    @Test func notNowLowersATargetForAWhile() throws {
        let dismiss = try FeedbackEvent.make(date: Day.at(8), kind: .dismiss, scope: .target(weather.key), app: weather.app)
        let ranker = ranker([dismiss])
        let before = ranker.targetSignals(weather.key, probability: 0.7, moment: Day.moment(7, 59))
        let right = ranker.targetSignals(weather.key, probability: 0.7, moment: Day.moment(8))
        let later = ranker.targetSignals(weather.key, probability: 0.7, moment: Day.moment(12))
        let muchLater = ranker.targetSignals(weather.key, probability: 0.7, moment: Moment(date: Day.at(8).addingTimeInterval(3 * 86_400)))
        #expect(before.dismissal == 1)
        #expect(abs(right.dismissal - 0.2) < 1e-12)                    // 1 - strength
        #expect(abs(later.dismissal - (1 - 0.8 * 0.5)) < 1e-12)        // one half-life (4 h) later
        #expect(muchLater.dismissal == 1)                               // forgotten after 16 half-lives
        #expect(right.score(.standard) < later.score(.standard))
    }

    // MARK: Never

    @Test func neverPerTargetPerAppAndPerContextUntilUndone() throws {
        let perTarget = try FeedbackEvent.make(date: Day.at(8), kind: .never, scope: .target(weather.key), app: weather.app)
        let undo = try FeedbackEvent.make(date: Day.at(10), kind: .undoNever, scope: .target(weather.key), app: weather.app)
        let mailAtWork = try FeedbackEvent.make(date: Day.at(8), kind: .never, scope: .app("com.example.mail"), context: ["focus": "work"])
        let ranker = ranker([perTarget, undo, mailAtWork])
        #expect(ranker.targetSignals(weather.key, probability: 0.7, moment: Day.moment(9)).block == .never(perTarget.rule))
        #expect(ranker.targetSignals(weather.key, probability: 0.7, moment: Day.moment(10)).block == nil)
        let mail = Talk.mailTarget.key
        #expect(ranker.targetSignals(mail, probability: 0.5, moment: Day.moment(9, context: ["focus": "work"])).block != nil)
        #expect(ranker.targetSignals(mail, probability: 0.5, moment: Day.moment(9, context: ["focus": "personal"])).block == nil)
        #expect(ranker.feedback.activeRules(at: Day.at(9)).map(\.description) == ["app:com.example.mail when focus=work", "target:\(weather.key)"])
    }

    @Test func kindsThatNeedAnItemRejectAppScope() {
        #expect(throws: FeedbackError.self) { try FeedbackEvent.make(date: Day.at(8), kind: .dismiss, scope: .app("com.example.mail")) }
        #expect(throws: FeedbackError(reason: "feedback about a target needs its app")) {
            try FeedbackEvent.make(date: Day.at(8), kind: .tap, scope: .target(weather.key))
        }
    }

    // MARK: Engagement

    @Test func aTapCountsAsADonation() throws {
        let tap = try FeedbackEvent.make(date: Day.at(7, 5), kind: .tap, scope: .target(weather.key), app: weather.app, context: ["focus": "personal"],
                                         action: WidgetConfiguration(intent: weather.intent, parameters: weather.parameters))
        let donation = try #require(tap.donation(user: "u1", utcOffset: Day.offset))
        #expect(donation == Donation(user: "u1", app: weather.app, intent: "CheckWeatherIntent", parameters: weather.parameters, date: Day.at(7, 5),
                                     utcOffset: Day.offset, context: ["focus": "personal"]))
        #expect(TargetResolver().target(for: donation).key == weather.key)
        let widgetTap = try FeedbackEvent.make(date: Day.at(9), kind: .tap, scope: .widget(Talk.calendar))
        #expect(widgetTap.donation(user: "u1")?.intent == Donation.openIntent)      // static widget: a launch
        let impression = try FeedbackEvent.make(date: Day.at(9), kind: .impression, scope: .widget(Talk.calendar))
        #expect(impression.donation(user: "u1") == nil)
    }

    @Test func impressionsWithoutUseTireAnItemUntilItIsUsed() throws {
        let scope = FeedbackScope.target(weather.key)
        var events = try (0..<4).map { try FeedbackEvent.make(date: Day.at(7, $0), kind: .impression, scope: scope, app: weather.app) }
        let ranker1 = ranker(events)
        let tired = ranker1.targetSignals(weather.key, probability: 0.7, moment: Day.moment(8))
        #expect(tired.impressions == 4 && abs(tired.fatigue - pow(0.95, 4)) < 1e-12)
        events.append(try FeedbackEvent.make(date: Day.at(7, 30), kind: .tap, scope: scope, app: weather.app))
        #expect(ranker(events).targetSignals(weather.key, probability: 0.7, moment: Day.moment(8)).fatigue == 1)
    }

    // MARK: Used windows

    @Test func aUsedWindowDoesNotComeBackInsideTheSameWindow() throws {
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: Talk.calendar.app, shortcuts: [
            RelevantShortcut(widget: Talk.calendar, providers: [.date(start: Day.at(9, 30), end: Day.at(10, 30)),
                                                                .date(start: Day.at(14), end: Day.at(15))]),
        ], declaredAt: Day.at(0)))
        let tap = try FeedbackEvent.make(date: Day.at(9, 45), kind: .tap, scope: .widget(Talk.calendar))
        let ranker = ranker([tap], declarations: declarations)
        let before = ranker.widgetSignals(Talk.calendar, probability: 0, timeline: false, moment: Day.moment(9, 40))
        let after = ranker.widgetSignals(Talk.calendar, probability: 0, timeline: false, moment: Day.moment(9, 50))
        let nextWindow = ranker.widgetSignals(Talk.calendar, probability: 0, timeline: false, moment: Day.moment(14, 10))
        #expect(before.window != nil && before.score(.standard) == 0.9)
        #expect(after.window == nil && after.usedWindow != nil && after.score(.standard) == 0)
        #expect(after.why(.standard, utcOffset: Day.offset) == "no relevance; window 09:30–10:30 already used")
        #expect(nextWindow.window == DateInterval(start: Day.at(14), end: Day.at(15)))
    }

    @Test func newContentShowsAtTheUsualTimeUntilUsed() throws {
        let balance = WidgetID(app: "com.example.weather", kind: "forecast")
        var declarations = Declarations()
        declarations.shortcuts.replace(RelevantShortcutSet(app: balance.app, shortcuts: [RelevantShortcut(widget: balance)], declaredAt: Day.at(5)))
        let usage = AppUsageProfile.sample(Talk.model(), apps: [balance.app], dayStart: Day.midnight, utcOffset: Day.offset)
        let tap = try FeedbackEvent.make(date: Day.at(8), kind: .tap, scope: .widget(balance))
        let ranker = Ranker(declarations: declarations, feedback: FeedbackIndex([tap]), targets: Talk.targets, usage: usage)
        #expect(ranker.widgetSignals(balance, probability: 0, timeline: false, moment: Day.moment(4)).newContent == 0)     // not declared yet
        let morning = ranker.widgetSignals(balance, probability: 0, timeline: false, moment: Day.moment(7, 30))
        #expect(morning.newContent == 1 && morning.newContentSince == Day.at(5))
        #expect(abs(morning.score(.standard) - 0.6) < 1e-12)
        #expect(ranker.widgetSignals(balance, probability: 0, timeline: false, moment: Day.moment(8, 30)).newContent == 0)  // used at 08:00
        let unused = Ranker(declarations: declarations, targets: Talk.targets, usage: usage)
        #expect(unused.widgetSignals(balance, probability: 0, timeline: false, moment: Day.moment(12, 30)).newContent < 0.1)  // not its usual time
    }
}

@Suite struct FeedbackCodecTests {
    @Test func eventsRoundTripThroughJSON() throws {
        let events = [
            try FeedbackEvent.make(date: Day.at(9, 45), kind: .tap, scope: .target(Talk.weatherTarget.key), app: Talk.weatherTarget.app,
                                   context: ["focus": "work"], action: WidgetConfiguration(intent: "CheckWeatherIntent", parameters: ["location": Talk.cupertino])),
            try FeedbackEvent.make(date: Day.at(9, 31), kind: .dismiss, scope: .widget(Talk.weather)),
            try FeedbackEvent.make(date: Day.at(8), kind: .never, scope: .app("com.example.mail"), context: ["focus": "work"]),
            try FeedbackEvent.make(date: Day.at(8), kind: .tap, scope: .widget(Talk.weather)),
        ]
        #expect(events[3].action == Talk.weather.configuration)             // a widget tap runs its configuration
        for event in events {
            #expect(try FeedbackCodec.decode(FeedbackCodec.encode(event, utcOffset: Day.offset)) == event)
        }
        #expect(FeedbackCodec.encode(events[2], utcOffset: Day.offset)
            == #"{"date":"2026-11-20T08:00:00-08:00","kind":"never","app":"com.example.mail","context":{"focus":"work"}}"#)
    }

    @Test(arguments: [
        (#"{"date": "2026-11-20T08:00:00Z", "kind": "like", "app": "a"}"#, #"kind: must be one of impression, tap, dismiss, never, undo-never, found "like""#),
        (#"{"date": "2026-11-20T08:00:00Z", "kind": "tap"}"#, #"target: missing: feedback needs a "target", a "widget" or an "app""#),
        (#"{"date": "2026-11-20T08:00:00Z", "kind": "dismiss", "app": "a"}"#,
         "dismiss is about one target or widget, not a whole app (use never/undo-never for apps)"),
        (#"{"date": "2026-11-20T08:00:00Z", "kind": "dismiss", "target": "a:b", "app": "a", "action": {"intent": "b"}}"#, "action: only a tap carries an action"),
        // Issue 16: a key cut at a NUL would read back as another target or app.
        (#"{"date": "2026-11-20T08:00:00Z", "kind": "dismiss", "target": "a:b\u0000c", "app": "a"}"#,
         "target: must not contain control characters (found U+0000 at character 4)"),
        (#"{"date": "2026-11-20T08:00:00Z", "kind": "never", "app": "victim\u0000x"}"#,
         "app: must not contain control characters (found U+0000 at character 7)"),
    ])
    func errors(text: String, expected: String) {
        expectDeclarationError(expected, input: text) { () throws(DeclarationError) in _ = try FeedbackCodec.decode(text) }
    }
}
