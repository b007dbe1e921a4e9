import Foundation
@testable import ProactiveModels
import Testing

// MARK: - The population prior from samples, not walks

/// `BlendTrainer.prepare(population:)` keeps only each user's sample of the walk while the prior is
/// learned and walks each user again when fitting it; these tests hold it to the same numbers as
/// fitting every user from one walk kept in memory.
@Suite("Population prior")
struct PopulationPriorTests {
    /// Four users with different routines (seeds) and lengths.
    static let trainings: [TrainingSet] = [(7, 40), (8, 55), (9, 30), (10, 70)].map { seed, days in
        TrainingSet(events: Fixtures.routine(days: days, seed: seed, noise: 0.4))
    }

    @Test func samplesGiveThePriorOfTheWalks() throws {
        let trainer = BlendTrainer()
        let walks = try Self.trainings.map { try trainer.walk($0) }
        let fromWalks = trainer.population(of: walks)
        #expect(!fromWalks.isFixed)
        // Samples limited as users arrive (here in reverse), as `prepare(population:)` takes them.
        let limit = BlendTrainer.SampleLimit()
        var samples = walks.reversed().map { trainer.sample(of: $0, rowLimit: limit.count(rowCount: $0.rowCount)) }.reversed() as [BlendTrainer.Sample]
        #expect(trainer.population(pooling: &samples) == fromWalks)
        #expect(samples.allSatisfy { $0.rows.count == 0 })  // the rows moved into the pool
    }

    @Test func preparedFitsEqualFitsFromOneWalk() throws {
        let trainer = BlendTrainer()
        let walks = try Self.trainings.map { try trainer.walk($0) }
        let prior = trainer.population(of: walks)
        let prepared = try trainer.prepare(population: Self.trainings, workers: 2)
        for (index, walk) in walks.enumerated() {
            let expected = try trainer.finish(walk, prior: prior)
            let fitted = try #require(try prepared.fit(index) as? BlendModel)
            #expect(fitted.weights == expected.weights)
            #expect(fitted.weightGuard == expected.weightGuard)
            #expect(fitted.rows == expected.rows)
            for moment in Fixtures.probeMoments {
                #expect(fitted.logScores(at: moment) == expected.logScores(at: moment))
            }
        }
    }

    @Test func theSampleLimitNeverDropsRowsThePoolTakes() {
        let limit = BlendTrainer.SampleLimit()
        var previous = Int.max
        for user in 0 ..< 1000 {
            let bound = limit.count(rowCount: user % 10 == 0 ? 0 : 150)  // every tenth user has no rows
            #expect(bound <= previous)
            previous = bound
        }
        // 900 users contribute: the pool takes 40,000 / 900 = 44 rows of each, and the last bound says so.
        #expect(previous == BlendTrainer.populationRowsPerUser(contributing: 900))
        #expect(previous == 44)
    }

    @Test func rowRangesFitAndScoreLikeCopies() {
        let rows = BlendWeightsTests.changedHabitRows()
        let ranges = [5 ..< 30, 30 ..< 31, 60 ..< 95]
        var copy = BlendRows()
        for range in ranges { copy.append(contentsOf: rows.slice(range)) }
        let zeros = [Double](repeating: 0, count: BlendFeature.count)
        let weights = BlendRows.recencyWeights(count: copy.count, halfLife: 7)
        let fromRanges = rows.fitWeights(start: zeros, prior: zeros, l2: 1, explicitWeights: weights, ranges: ranges)
        #expect(fromRanges == copy.fitWeights(start: zeros, prior: zeros, l2: 1, explicitWeights: weights))
        #expect(fromRanges != rows.fitWeights(start: zeros, prior: zeros, l2: 1, explicitWeights: BlendRows.recencyWeights(count: rows.count, halfLife: 7)))
        let scored = rows.evaluate(weights: fromRanges, ranges: ranges)
        let scoredCopy = copy.evaluate(weights: fromRanges)
        #expect(scored.map(\.logLikelihood) == scoredCopy.map(\.logLikelihood) && scored.map(\.rank) == scoredCopy.map(\.rank))
    }
}

