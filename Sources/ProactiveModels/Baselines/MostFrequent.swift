import Foundation
import ProactiveCore

// MARK: - Most frequently used

/// Ranks targets by how often they happened: P(t) = weight(t) / total weight.
/// Context and time are ignored. Name: `mfu`.
package struct MostFrequentTrainer: ReplayTrainer {
    public let name = MostFrequentModel.modelName
    public init() {}

    public typealias Model = MostFrequentModel

    package func makeModel() -> MostFrequentModel { MostFrequentModel() }
}

/// The fitted most-frequently-used baseline.
package struct MostFrequentModel: FittedModel {
    package static let modelName = "mfu"
    public var name: String { Self.modelName }
    private(set) var counts = TargetTally()

    public init() {}

    public func scores(at moment: Moment) -> [ScoredTarget] {
        BaselineRanking.ranked(counts.weights)
    }

    public mutating func update(with event: Event) {
        counts.add(event.target, weight: event.weight)
    }
}
