import Foundation
import ProactiveCore
import ProactiveLab
@testable import ProactiveModels
import Testing

// MARK: - Recent events the blend has not learned, and most recently used as a simple model

@Suite("Blend: recent events and most recently used")
struct BlendRecentEventsTests {
    /// Without the logistic part, `update(with:)` below 20 events is the profile and recency learning alone.
    static let configuration = BlendConfiguration(includeLogistic: false)

    static func fitted() throws -> BlendModel {
        try BlendTrainer(configuration: configuration).fit(TrainingSet(events: Fixtures.routine(days: 20)))
    }

    /// Three uses after the training log (which ends on day 19), one of a target it never saw.
    static let later = [Fixtures.event("mail", day: 21, hour: 9, context: ["focus": "work"]), Fixtures.event("podcast", day: 21, hour: 9.1),
                        Fixtures.event("mail", day: 21, hour: 9.2)]
    static let moment = Fixtures.moment(day: 21, hour: 9.3, recent: later)

    @Test func unlearnedRecentEventsAreScoredAsIfLearned() throws {
        let model = try Self.fitted()
        var updated = model
        for event in Self.later { updated.update(with: event) }
        let caughtUp = model.distribution(at: Self.moment)
        let expected = updated.distribution(at: Self.moment)
        #expect(caughtUp.targets == expected.targets)
        #expect(caughtUp.probabilities == expected.probabilities)
        #expect(model.logScores(at: Self.moment) == updated.logScores(at: Self.moment))
        // The target first seen in the recent events is ranked (last in index order); the model is unchanged.
        #expect(caughtUp.targets.last == Fixtures.target("podcast") && caughtUp.probability(of: Fixtures.target("podcast")) > 0)
        #expect(model.space.index(of: Fixtures.target("podcast")) == nil)
        #expect(abs(caughtUp.probabilities.reduce(0, +) - 1) < 1e-12)
    }

    @Test func learnedRecentEventsChangeNothing() throws {
        var updated = try Self.fitted()
        for event in Self.later { updated.update(with: event) }
        var alone = Self.moment
        alone.recent = []
        #expect(updated.distribution(at: Self.moment).probabilities == updated.distribution(at: alone).probabilities)
        #expect(updated.signals(at: Self.moment) == updated.signals(at: alone))
    }

    @Test func staticEvaluationRanksATargetFirstUsedInTheTestLog() async {
        let train = (0 ..< 30).map { donation($0 % 2 == 0 ? "a" : "b", hours: Double($0)) }
        let test = [donation("c", hours: 31), donation("c", hours: 31.2), donation("a", hours: 32), donation("c", hours: 32.1)]
        let blend = await Evaluation.run(train: train, test: test, model: ModelRegistry.builtIn.entry(named: "blend")!,
                                         options: EvaluationOptions(online: false))
        // The first c is new to everything; afterwards it is among the recent events, as most recently used reads them.
        #expect(blend.ranks[0] == 0 && blend.ranks[1] >= 1 && blend.ranks[3] >= 1)
        #expect(blend.metrics.unranked == 1)
    }

    @Test func theMostRecentlyUsedWeightsRankAsTheBaseline() throws {
        let events = Fixtures.routine(days: 20, noise: 1)  // 9 targets: beyond the 8 recency positions
        var model = try BlendTrainer(configuration: Self.configuration).fit(TrainingSet(events: events))
        model.weights = WeightGuard.mostRecentlyUsed
        var baseline = MostRecentTrainer().makeModel()
        for event in events { baseline.update(with: event) }
        for moment in Fixtures.probeMoments + [Self.moment] {
            let expected = baseline.scores(at: moment).map(\.target)
            #expect(expected.count >= 9)
            #expect(model.scores(at: moment).map(\.target) == expected)
        }
    }

    /// Rows of two candidates where the label is the last used target and the profile favours the other.
    static func recencyRows(_ count: Int) -> BlendRows {
        var rows = BlendRows()
        let features = BlendFeature.count
        for _ in 0 ..< count {
            var values = [Double](repeating: 0, count: 2 * features)
            values[BlendFeature.rank0.rawValue] = 1
            values[BlendFeature.profilePrior.rawValue] = -2
            values[features + BlendFeature.rank1.rawValue] = 1
            values[features + BlendFeature.logAge.rawValue] = 0.5
            rows.append(features: values, candidates: 2, label: 0, weights: [], maxRows: 1000, maxValues: 1_000_000)
        }
        return rows
    }

    @Test func theGuardChoosesMostRecentlyUsedWhenTheRowsFavourIt() {
        let chosen = WeightGuard.choose(rows: Self.recencyRows(10), center: BlendFeature.defaultWeights, centerName: "fixed",
                                        trustPrior: false, configuration: BlendConfiguration()) { _ in
            Issue.record("too few rows: nothing is fitted")
            return BlendFeature.defaultWeights
        }
        #expect(chosen.anchorName == "mru" && chosen.anchor == WeightGuard.mostRecentlyUsed)
        #expect(chosen.validation.map(\.name).contains("mru"))
    }
}
