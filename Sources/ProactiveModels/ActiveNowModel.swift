import Foundation

// MARK: - What ranking reads

/// A model's probabilities as ranking floors read them:
///
///     P(the user acts now and wants t) = activity(moment) x P(t | the user acts now)
///
/// where the activity level is the base model's (`FittedModel.activityLevel(at:)`, 1 when
/// it has none). The order of targets is the base model's; the values sum to the activity
/// level, not to 1. `predict` shows the base model's conditional probabilities and the
/// level beside them; `suggest` and the Smart Stack rank with these.
package struct ActiveNowModel: FittedModel {
    package private(set) var base: any FittedModel

    package init(_ base: any FittedModel) { self.base = base }

    package var name: String { base.name }

    /// The base model's activity level at `moment` (1 when it has none).
    package func level(at moment: Moment) -> Double { Self.level(of: base, at: moment) }

    /// `model`'s activity level at `moment`, clamped to 0...1 (1 when it has none). Borrows the model:
    /// a caller holding it as another existential (`any LiveLearningModel`) asks this rather than
    /// wrapping it (`ActiveNowModel(model)` copies the whole model into a new box on each call).
    package static func level(of model: some FittedModel, at moment: Moment) -> Double {
        min(1, max(0, model.activityLevel(at: moment) ?? 1))
    }

    /// `distribution(at:)` for `model` without wrapping it (see `level(of:at:)`).
    package static func distribution(of model: some FittedModel, at moment: Moment) -> TargetDistribution {
        let distribution = model.distribution(at: moment)
        let level = level(of: model, at: moment)
        return level == 1 ? distribution : distribution.scaled(by: level)
    }

    package func activityLevel(at moment: Moment) -> Double? { base.activityLevel(at: moment) }

    package func distribution(at moment: Moment) -> TargetDistribution { Self.distribution(of: base, at: moment) }

    package func scores(at moment: Moment) -> [ScoredTarget] {
        Self.scale(base.scores(at: moment), by: level(at: moment))
    }

    package func scores(at moments: [Moment]) -> [[ScoredTarget]] {
        zip(base.scores(at: moments), moments).map { Self.scale($0, by: level(at: $1)) }
    }

    package mutating func update(with event: Event) { base.update(with: event) }

    package mutating func update(with events: [Event]) { base.update(with: events) }

    static func scale(_ scores: [ScoredTarget], by level: Double) -> [ScoredTarget] {
        level == 1 ? scores : scores.map { ScoredTarget(target: $0.target, probability: $0.probability * level) }
    }
}
