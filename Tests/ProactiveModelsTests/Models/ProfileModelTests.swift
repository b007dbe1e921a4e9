import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

@Suite("Profile model")
struct ProfileModelTests {
    static let a = Fixtures.routine(days: 21, seed: 11)
    /// B: extra events interleaved with A, including a target and a context value A never has.
    static let b: [Event] = [
        Fixtures.event("gym", day: 2, hour: 18, context: ["place": "gym"]),
        Fixtures.event("coffee", day: 5, hour: 15),
        Fixtures.event("gym", day: 9, hour: 18.2, context: ["place": "gym"]),
        Fixtures.event("weather", day: 12, hour: 7.35, context: ["place": "home"]),
        Fixtures.event("mail", day: 20, hour: 23, context: ["focus": "travel"]),
    ]

    /// Probabilities of two models whose counts agree to 1e-12 agree to this: L is stored in
    /// `Float`, so an entry whose count differs by rounding may round to the neighbouring
    /// `Float` (one ulp, under 1e-6 for entries of these magnitudes, moving a log-score by
    /// at most that much and a probability by about twice that, relative).
    static let floatTolerance = 1e-5

    @Test func removingBRestoresModelOfA() throws {
        let trainer = ProfileTrainer()
        let modelA = try trainer.fit(TrainingSet(events: Self.a))
        var model = try trainer.fit(TrainingSet(events: Self.a + Self.b))
        for event in Self.b.reversed() {
            let removed = model.remove(event)
            #expect(removed)
        }
        // Every target and context value only B had is gone from the vocabulary and the bytes.
        #expect(model.space == modelA.space)
        let bytes = model.serialized()
        #expect(!String(decoding: bytes, as: UTF8.self).contains("gym"))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("travel"))
        for moment in Fixtures.probeMoments + [Fixtures.moment(day: 22, hour: 18, context: ["place": "gym"])] {
            let difference = Fixtures.maxRelativeDifference(model.scores(at: moment), modelA.scores(at: moment))
            #expect(difference < Self.floatTolerance, "relative difference \(difference)")
        }
        // Stated tolerance: the counts themselves agree to 1e-12 of the largest count.
        let largest = modelA.counts.expanded.map(abs).max()!
        for (x, y) in zip(model.counts.expanded, modelA.counts.expanded) { #expect(abs(x - y) <= 1e-12 * largest) }
    }

    /// The split storage (dense part + transition rows) computes exactly L · x' over the logical columns.
    @Test func scoringEqualsTheLogicalProduct() throws {
        let model = try ProfileTrainer().fit(TrainingSet(events: Self.a + Self.b))
        let width = model.logProfile.width
        #expect(width == model.layout.dimension + 4 + 2 * model.space.contextKeys.count)
        #expect(model.logProfile.denseWidth == width - model.space.targetCount)
        // Storage maps each logical column to its meaning: L[t, j] = log(decayed count + α) for
        // feature columns, previous-target block included (read through the transposed part).
        let layout = model.layout
        for t in 0 ..< model.space.targetCount {
            for j in [layout.time.lowerBound, layout.weekday.lowerBound + 2, layout.context.lowerBound,
                      layout.previous.lowerBound + t, layout.previous.lowerBound + (t + 1) % model.space.targetCount, layout.noPrevious] {
                let expected = log(model.decay * model.counts[t, j] + model.configuration.smoothing)
                // Stored in single precision: rounded to the nearest Float (half an ulp, 2^-24 relative).
                #expect(model.logProfile[t, j] == Double(Float(expected)), "L[\(t), \(j)]")
                #expect(abs(model.logProfile[t, j] - expected) <= 0x1p-24 * abs(expected), "L[\(t), \(j)]")
            }
        }
        let recent = [Fixtures.event("gym", day: 22, hour: 17.9)]
        for moment in Fixtures.probeMoments + [Fixtures.moment(day: 22, hour: 18, context: ["place": "gym"], recent: recent)] {
            let x = model.scoringVector(for: moment)
            // The feature part of x' is what the encoder writes for the moment (built independently).
            let encoded = model.encoder.encode(moment, in: model.space, fallbackPrevious: model.log.latest(atOrBefore: moment.date))
            #expect(Array(x.prefix(layout.dimension)) == encoded)
            #expect(x[layout.dimension ..< layout.dimension + 4].allSatisfy { $0 == -1 })
            let scores = model.logScores(at: moment)
            #expect(x.filter { $0 != 0 }.count < 60)
            for t in 0 ..< model.space.targetCount {
                var reference = 0.0
                for j in 0 ..< width { reference += model.logProfile[t, j] * x[j] }
                #expect(abs(scores[t] - reference) <= 1e-12 * max(1, abs(reference)), "target \(t)")
            }
            // Groups add up to the score, previous-target evidence included.
            let groups = model.groupLogScores(at: moment)
            let count = ProfileGroup.allCases.count
            for t in 0 ..< model.space.targetCount {
                let total = (0 ..< count).reduce(0.0) { $0 + groups[t * count + $1] }
                #expect(abs(total - scores[t]) <= 1e-9 * max(1, abs(scores[t])))
            }
        }
    }

    /// The hot path's probabilities (`distribution(at:)`: in-place softmax with the polynomial
    /// exponential) equal a plain softmax of the log-scores with `Foundation.exp`, and its
    /// selection equals sorting every target.
    @Test func distributionEqualsAPlainSoftmax() throws {
        let model = try ProfileTrainer().fit(TrainingSet(events: Self.a + Self.b))
        let recent = [Fixtures.event("gym", day: 22, hour: 17.9)]
        for moment in Fixtures.probeMoments + [Fixtures.moment(day: 22, hour: 18, context: ["place": "gym"], recent: recent)] {
            let scores = model.logScores(at: moment)
            let maximum = scores.max()!
            let exponentials = scores.map { Foundation.exp($0 - maximum) }
            let total = exponentials.reduce(0, +)
            let reference = exponentials.map { $0 / total }
            let distribution = model.distribution(at: moment)
            #expect(distribution.targets == model.space.targets)
            for (p, q) in zip(distribution.probabilities, reference) { #expect(abs(p - q) <= 1e-13 * q + 1e-300) }
            let order = reference.indices.sorted {
                reference[$0] != reference[$1] ? reference[$0] > reference[$1] : model.space.targets[$0] < model.space.targets[$1]
            }
            for k in [1, 4, model.space.targetCount] {
                #expect(distribution.topIndices(k) == Array(order.prefix(k)), "k=\(k)")
            }
        }
    }

    /// The previous target of a moment (one lookup when the latest event is known) equals a
    /// forward scan over every recent event: unknown targets, equal dates and future events mixed.
    @Test func previousTargetEqualsAForwardScan() throws {
        let model = try ProfileTrainer().fit(TrainingSet(events: Self.a))
        let names = model.space.targets.map(\.rawValue) + ["unknown1", "unknown2"]
        var random = SeededGenerator(seed: 21)
        for _ in 0 ..< 300 {
            let recent = (0 ..< random.integer(in: 0 ... 5)).map { _ in
                Fixtures.event(names[random.integer(in: 0 ... names.count - 1)], day: 22, hour: Double(random.integer(in: 8 ... 11)))
            }
            let moment = Fixtures.moment(day: 22, hour: 10, recent: recent)
            var expected: (target: TargetIndex, date: Date)?
            for event in recent where event.date <= moment.date {
                guard let index = model.space.index(of: event.target) else { continue }
                if expected == nil || event.date >= expected!.date { expected = (index, event.date) }
            }
            let found = MomentEncoder.previous(of: moment, in: model.space)
            #expect(found?.target == expected?.target && found?.date == expected?.date)
        }
    }

    @Test func removingAWholeTargetIsBitExact() throws {
        // When every event of B's only targets goes, the model is rebuilt from the log: bit for bit A.
        let onlyB = [Fixtures.event("gym", day: 2, hour: 18, context: ["place": "gym"]),
                     Fixtures.event("gym", day: 9, hour: 18.2, context: ["place": "gym"])]
        let trainer = ProfileTrainer()
        var model = try trainer.fit(TrainingSet(events: Self.a + onlyB))
        for event in onlyB { model.remove(event) }
        #expect(model.serialized() == (try trainer.fit(TrainingSet(events: Self.a))).serialized())
    }

    @Test func removingUnknownEventReportsFalse() throws {
        var model = try ProfileTrainer().fit(TrainingSet(events: Self.a))
        let unknownTarget = model.remove(Fixtures.event("nothing", day: 1, hour: 1))
        let unknownTime = model.remove(Fixtures.event("coffee", day: 1, hour: 3.14159))
        #expect(!unknownTarget && !unknownTime)
    }

    @Test func incrementalUpdatesMatchAFullFit() throws {
        let trainer = ProfileTrainer()
        let all = Self.a + Self.b
        var model = try trainer.fit(TrainingSet(events: Array(Self.a.prefix(10))))
        // Learn the rest in a scrambled order (out-of-order inserts fix the previous-target features).
        var random = SeededGenerator(seed: 5)
        for event in (Array(Self.a.dropFirst(10)) + Self.b).shuffled(using: &random) { model.update(with: event) }
        let full = try trainer.fit(TrainingSet(events: all))
        for moment in Fixtures.probeMoments {
            #expect(Fixtures.maxRelativeDifference(model.scores(at: moment), full.scores(at: moment)) < Self.floatTolerance)
        }
    }

    /// A new target (no new context value, same day) updates L in place of rebuilding it: the
    /// same entries, bit for bit, as rebuilding it from the counts.
    @Test func aNewTargetUpdatesTheLogProfileAsARebuildWould() throws {
        var model = try ProfileTrainer().fit(TrainingSet(events: Self.a))
        let last = try #require(model.log.last).date
        for (i, name) in ["new1", "new2", "new1", "new3"].enumerated() {
            let targets = model.space.targetCount
            model.update(with: Event(target: Fixtures.target(name), date: last.addingTimeInterval(Double(i + 1) * 60), utcOffset: 0,
                                     context: [:], weight: 1))
            #expect(model.space.targetCount == targets + (i == 2 ? 0 : 1))
            var rebuilt = model
            rebuilt.refreshAll()
            #expect(model.logProfile == rebuilt.logProfile, "after \(name)")
        }
    }

    @Test func forgettingHalvesWeightPerHalfLife() throws {
        let old = Fixtures.event("old", day: 0, hour: 9)
        let new = Fixtures.event("new", day: 30, hour: 9)
        let model = try ProfileTrainer(configuration: ProfileConfiguration(halfLifeDays: 30)).fit(TrainingSet(events: [old, new]))
        let oldWeight = model.decayedWeight(of: model.space.index(of: old.target)!)
        let newWeight = model.decayedWeight(of: model.space.index(of: new.target)!)
        // Decayed to the reference day (day 30, 00:00): new = 2^(9h/30d), old = half of that.
        #expect(abs(oldWeight / newWeight - 0.5) < 1e-12)
        let keep = try ProfileTrainer(configuration: ProfileConfiguration(halfLifeDays: nil)).fit(TrainingSet(events: [old, new]))
        #expect(keep.decayedWeight(of: TargetIndex(0)) == keep.decayedWeight(of: TargetIndex(1)))
    }

    /// No Focus is one of the `focus` key's values once some event had none: at a moment with no
    /// Focus, a target used only in a Focus falls below one used mostly without; a `place` missing
    /// from a moment says nothing. Learning and forgetting the one event that made "absent" a value
    /// give the scores of a fit.
    @Test func noFocusIsAValueAtAMomentThatKnowsIt() throws {
        var events: [Event] = []
        for day in 0 ..< 20 {
            events.append(Fixtures.event("journal", day: day, hour: 14.5, context: ["focus": "work"]))
            events.append(Fixtures.event("trains", day: day, hour: 14.6, context: day % 4 == 0 ? ["focus": "work"] : ["place": "home"]))
        }
        // No forgetting, so the counts are whole uses.
        let trainer = ProfileTrainer(configuration: ProfileConfiguration(halfLifeDays: nil))
        let model = try trainer.fit(TrainingSet(events: events))
        let journal = try #require(model.space.index(of: Fixtures.target("journal"))).rawValue
        let trains = try #require(model.space.index(of: Fixtures.target("trains"))).rawValue
        let groupCount = ProfileGroup.allCases.count
        func absence(_ moment: Moment, of model: ProfileModel) -> [Double] {
            let groups = model.groupLogScores(at: moment)
            return [groups[journal * groupCount + ProfileGroup.absence.rawValue], groups[trains * groupCount + ProfileGroup.absence.rawValue]]
        }
        let noFocus = Fixtures.moment(day: 21, hour: 14.5)
        let alpha = model.configuration.smoothing
        // journal: 0 of 20 uses without a Focus; trains: 15 of 20. Over 20 + 2α (one value, "absent").
        let expected = [log(alpha / (20 + 2 * alpha)), log((15 + alpha) / (20 + 2 * alpha))]
        for (got, want) in zip(absence(noFocus, of: model), expected) { #expect(abs(got - want) < 1e-5) }
        #expect(model.top(1, at: noFocus).first?.target == Fixtures.target("trains"))
        let inWork = Fixtures.moment(day: 21, hour: 14.5, context: ["focus": "work", "place": "home"])
        #expect(model.top(1, at: inWork).first?.target == Fixtures.target("journal"))

        // Every event in a Focus: "absent" is no value yet, and a moment with no Focus leaves the key out.
        let allInFocus = events.filter { $0.context["focus"] != nil }
        let fitted = try trainer.fit(TrainingSet(events: allInFocus))
        #expect(absence(noFocus, of: fitted) == [0, 0])
        // Learning one event without a Focus makes it a value, forgetting it takes it out again.
        let without = Fixtures.event("trains", day: 20, hour: 9)
        var learned = fitted
        learned.update(with: without)
        let refit = try trainer.fit(TrainingSet(events: allInFocus + [without]))
        for (x, y) in zip(learned.logScores(at: noFocus), refit.logScores(at: noFocus)) { #expect(abs(x - y) < 1e-9) }
        learned.remove(without)
        for (x, y) in zip(learned.logScores(at: noFocus), fitted.logScores(at: noFocus)) { #expect(abs(x - y) < 1e-9) }
    }

    @Test func learnsTimeOfDayWeekdayContextAndPrevious() throws {
        let model = try ProfileTrainer().fit(TrainingSet(events: Fixtures.routine(days: 28)))
        #expect(model.top(1, at: Fixtures.moment(day: 28, hour: 7.3)).first?.target == Fixtures.target("weather"))
        #expect(model.top(1, at: Fixtures.moment(day: 28, hour: 21)).first?.target == Fixtures.target("music"))
        #expect(model.top(1, at: Fixtures.moment(day: 33, hour: 10)).first?.target == Fixtures.target("news"))
        #expect(model.top(1, at: Fixtures.moment(day: 29, hour: 12, context: ["focus": "work"])).first?.target == Fixtures.target("mail"))
        // Right after weather, coffee.
        let afterWeather = Fixtures.moment(day: 29, hour: 7.6, recent: [Fixtures.event("weather", day: 29, hour: 7.5)])
        #expect(model.top(1, at: afterWeather).first?.target == Fixtures.target("coffee"))
        // The groups add up to the score.
        let groups = model.groupLogScores(at: afterWeather)
        let scores = model.logScores(at: afterWeather)
        for t in scores.indices {
            let sum = (0 ..< ProfileGroup.allCases.count).reduce(0.0) { $0 + groups[t * ProfileGroup.allCases.count + $1] }
            #expect(abs(sum - scores[t]) < 1e-9 * max(1, abs(scores[t])))
        }
    }

    @Test func invalidConfigurationIsNamed() {
        #expect(throws: ConfigurationError(field: "halfLifeDays", reason: "must be a positive number of days, got -1.0")) {
            try ProfileTrainer(configuration: ProfileConfiguration(halfLifeDays: -1)).fit(TrainingSet(events: []))
        }
        #expect(throws: ConfigurationError.self) {
            try ProfileTrainer(configuration: ProfileConfiguration(encoder: EncoderConfiguration(timeZoneIdentifier: "Mars/Olympus")))
                .fit(TrainingSet(events: []))
        }
    }
}
