import Foundation
import ProactiveCore
@testable import ProactiveModels
import Testing

/// The contract every persistent model must meet (run for profile, logistic and blend).
///
/// - fitting twice gives identical models (same bytes, same scores);
/// - batch and single scoring agree (1e-9 relative);
/// - the order donations arrive in does not change a static fit (same bytes);
/// - save -> load round-trips exactly (same scores to the last bit, same bytes again);
/// - probabilities sum to 1, ranked highest first, ties by key;
/// - asking for more results than targets returns every target;
/// - an empty training set fits a model that ranks nothing and can still learn.
struct ModelConformance<Trainer: ModelTrainer> where Trainer.Model: PersistentModel {
    let trainer: Trainer

    func checkAll(events: [Event], moments: [Moment], seed: UInt64 = 1) throws {
        try fittingIsDeterministic(events: events, moments: moments)
        try batchMatchesSingle(events: events, moments: moments)
        try orderDoesNotMatter(events: events, seed: seed)
        try saveLoadRoundTrips(events: events, moments: moments)
        try probabilitiesAreDistributions(events: events, moments: moments)
        try emptyTrainingBehaves(first: events[0], moments: moments)
    }

    func fittingIsDeterministic(events: [Event], moments: [Moment]) throws {
        let first = try trainer.fit(TrainingSet(events: events))
        let second = try trainer.fit(TrainingSet(events: events))
        #expect(first.serialized() == second.serialized(), "\(trainer.name): two fits differ")
        for moment in moments { #expect(first.scores(at: moment) == second.scores(at: moment)) }
    }

    func batchMatchesSingle(events: [Event], moments: [Moment]) throws {
        let model = try trainer.fit(TrainingSet(events: events))
        let batch = model.scores(at: moments)
        #expect(batch.count == moments.count)
        for (moment, batched) in zip(moments, batch) {
            let single = model.scores(at: moment)
            #expect(Fixtures.maxRelativeDifference(single, batched) < 1e-9, "\(trainer.name): batch differs from single")
        }
    }

    func orderDoesNotMatter(events: [Event], seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let reference = try trainer.fit(TrainingSet(events: events)).serialized()
        for _ in 0 ..< 2 {
            let shuffled = events.shuffled(using: &random)
            #expect(try trainer.fit(TrainingSet(events: shuffled)).serialized() == reference,
                    "\(trainer.name): donation order changed the fit")
        }
    }

    func saveLoadRoundTrips(events: [Event], moments: [Moment]) throws {
        var model = try trainer.fit(TrainingSet(events: Array(events.dropLast(3))))
        for event in events.suffix(3) { model.update(with: event) }
        let bytes = model.serialized()
        var loaded = try Trainer.Model(serialized: bytes)
        #expect(loaded.serialized() == bytes, "\(trainer.name): re-saving a loaded model changes bytes")
        for moment in moments { #expect(loaded.scores(at: moment) == model.scores(at: moment), "\(trainer.name): load changed scores") }
        // A loaded model goes on learning exactly like the original.
        let next = Event(target: events[0].target, date: events.last!.date.addingTimeInterval(3600), utcOffset: 0)
        model.update(with: next)
        loaded.update(with: next)
        #expect(loaded.serialized() == model.serialized())
        let any = try ModelArchive.decodeAny(bytes)
        #expect(any.name == model.name)
    }

    func probabilitiesAreDistributions(events: [Event], moments: [Moment]) throws {
        let model = try trainer.fit(TrainingSet(events: events))
        let targets = Set(events.map(\.target))
        for moment in moments {
            let scores = model.scores(at: moment)
            #expect(Set(scores.map(\.target)) == targets)
            #expect(abs(scores.reduce(0) { $0 + $1.probability } - 1) < 1e-9)
            #expect(scores.allSatisfy { $0.probability >= 0 && $0.probability <= 1 })
            for (a, b) in zip(scores, scores.dropFirst()) {
                #expect(a.probability > b.probability || (a.probability == b.probability && a.target < b.target))
            }
            #expect(model.top(targets.count + 10, at: moment).count == targets.count)
            #expect(model.top(2, at: moment) == Array(scores.prefix(2)))
            // The unsorted form holds the same numbers: ranking it gives the list, selecting gives its prefix.
            let distribution = model.distribution(at: moment)
            #expect(distribution.ranked() == scores, "\(trainer.name): distribution differs from scores")
            for k in [1, 3, targets.count + 2] { #expect(distribution.top(k) == Array(scores.prefix(k))) }
            for entry in scores { #expect(distribution.probability(of: entry.target) == entry.probability) }
        }
    }

    func emptyTrainingBehaves(first: Event, moments: [Moment]) throws {
        var model = try trainer.fit(TrainingSet(events: []))
        for moment in moments { #expect(model.scores(at: moment).isEmpty) }
        #expect(try Trainer.Model(serialized: model.serialized()).scores(at: moments[0]).isEmpty)
        model.update(with: first)
        let scores = model.scores(at: moments[0])
        #expect(scores.map(\.target) == [first.target])
        #expect(abs((scores.first?.probability ?? 0) - 1) < 1e-12)
    }
}

@Suite("Model conformance")
struct ModelConformanceTests {
    static let events = Fixtures.routine(days: 28)

    @Test func profile() throws {
        try ModelConformance(trainer: ProfileTrainer()).checkAll(events: Self.events, moments: Fixtures.probeMoments)
    }

    @Test func profileWithoutForgetting() throws {
        let trainer = ProfileTrainer(configuration: ProfileConfiguration(halfLifeDays: nil))
        try ModelConformance(trainer: trainer).checkAll(events: Self.events, moments: Fixtures.probeMoments, seed: 2)
    }

    @Test func logistic() throws {
        try ModelConformance(trainer: LogisticTrainer()).checkAll(events: Self.events, moments: Fixtures.probeMoments)
    }

    @Test func blend() throws {
        try ModelConformance(trainer: BlendTrainer()).checkAll(events: Self.events, moments: Fixtures.probeMoments)
    }

    @Test func blendWithoutLogistic() throws {
        let trainer = BlendTrainer(configuration: BlendConfiguration(includeLogistic: false))
        try ModelConformance(trainer: trainer).checkAll(events: Self.events, moments: Fixtures.probeMoments, seed: 3)
    }
}
