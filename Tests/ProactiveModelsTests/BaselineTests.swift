import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

/// 2026-01-05T00:00:00Z, a Monday.
let monday: Double = 1_767_571_200

func key(_ app: String) -> TargetKey { TargetKey(app: app, intent: "open", parameters: [:]) }

/// An event of target `app` at `monday + hours` (UTC unless `offset`).
func event(_ app: String, hours: Double, offset: Int? = 0, weight: Double = 1) -> Event {
    Event(target: key(app), date: Date(timeIntervalSince1970: monday + hours * 3600), utcOffset: offset, weight: weight)
}

func moment(hours: Double, offset: Int? = 0, recent: [Event] = []) -> Moment {
    Moment(date: Date(timeIntervalSince1970: monday + hours * 3600), utcOffset: offset, recent: recent)
}

@Suite("Baselines")
struct BaselineTests {
    static let trainers: [ModelEntry] = ModelRegistry.builtIn.baselines

    // MARK: Contract shared by every baseline

    @Test(arguments: BaselineTests.trainers.map(\.name))
    func probabilitiesSumToOneAndTiesBreakByKey(name: String) throws {
        let entry = try #require(ModelRegistry.builtIn.entry(named: name))
        let events = [event("c", hours: 1), event("b", hours: 2), event("a", hours: 3), event("c", hours: 25), event("b", hours: 26)]
        let model = try entry.fit(TrainingSet(events: events))
        let scores = model.scores(at: moment(hours: 27))
        #expect(Set(scores.map(\.target)) == [key("a"), key("b"), key("c")])
        #expect(abs(scores.reduce(0) { $0 + $1.probability } - 1) < 1e-12)
        for (first, second) in zip(scores, scores.dropFirst()) {
            #expect(first.probability > second.probability || (first.probability == second.probability && first.target < second.target))
        }
        // Fitting twice gives the same ranking; an empty model ranks nothing.
        #expect(try entry.fit(TrainingSet(events: events)).scores(at: moment(hours: 27)) == scores)
        #expect(try entry.fit(TrainingSet(events: [])).scores(at: moment(hours: 27)).isEmpty)
    }

