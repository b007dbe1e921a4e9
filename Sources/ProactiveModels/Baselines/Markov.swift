import Foundation
import ProactiveCore

// MARK: - First-order Markov chain

/// Predicts from the previous target: P(t | prev) = (c(prev→t) + α·P(t)) / (c(prev) + α),
/// where P(t) is the overall frequency (backoff) and α = `backoffStrength`.
/// Name: `markov`.
///
/// The previous target is the moment's last recent event, or, without one,
/// the last event the model learned. With no previous target (or one never
/// followed by anything) the model is the frequency baseline.
package struct MarkovTrainer: ReplayTrainer {
    package let name = MarkovModel.modelName
    /// Pseudo-count pulling transitions toward the overall frequency.
    package var backoffStrength: Double

    package init(backoffStrength: Double = 1) { self.backoffStrength = backoffStrength }

    package typealias Model = MarkovModel

    package func makeModel() -> MarkovModel { MarkovModel(backoffStrength: backoffStrength) }
}

/// The fitted first-order Markov baseline.
package struct MarkovModel: FittedModel {
    package static let modelName = "markov"
    package var name: String { Self.modelName }
    package let backoffStrength: Double
    private(set) var frequency = TargetTally()
    /// Counts of what followed each target.
    private(set) var transitions: [TargetKey: TargetTally] = [:]
    /// The last event learned (the start of the next transition).
    package private(set) var lastTarget: TargetKey?

    package init(backoffStrength: Double = 1) { self.backoffStrength = backoffStrength }

    package func scores(at moment: Moment) -> [ScoredTarget] {
        let previous = moment.recent.last?.target ?? lastTarget
        let following = previous.flatMap { transitions[$0] }
        return BaselineRanking.ranked(BaselineRanking.smoothed(following, toward: frequency, strength: backoffStrength))
    }

    package mutating func update(with event: Event) {
        if let lastTarget { transitions[lastTarget, default: TargetTally()].add(event.target, weight: event.weight) }
        frequency.add(event.target, weight: event.weight)
        lastTarget = event.target
    }
}
