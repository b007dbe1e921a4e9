import Foundation
import ProactiveCore

// MARK: - Most recently used

/// Ranks targets by how recently they last happened, most recent first.
/// Name: `mru`.
///
/// Probabilities: the target at recency position k (0 = most recent) scores
/// 1 / (k + 1), normalised (a harmonic, Zipf-like distribution), so the model
/// has a log-loss. The moment's recent events count as uses too: they are
/// what the user just did.
package struct MostRecentTrainer: ReplayTrainer {
    package let name = MostRecentModel.modelName
    package init() {}

    package typealias Model = MostRecentModel

    package func makeModel() -> MostRecentModel { MostRecentModel() }
}

/// The fitted most-recently-used baseline.
package struct MostRecentModel: FittedModel {
    package static let modelName = "mru"
    package var name: String { Self.modelName }
    /// When each target was last used.
    package private(set) var lastUse: [TargetKey: Date] = [:]

    package init() {}

    package func scores(at moment: Moment) -> [ScoredTarget] {
        var uses = lastUse
        for event in moment.recent where event.date <= moment.date {
            if let known = uses[event.target], known >= event.date { continue }
            uses[event.target] = event.date
        }
        // Most recent first; equal times by key.
        let order = uses.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        var scores: [TargetKey: Double] = [:]
        scores.reserveCapacity(order.count)
        for (position, entry) in order.enumerated() { scores[entry.key] = 1 / Double(position + 1) }
        return BaselineRanking.ranked(scores)
    }

    package mutating func update(with event: Event) {
        if let known = lastUse[event.target], known > event.date { return }
        lastUse[event.target] = event.date
    }
}
