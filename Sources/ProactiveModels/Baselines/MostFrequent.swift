import Foundation
import ProactiveCore

// MARK: - Most frequently used

/// Ranks targets by how often they happened: P(t) = weight(t) / total weight.
/// Context and time are ignored. Name: `mfu`.
package struct MostFrequentTrainer: ReplayTrainer {
    package let name = MostFrequentModel.modelName
    package init() {}

    package typealias Model = MostFrequentModel

    package func makeModel() -> MostFrequentModel { MostFrequentModel() }
}

/// The fitted most-frequently-used baseline.
package struct MostFrequentModel: FittedModel {
    package static let modelName = "mfu"
    package var name: String { Self.modelName }
    private(set) var counts = TargetTally()

    package init() {}

    package func scores(at moment: Moment) -> [ScoredTarget] {
        BaselineRanking.ranked(counts.weights)
    }

    package mutating func update(with event: Event) {
        counts.add(event.target, weight: event.weight)
    }
}
