import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

/// Issue 14: routines 35 minutes apart, "after X" that fades with its age, and the activity level.
@Suite("Minute-level routines, fading previous target, activity level")
struct RoutineClockTests {
    static let weather = Fixtures.target("weather:CheckWeatherIntent")
    static let coffee = Fixtures.target("coffee:OrderCoffeeIntent")
    static let reading = Fixtures.target("books:ReadBookIntent")

    /// Six weeks from a Monday: weather every day at about 07:05, coffee on weekdays at about
    /// 07:40, reading every evening at about 21:30 (each uniform within ±12 minutes).
    static func events() -> [Event] {
        var random = SeededGenerator(seed: 14)
        var events: [Event] = []
        for day in 0 ..< 42 {
            func at(_ hour: Double) -> Double { hour + (random.unit() - 0.5) * 0.4 }
            events.append(Fixtures.event(weather.rawValue, day: day, hour: at(7 + 5 / 60)))
            if day % 7 < 5 { events.append(Fixtures.event(coffee.rawValue, day: day, hour: at(7 + 40 / 60))) }
            events.append(Fixtures.event(reading.rawValue, day: day, hour: at(21.5)))
        }
        return events
    }

    static let model: BlendModel = try! BlendTrainer().fit(TrainingSet(events: events()))

    /// A week after the log ends: day 49 is a Monday, day 54 a Saturday.
    @Test func weekdayMorningPutsCoffeeFirst() {
        let scores = Self.model.scores(at: Fixtures.moment(day: 49, hour: 7 + 38 / 60))
        #expect(scores.first?.target == Self.coffee, "\(scores.prefix(3))")
    }

    /// Asked just before the weather's time (07:00): at 07:38 the weather's window (07:05 ± 12 minutes) has
    /// passed on every past day, so a rate at that minute says nothing comes (a habit whose time
    /// has passed is over for the day, not overdue); what must hold is that Saturday is not a coffee day.
    @Test func saturdayMorningPutsWeatherFirst() {
        let scores = Self.model.scores(at: Fixtures.moment(day: 54, hour: 7))
        #expect(scores.first?.target == Self.weather, "\(scores.prefix(3))")
    }

    @Test func eveningPutsReadingFirst() {
        let scores = Self.model.scores(at: Fixtures.moment(day: 49, hour: 21 + 25 / 60))
        #expect(scores.first?.target == Self.reading, "\(scores.prefix(3))")
    }

    /// Last evening's reading, a week old, is no longer "the previous target".
    @Test func aWeekOldPreviousTargetGivesNoAfterReason() {
        let moment = Fixtures.moment(day: 49, hour: 7 + 38 / 60)
        for target in [Self.coffee, Self.weather] {
            let reasons = Self.model.reasons(for: target, at: moment, describe: { $0.rawValue })
            #expect(!reasons.contains { $0.kind == .previous }, "\(reasons.map(\.text))")
        }
        #expect(Self.model.transitionFeature(gap: 7 * 86_400) == nil)
        #expect(Self.model.transitionFeature(gap: 10 * 3600) == .transitionOvernight)
        #expect(Self.model.transitionFeature(gap: 3600) == .transitionStale)
        #expect(Self.model.transitionFeature(gap: 60) == .transitionRecent)
    }

    /// Never active at night: the level is about 0 between 01:00 and 05:00, 1 at usual times,
    /// and 1 right after a use at any hour.
    @Test func activityLevelFollowsWhenTheUserActs() {
        for hour in stride(from: 1.0, through: 5.0, by: 0.5) {
            let level = Self.model.activity(at: Fixtures.moment(day: 50, hour: hour))
            #expect(level < 0.02, "at \(hour): \(level)")
        }
        #expect(Self.model.activity(at: Fixtures.moment(day: 49, hour: 7 + 38 / 60)) == 1)
        #expect(Self.model.activity(at: Fixtures.moment(day: 54, hour: 7.1)) == 1)
        #expect(Self.model.activity(at: Fixtures.moment(day: 49, hour: 21.5)) == 1)
        let justUsed = Fixtures.moment(day: 50, hour: 2, recent: [Fixtures.event(Self.weather.rawValue, day: 50, hour: 2 - 2 / 60)])
        #expect(Self.model.activity(at: justUsed) > 0.85)
    }

    /// Asked about a past night, "right after a use" is a use at or before that moment, not the newest one.
    @Test func activityLevelOfAPastMomentReadsItsOwnLastUse() {
        var model = Self.model
        model.update(with: Fixtures.event(Self.weather.rawValue, day: 20, hour: 2 - 2 / 60))
        #expect(model.activity(at: Fixtures.moment(day: 20, hour: 2)) > 0.85)
        #expect(model.activity(at: Fixtures.moment(day: 19, hour: 2)) < 0.2)  // the same hour a day before the use
    }

    /// The activity level survives saving, and unlearning every event of a day restores it exactly.
    @Test func activityLevelIsSavedAndUnlearned() throws {
        let restored = try BlendModel(serialized: Self.model.serialized())
        let night = Fixtures.moment(day: 50, hour: 3)
        #expect(restored.activity(at: night) == Self.model.activity(at: night))
        var model = Self.model
        let extra = Fixtures.event(Self.weather.rawValue, day: 41, hour: 3)
        model.update(with: extra)
        #expect(model.activity(at: Fixtures.moment(day: 48, hour: 3)) > Self.model.activity(at: Fixtures.moment(day: 48, hour: 3)))
        let removed = model.remove(extra)
        #expect(removed)
        let probe = Fixtures.moment(day: 48, hour: 3)
        #expect(abs(model.activity(at: probe) - Self.model.activity(at: probe)) < 1e-12)
    }
}
