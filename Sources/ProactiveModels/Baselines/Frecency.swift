import Foundation
import ProactiveCore

// MARK: - Exponentially decayed frecency

/// Ranks targets by exponentially decayed use: score(t, now) = Σ wᵢ · 2^(−(now − tᵢ) / halfLife)
/// over the uses tᵢ of t. Name: `frecency`. Default half-life: 30 days.
///
/// Kept incrementally: each target stores its score as of its last use, and
/// is decayed to the query time when scored (O(1) per update).
package struct FrecencyTrainer: ReplayTrainer {
    package let name = FrecencyModel.modelName
    /// Seconds for a use to lose half its weight.
    package var halfLife: TimeInterval

    package init(halfLife: TimeInterval = 30 * 86_400) { self.halfLife = halfLife }

    package typealias Model = FrecencyModel

    package func makeModel() -> FrecencyModel { FrecencyModel(halfLife: halfLife) }
}

/// The fitted frecency baseline.
package struct FrecencyModel: FittedModel {
    package static let modelName = "frecency"
    package var name: String { Self.modelName }
    package let halfLife: TimeInterval

    /// A target's decayed weight as of `date`.
    package struct Score: Sendable, Hashable {
        package var value: Double
        package var date: Date
    }
    package private(set) var scoresByTarget: [TargetKey: Score] = [:]

    package init(halfLife: TimeInterval = 30 * 86_400) {
        precondition(halfLife > 0, "the half-life must be positive")
        self.halfLife = halfLife
    }

    /// `value` decayed from `from` to `to` (grows when `to` is earlier).
    func decay(_ value: Double, from: Date, to: Date) -> Double {
        value * exp2(-to.timeIntervalSince(from) / halfLife)
    }

    package func scores(at moment: Moment) -> [ScoredTarget] {
        // Scores are compared at one instant; decaying all to it keeps their ratios exact.
        var scores: [TargetKey: Double] = [:]
        scores.reserveCapacity(scoresByTarget.count)
        for (target, score) in scoresByTarget { scores[target] = decay(score.value, from: score.date, to: moment.date) }
        return BaselineRanking.ranked(scores)
    }

    package mutating func update(with event: Event) {
        guard let score = scoresByTarget[event.target] else {
            scoresByTarget[event.target] = Score(value: event.weight, date: event.date)
            return
        }
        // Keep the later date as reference so values never grow without bound.
        if event.date >= score.date {
            scoresByTarget[event.target] = Score(value: decay(score.value, from: score.date, to: event.date) + event.weight, date: event.date)
        } else {
            scoresByTarget[event.target] = Score(value: score.value + decay(event.weight, from: event.date, to: score.date), date: score.date)
        }
    }
}