// MARK: - The guard with too few rows to fit

@Suite("Weight guard, few rows")
struct SmallSampleGuardTests {
    /// Rows of two candidates (the label first). `markovRight` rows: the previous target points to the
    /// label and the profile to the other candidate; otherwise the reverse.
    static func rows(_ pattern: [Bool]) -> BlendRows {
        var rows = BlendRows()
        let features = BlendFeature.count
        for markovRight in pattern {
            var values = [Double](repeating: 0, count: 2 * features)
            values[BlendFeature.profilePrior.rawValue] = markovRight ? -2 : 0
            values[BlendFeature.transitionRecent.rawValue] = markovRight ? 0 : -3
            values[features + BlendFeature.profilePrior.rawValue] = markovRight ? 0 : -2
            values[features + BlendFeature.transitionRecent.rawValue] = markovRight ? -3 : 0
            rows.append(features: values, candidates: 2, label: 0, weights: [], maxRows: 1000, maxValues: 1_000_000)
        }
        return rows
    }

    static func choose(_ rows: BlendRows, population: Bool) -> WeightGuard {
        WeightGuard.choose(rows: rows, center: BlendFeature.defaultWeights, centerName: population ? "population (2 users)" : "fixed",
                           trustPrior: population, configuration: BlendConfiguration()) { _ in
            Issue.record("too few rows: nothing is fitted")
            return BlendFeature.defaultWeights
        }
    }

    @Test func theFixedPriorGivesWayToTheSimpleModelTheRowsFavour() throws {
        let chosen = Self.choose(Self.rows(Array(repeating: true, count: 8)), population: false)
        #expect(chosen.anchorName == "markov")
        #expect(chosen.share == 0 && chosen.heldOutRows == 8 && chosen.rowsAtChoice == 8)
        #expect(chosen.combine(BlendFeature.defaultWeights) == chosen.anchor)
        let best = try #require(chosen.validation.dropLast().max { $0.logLikelihood < $1.logLikelihood })
        #expect(best.name == "markov" && chosen.validation.last?.name == "chosen")
        #expect(chosen.summary.hasPrefix("too few rows to fit (8): markov"))
    }

    @Test func aPopulationPriorHoldsOnWeakEvidence() {
        let mixed = Self.rows([true, false, true, false, true, false, true, false, true, false])
        #expect(Self.choose(mixed, population: true).anchorName == "population (2 users)")
        #expect(Self.choose(mixed, population: false).anchorName != "fixed")  // the best on the rows, by any margin
        #expect(Self.choose(Self.rows(Array(repeating: true, count: 8)), population: true).anchorName == "markov")
    }

    /// A user of ten launches (knowledgeC 10.13's shape): an installer, its password prompt one second
    /// later, then a terminal and the finder alternating seconds apart. Twelve days later the installer
    /// runs again; a second after it, a person expects the prompt that followed it last time, not the
    /// installer they are already in. The fixed prior is the plain naive-Bayes profile (plus the
    /// habit-change signal): with the routine signal added to it, the installer's own use of a second
    /// ago counted as frequency, day and time of day twice over, the prior scored best on the user's
    /// five rows and ranked the installer first.
    @Test func aLaunchASecondAfterXIsWhatFollowedX() throws {
        let start = Fixtures.date(day: 6, hour: 0).timeIntervalSince1970  // a Sunday
        func launch(_ name: String, day: Int, seconds: Double) -> Event {
            Event(target: Fixtures.target(name), date: Date(timeIntervalSince1970: start + Double(day) * 86_400 + seconds),
                  utcOffset: 0, context: [:], weight: 1)
        }
        let sunday = [("installer", 61_197.0), ("prompt", 61_198), ("terminal", 64_714), ("finder", 64_718), ("terminal", 64_720),
                      ("finder", 64_782), ("terminal", 64_785), ("login", 64_838), ("terminal", 64_840), ("finder", 64_841)]
        var model = try BlendTrainer().fit(TrainingSet(events: sunday.map { launch($0.0, day: 0, seconds: $0.1) }))
        #expect(model.weightGuard.rowsAtChoice < BlendConfiguration().guardMinimumRows && model.weightGuard.anchorName != "fixed")
        let installer = launch("installer", day: 13, seconds: 2270)  // the Saturday twelve days later, 00:37:50
        model.update(with: installer)
        let moment = Moment(date: installer.date.addingTimeInterval(1), utcOffset: 0, context: [:], recent: [])
        #expect(model.distribution(at: moment).top(1).first?.target == Fixtures.target("prompt"))
        #expect(BlendTrainer.fixedPrior.weights[BlendFeature.routine.rawValue] == 0)
    }

