import Foundation
import ProactiveEngine
import Synchronization

// MARK: - What ranking reads besides the model, held briefly

/// Each user's declarations, feedback and the Focus filters (`Engine.RankingInputs`),
/// kept so a question does not read them from the store again. The service's own
/// writes of them (shortcuts, timelines, feedback, Focus filters and Focus changes,
/// deletions) drop them at once (`invalidate`); a write by another process (the CLI
/// beside a running service) is seen within `lifetime`.
public final class RankingInputsCache: Sendable {
    public let lifetime: Duration
    private struct Held {
        var inputs: Engine.RankingInputs
        var readAt: ContinuousClock.Instant
        var generation: Int
    }
    private struct State {
        var held: [String: Held] = [:]
        var generation = 0
    }
    private let state = Mutex(State())

    public init(lifetime: Duration = .seconds(1)) {
        self.lifetime = lifetime
    }

    /// The user's inputs: held ones younger than `lifetime`, else read with `engine` and held.
    public func inputs(user: String, engine: Engine) throws -> Engine.RankingInputs {
        let now = ContinuousClock.now
        let (held, generation) = state.withLock { state in (state.held[user], state.generation) }
        if let held, held.generation == generation, now - held.readAt < lifetime { return held.inputs }
        let inputs = try engine.rankingInputs(user: user)
        state.withLock { state in
            // A write while reading: the inputs answer this question but are not kept.
            guard state.generation == generation else { return }
            state.held[user] = Held(inputs: inputs, readAt: now, generation: generation)
        }
        return inputs
    }

    /// Drops everything held (after the service wrote declarations, feedback or Focus state).
    public func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.held.removeAll()
        }
    }
}
