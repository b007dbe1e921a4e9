import Foundation
@testable import ProactiveModels
import ProactiveCore
import Testing

/// Each reason is a checkable statement about the user's data: the habit's own
/// time, recency within a stated span, frequency as a count.
@Suite("Reasons that are true")
struct TrueReasonsTests {
    /// Five weeks: weather at 06:45 (+-5 min) every day, news at 07:40; a podcast used daily three months before.
    static func log() -> [Event] {
        var events: [Event] = []
        for day in 0 ..< 20 { events.append(Fixtures.event("podcast", day: day, hour: 7.5)) }
        for day in 90 ..< 125 {
            events.append(Fixtures.event("weather", day: day, hour: 6.75 + Double(day % 3 - 1) * 5 / 60))
            events.append(Fixtures.event("news", day: day, hour: 7 + 40.0 / 60))
        }
        return events
    }

    /// The reasons of several targets asked at once are each target's own, in the order asked (an
    /// unknown target has none).
    @Test func reasonsOfSeveralTargetsAreEachTargetsOwn() throws {
        let model = try BlendTrainer().fit(TrainingSet(events: Self.log()))
        let moment = Fixtures.moment(day: 125, hour: 7.5)
        let asked = model.space.targets.reversed() + [Fixtures.target("never-used")]
        let together = model.reasons(for: Array(asked), at: moment, describe: { $0.rawValue }, limit: 3)
        #expect(together.count == asked.count)
        for (target, reasons) in zip(asked, together) {
            #expect(reasons == model.reasons(for: target, at: moment, describe: { $0.rawValue }, limit: 3), "\(target)")
        }
        #expect(together.last == [])
        #expect(together.contains { !$0.isEmpty })
    }

    @Test func theHabitsOwnTimeNotTheHourAroundTheQuery() throws {
        let model = try BlendTrainer().fit(TrainingSet(events: Self.log()))
        let moment = Fixtures.moment(day: 125, hour: 7.5)
        let texts = model.reasons(for: Fixtures.target("weather"), at: moment, describe: { $0.rawValue }, limit: 10).map(\.text)
        let time = try #require(texts.first { $0.hasPrefix("usually ") }, "\(texts)")
        #expect(time == "usually 06:40-06:50", "\(texts)")
        #expect(!texts.contains("usually 07:00-08:00"))
    }

    /// Every recency and frequency reason, for every target at several moments, says what the log says.
    @Test func recencyAndFrequencyStateTheirSpan() throws {
        let events = Self.log()
        let model = try BlendTrainer().fit(TrainingSet(events: events))
        var checked = (recency: 0, frequency: 0)
        for (day, hour) in [(125, 7.5), (125, 12.0), (124, 6.9)] {
            let moment = Fixtures.moment(day: day, hour: hour)
            let now = moment.date.timeIntervalSince1970
            for target in model.space.targets {
                let past = events.filter { $0.target == target && $0.date.timeIntervalSince1970 <= now }
                let texts = model.reasons(for: target, at: moment, describe: { $0.rawValue }, limit: 10).map(\.text)
                for text in texts where text.hasSuffix(" ago") {
                    let last = try #require(past.map(\.date.timeIntervalSince1970).max())
                    #expect(now - last <= 7 * 86_400, "\(target): \(text) for a use \(now - last) s ago")
                    #expect(text == "used \(spanText(seconds: now - last)) ago")
                    checked.recency += 1
                }
                for text in texts where text.contains("in the last 14 days") {
                    let count = past.filter { $0.date.timeIntervalSince1970 >= now - 14 * 86_400 }.count
                    #expect(text == "used \(count) times in the last 14 days", "\(target)")
                    checked.frequency += 1
                }
                // The count a frequency reason quotes is the log's count.
                let index = try #require(model.space.index(of: target))
                let count = past.filter { $0.date.timeIntervalSince1970 >= now - 14 * 86_400 }.count
                #expect(MomentUses(model.profile, targets: [index], at: moment).uses(of: index, inDays: 14, nearTime: false) == Double(count),
                        "\(target)")
                if target == Fixtures.target("podcast") {  // last used three months before
                    #expect(!texts.contains { $0.hasSuffix(" ago") || $0.contains("last 14 days") || $0 == "lately at this time" }, "\(texts)")
                }
            }
        }
        // Not vacuous: the statements above were made and checked.
        #expect(checked.recency > 0, "\(checked)")
        #expect(spanText(seconds: 600) == "10 min" && spanText(seconds: 3 * 3600) == "3 h" && spanText(seconds: 3 * 86_400) == "3 days")
    }
}
