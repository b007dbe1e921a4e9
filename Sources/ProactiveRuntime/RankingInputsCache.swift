import Foundation
import ProactiveEngine
import ProactiveStore
import Synchronization

// MARK: - What ranking reads besides the model, held briefly

/// Each user's declarations, feedback and the Focus filters (`Engine.RankingInputs`),
/// kept so a question does not read them from the store again. The runtime's own
/// writes of them (shortcuts, timelines, feedback, Focus filters and Focus changes,
/// deletions) drop them at once (`invalidate`, from `Runtime.didWrite`); a write by another process (the CLI
/// beside a running service) is seen within `lifetime`. Inputs older than `lifetime`
/// are read again only when the store committed anything since they were read
/// (`StoreChangeWatch.version`, when given), so users asked again and again are not read again
/// while nothing changed.
public final class RankingInputsCache: Sendable {
    public let lifetime: Duration
    /// Tells whether the store changed since inputs were read (nil: re-read after `lifetime`).
    let changes: (any StoreChangeWatch)?
    private struct Held {
        var inputs: Engine.RankingInputs
        var readAt: ContinuousClock.Instant
        var generation: Int
        var stamp: UInt64
        /// The store's `StoreChangeWatch.version` taken before the inputs were read.
        var storeVersion: Int64?
    }
    private struct State {
        var held: [String: Held] = [:]
        var generation = 0
        /// The last stamp given to inputs read (`stampedInputs`); stamps are never reused.
        var lastStamp: UInt64 = 0
    }
    private let state = Mutex(State())

    public init(lifetime: Duration = .seconds(1), changes: (any StoreChangeWatch)? = nil) {
        self.lifetime = lifetime
        self.changes = changes
    }

    /// The user's inputs: held ones younger than `lifetime`, else read with `engine` and held.
    public func inputs(user: String, engine: Engine) throws -> Engine.RankingInputs {
        try stampedInputs(user: user, engine: engine).inputs
    }

    /// `inputs` with a stamp that names this read of them: the same for as long as they are held, never
    /// reused, so a holder may keep what it computed from them for as long as the stamp stays.
    public func stampedInputs(user: String, engine: Engine) throws -> (inputs: Engine.RankingInputs, stamp: UInt64) {
        let now = ContinuousClock.now
        let (held, generation) = state.withLock { state in (state.held[user], state.generation) }
        if let held, held.generation == generation {
            if now - held.readAt < lifetime { return (held.inputs, held.stamp) }
            // Older than `lifetime`, but nothing was committed since they were read: held for another `lifetime`.
            if let version = held.storeVersion, changes?.version() == version {
                state.withLock { state in
                    if state.generation == generation, state.held[user]?.stamp == held.stamp { state.held[user]?.readAt = now }
                }
                return (held.inputs, held.stamp)
            }
        }
        let version = changes?.version()  // before reading: a commit during the read makes the next check read again
        let inputs = try engine.rankingInputs(user: user)
        let stamp = state.withLock { state in
            state.lastStamp += 1
            // A write while reading: the inputs answer this question but are not kept.
            if state.generation == generation {
                state.held[user] = Held(inputs: inputs, readAt: now, generation: generation, stamp: state.lastStamp, storeVersion: version)
            }
            return state.lastStamp
        }
        return (inputs, stamp)
    }

    /// Drops everything held (`Runtime.didWrite`: declarations, feedback, Focus state or deletions changed).
    public func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.held.removeAll()
        }
    }
}
