import Foundation
import NIOCore
import Synchronization

// MARK: - The last answer to each user's suggestions question

/// Each user's last answer to `POST /v1/suggestions`, as the bytes sent, reused
/// for the same question while nothing it was computed from changed.
///
/// A suggestion is a function of the held model (`LiveModelCache.question`'s
/// version: a fold, a save or a new read changes it), the ranking inputs
/// (`RankingInputsCache.stampedInputs`' stamp: re-read at least every
/// `inputsLifetime`, dropped at once by the service's own writes of them) and
/// the question (the moment to the millisecond, the UTC offset, the context, k,
/// developer mode). Ranking also reads the user's latest donations from the
/// store when the held model's own are not for that moment: the service's
/// batches drop the answers of the users they stored donations for (`drop`),
/// and another process's donations are seen within the inputs' lifetime, as
/// its declarations are. Surfaces ask again and again about the same minute
/// (a widget refresh, a Smart Stack rotation): those answers cost a lookup.
/// One answer is kept per user, at most `capacity` users (all dropped beyond).
public final class SuggestionAnswers: Sendable {
    /// What an answer was computed from.
    struct Key: Equatable, Sendable {
        var model: UInt64
        var inputs: UInt64
        var milliseconds: Int64
        var utcOffset: Int?
        var context: [String: String]
        var k: Int
        var developer: Bool
    }
    private struct State {
        var answers: [String: (key: Key, body: ByteBuffer)] = [:]
        var hits = 0
    }
    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The answer kept for `user` when it was computed from `key`.
    func answer(user: String, key: Key) -> ByteBuffer? {
        state.withLock { state in
            guard let kept = state.answers[user], kept.key == key else { return nil }
            state.hits += 1
            return kept.body
        }
    }

    /// Keeps `body` as `user`'s answer to `key` (replacing the user's previous one).
    func keep(user: String, key: Key, body: ByteBuffer) {
        state.withLock { state in
            if state.answers.count >= capacity, state.answers[user] == nil { state.answers.removeAll() }
            state.answers[user] = (key, body)
        }
    }

    /// Forgets the answers of `users` (their donations changed).
    public func drop(users: some Sequence<String>) {
        state.withLock { state in
            if state.answers.isEmpty { return }
            for user in users { state.answers[user] = nil }
        }
    }

    /// Forgets every answer (every held model changed).
    public func removeAll() {
        state.withLock { $0.answers.removeAll() }
    }

    /// Answers given from what was kept so far.
    public var hits: Int { state.withLock { $0.hits } }
}