    @Test func aStateSavedWithEarlierFixedDefaultsKeepsTheFixedPriorsRule() {
        // Saved before the routine signal left the fixed prior: its weights held it.
        #expect(BlendTrainer.fixedPrior.weights != BlendFeature.defaultWeights)
        #expect(BlendTrainer.Prior(weights: BlendFeature.defaultWeights, name: "fixed").isFixed)
        #expect(!BlendTrainer.Prior(weights: BlendFeature.defaultWeights, name: "population (2 users)").isFixed)
    }

    /// With a population prior, the user's fit earns a share in proportion to its evidence over the
    /// anchor: none up to 1 standard error, all of it from 3, so a few more rows never swing the kept
    /// weights from the anchor to the fit at once.
    @Test func theFitsShareGrowsWithItsEvidence() {
        #expect(WeightGuard.evidenceShare(z: -5) == 0 && WeightGuard.evidenceShare(z: 1) == 0)
        #expect(WeightGuard.evidenceShare(z: 2) == 0.5 && WeightGuard.evidenceShare(z: 2.5) == 0.75)
        #expect(WeightGuard.evidenceShare(z: 3) == 1 && WeightGuard.evidenceShare(z: .infinity) == 1)
        #expect(WeightGuard.evidenceShare(z: -.infinity) == 0)
        let zs = stride(from: 0.0, through: 4, by: 0.25).map { WeightGuard.evidenceShare(z: $0) }
        #expect(zip(zs, zs.dropFirst()).allSatisfy { $0 <= $1 })

        // 40 rows of two candidates told apart by one signal that neither the prior nor any simple model
        // weighs: the label's quarter-hour signal is 1 on two rows in three and -0.6 on the third. Every
        // model that fits nothing scores the rows alike, so the prior is the anchor; a fit weighing the
        // signal gains on most held-out rows and loses on the others (about 1.35 standard errors).
        var rows = BlendRows()
        let features = BlendFeature.count
        for index in 0 ..< 40 {
            var values = [Double](repeating: 0, count: 2 * features)
            values[BlendFeature.timeFine.rawValue] = index % 3 == 2 ? -0.6 : 1
            rows.append(features: values, candidates: 2, label: 0, weights: [], maxRows: 1000, maxValues: 1_000_000)
        }
        func chosen(fit: [Double]) -> WeightGuard {
            WeightGuard.choose(rows: rows, center: BlendFeature.defaultWeights, centerName: "population (2 users)", trustPrior: true,
                               configuration: BlendConfiguration()) { _ in fit }
        }
        let same = chosen(fit: BlendFeature.defaultWeights)
        #expect(same.anchorName == "population (2 users)" && same.share == 0)  // no gain: no share
        var fit = BlendFeature.defaultWeights
        fit[BlendFeature.timeFine.rawValue] = 1
        let partial = chosen(fit: fit)
        #expect(partial.anchorName == "population (2 users)")
        #expect(partial.share > 0.1 && partial.share < 0.3, "share \(partial.share)")
        #expect(partial.combine(fit)[BlendFeature.timeFine.rawValue] == partial.share)
        #expect(partial.summary.hasPrefix(String(format: "own fit x %.2f", partial.share)))
    }

    @Test func oneRowKeepsThePrior() {
        let chosen = Self.choose(Self.rows([true]), population: false)
        #expect(chosen.anchorName == "fixed" && chosen.heldOutRows == 0 && chosen.anchor == BlendFeature.defaultWeights)
    }
}