    @Test(arguments: BaselineTests.trainers.map(\.name))
    func updatingEqualsFittingOnTheLongerHistory(name: String) throws {
        let entry = try #require(ModelRegistry.builtIn.entry(named: name))
        let events = [event("a", hours: 1), event("b", hours: 2), event("a", hours: 5), event("c", hours: 30)]
        var model = try entry.fit(TrainingSet(events: Array(events.prefix(2))))
        for later in events.dropFirst(2) { model.update(with: later) }
        let refitted = try entry.fit(TrainingSet(events: events))
        let at = moment(hours: 31)
        #expect(model.scores(at: at).map(\.target) == refitted.scores(at: at).map(\.target))
        for (x, y) in zip(model.scores(at: at), refitted.scores(at: at)) { #expect(abs(x.probability - y.probability) < 1e-12) }
    }

    // MARK: Each baseline's own rule

    @Test func mostFrequentCountsWeights() throws {
        let model = try MostFrequentTrainer().fit(TrainingSet(events: [event("a", hours: 1), event("b", hours: 2, weight: 3)]))
        #expect(model.scores(at: moment(hours: 3)) == [ScoredTarget(target: key("b"), probability: 0.75), ScoredTarget(target: key("a"), probability: 0.25)])
    }

    @Test func mostRecentUsesTheMomentsRecentEventsToo() throws {
        let model = try MostRecentTrainer().fit(TrainingSet(events: [event("a", hours: 1), event("b", hours: 2), event("c", hours: 3)]))
        #expect(model.scores(at: moment(hours: 4)).map(\.target) == [key("c"), key("b"), key("a")])
        // Harmonic weights 1, 1/2, 1/3 normalised.
        #expect(abs(model.scores(at: moment(hours: 4))[0].probability - 6.0 / 11.0) < 1e-12)
        let recent = [event("a", hours: 3.5), event("d", hours: 3.6)]
        #expect(model.scores(at: moment(hours: 4, recent: recent)).map(\.target) == [key("d"), key("a"), key("c"), key("b")])
    }

    @Test func markovFollowsThePreviousTargetAndBacksOff() throws {
        // a -> b three times, a -> c once; c is the most frequent overall.
        let sequence = ["a", "b", "c", "c", "a", "b", "c", "a", "b", "c", "a", "c", "c"]
        let events = sequence.enumerated().map { event($0.element, hours: Double($0.offset)) }
        let model = try MarkovTrainer().fit(TrainingSet(events: events))
        let afterA = model.scores(at: moment(hours: 20, recent: [event("a", hours: 19)]))
        #expect(afterA.first?.target == key("b"))
        // (3 + 1 * 3/13) / (4 + 1)
        #expect(abs(afterA.first!.probability - (3 + 3.0 / 13) / 5) < 1e-12)
        // Unseen previous target: the frequency baseline.
        let afterX = model.scores(at: moment(hours: 20, recent: [event("x", hours: 19)]))
        #expect(afterX.first?.target == key("c"))
        #expect(abs(afterX.first!.probability - 6.0 / 13) < 1e-12)
        // Without recent events the last learned target ("c") is the previous one: c -> a 3 times, c -> c twice.
        #expect(model.scores(at: moment(hours: 20)).first?.target == key("a"))
    }

    @Test func hourOfDayReadsLocalHoursAndBacksOff() throws {
        // At 07:xx local (UTC-5) always "weather"; in the evening "video", more often overall.
        var events: [Event] = []
        for day in 0..<5 {
            events.append(event("weather", hours: Double(day) * 24 + 12.2, offset: -5 * 3600))
            for minute in [0.0, 0.2, 0.4] { events.append(event("video", hours: Double(day) * 24 + 25.5 + minute, offset: -5 * 3600)) }
        }
        let model = try HourOfDayTrainer().fit(TrainingSet(events: events))
        #expect(model.hour(of: events[0].date, utcOffset: -5 * 3600) == 7)
        let morning = model.scores(at: moment(hours: 6 * 24 + 12.5, offset: -5 * 3600))
        #expect(morning.first?.target == key("weather"))
        // (5 + 2 * 5/20) / (5 + 2)
        #expect(abs(morning.first!.probability - 5.5 / 7) < 1e-12)
        // An hour never seen falls back to overall frequency.
        #expect(model.scores(at: moment(hours: 6 * 24 + 20, offset: -5 * 3600)).first?.target == key("video"))
        // A configured zone overrides written offsets.
        let zoned = try HourOfDayTrainer(clock: LocalClock(timeZone: TimeZone(identifier: "Asia/Tokyo")!)).fit(TrainingSet(events: events))
        #expect(zoned.hour(of: events[0].date, utcOffset: -5 * 3600) == 21)
    }

    @Test func frecencyHalvesEveryHalfLife() throws {
        let day: TimeInterval = 86_400
        // "a" used twice 30 days ago, "b" once now: equal scores, tie broken by key.
        let events = [event("a", hours: 0), event("a", hours: 0), event("b", hours: 30 * 24)]
        let model = try FrecencyTrainer(halfLife: 30 * day).fit(TrainingSet(events: events))
        let scores = model.scores(at: moment(hours: 30 * 24))
        #expect(scores.map(\.target) == [key("a"), key("b")])
        #expect(abs(scores[0].probability - 0.5) < 1e-12)
        let later = model.scores(at: moment(hours: 60 * 24))
        #expect(abs(later[0].probability - 0.5) < 1e-12)  // ratios do not change with the query time
        let three = try FrecencyTrainer(halfLife: 30 * day).fit(TrainingSet(events: events + [event("c", hours: 30 * 24 + 1, weight: 2)]))
        #expect(three.scores(at: moment(hours: 31 * 24)).first?.target == key("c"))
    }
}
