import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

// MARK: - No Focus, learned by the blend

@Suite("Blend: no Focus")
struct NoFocusTests {
    /// 120 days (from a Monday): on weekdays the work Focus is on from 09:00 to 17:00, except every fifth
    /// weekday (a day off, no Focus all day); the journal is written at about 14:30 on work days only,
    /// always in the Focus; the trains app is opened about three times a day at random, in the Focus
    /// when it is on.
    static func events() -> [Event] {
        var random = SeededGenerator(seed: 11)
        var events: [Event] = []
        var weekdays = 0
        for day in 0 ..< 120 {
            let weekday = day % 7 < 5
            if weekday { weekdays += 1 }
            let working = weekday && weekdays % 5 != 0
            func context(_ hour: Double) -> [String: String] { working && (9 ..< 17).contains(hour) ? ["focus": "work"] : [:] }
            if working {
                let hour = 14.5 + (random.unit() - 0.5) / 6
                events.append(Fixtures.event("journal", day: day, hour: hour, context: context(hour)))
            }
            for _ in 0 ..< 3 {
                let hour = 8 + 14 * random.unit()
                events.append(Fixtures.event("trains", day: day, hour: hour, context: context(hour)))
            }
        }
        return events
    }

    /// Asked at 14:20 on weekdays after the log: in the work Focus the journal leads; with no Focus (a
    /// day off) the trains app does, though the journal's time and weekday are the same both days.
    @Test func aHabitDoneOnlyInAFocusIsNotFirstWithoutIt() throws {
        let model = try BlendTrainer().fit(TrainingSet(events: Self.events()))
        let journal = Fixtures.target("journal"), trains = Fixtures.target("trains")
        for day in [120, 121, 122] {   // Tuesday to Thursday after the log (day 0 is a Monday)
            let inFocus = model.distribution(at: Fixtures.moment(day: day, hour: 14 + 1 / 3.0, context: ["focus": "work"]))
            let noFocus = model.distribution(at: Fixtures.moment(day: day, hour: 14 + 1 / 3.0))
            #expect(inFocus.probability(of: journal) > inFocus.probability(of: trains), "day \(day), in the Focus")
            #expect(noFocus.probability(of: trains) > noFocus.probability(of: journal), "day \(day), no Focus")
        }
    }
}
