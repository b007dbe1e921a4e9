import Foundation
import ProactiveCore
import ProactiveModels
import Testing

@Suite("Target distribution")
struct TargetDistributionTests {
    /// Many equal probabilities (ties broken by key) in a scrambled order.
    static func tied(_ count: Int, seed: UInt64) -> TargetDistribution {
        var random = SeededGenerator(seed: seed)
        let keys = (0 ..< count).map { TargetKey(rawValue: "app:t\($0)") }.shuffled(using: &random)
        let levels = [0.5, 0.25, 0.25, 0.1, 0.0]
        let probabilities = keys.indices.map { _ in levels[random.integer(in: 0 ... levels.count - 1)] }
        return TargetDistribution(targets: keys, probabilities: probabilities,
                                  positions: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
    }

    @Test(arguments: [1, 2, 7, 40, 300])
    func selectionEqualsThePrefixOfTheFullRanking(count: Int) {
        let distribution = Self.tied(count, seed: UInt64(count))
        let ranked = distribution.ranked()
        for k in [0, 1, 4, count - 1, count, count + 5] {
            #expect(distribution.top(k) == Array(ranked.prefix(k)), "k=\(k)")
        }
        #expect(distribution.topIndices(-3).isEmpty)
    }

    /// Seeded continuous probabilities with some exact ties, any length (the four-at-a-time scan's
    /// tail included): the one-pass selection equals a plain sort of every target.
    @Test(arguments: [5, 1_000, 1_003, 10_007])
    func selectionEqualsASortOfSeededProbabilities(count: Int) {
        var random = SeededGenerator(seed: UInt64(count) &* 31)
        let keys = (0 ..< count).map { TargetKey(rawValue: "app:r\($0)") }
        var probabilities = keys.indices.map { _ in random.unit() }
        for i in stride(from: 0, to: count, by: 97) { probabilities[i] = probabilities[count / 2] }   // exact ties
        let distribution = TargetDistribution(targets: keys, probabilities: probabilities,
                                              positions: Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
        let reference = keys.indices.sorted {
            probabilities[$0] != probabilities[$1] ? probabilities[$0] > probabilities[$1] : keys[$0] < keys[$1]
        }
        for k in [1, 4, 24, 100, count] {
            #expect(distribution.topIndices(k) == Array(reference.prefix(k)), "k=\(k)")
        }
    }

    @Test func lookupsByKey() {
        let distribution = TargetDistribution(ranked: [ScoredTarget(target: TargetKey(rawValue: "a:x"), probability: 0.7),
                                                       ScoredTarget(target: TargetKey(rawValue: "a:y"), probability: 0.3)])
        #expect(distribution.count == 2)
        #expect(distribution.probability(of: TargetKey(rawValue: "a:y")) == 0.3)
        #expect(distribution.probability(of: TargetKey(rawValue: "a:unknown")) == 0)
        #expect(distribution.index(of: TargetKey(rawValue: "a:x")) == 0)
        #expect(distribution.top(1).map(\.target) == [TargetKey(rawValue: "a:x")])
    }
}
