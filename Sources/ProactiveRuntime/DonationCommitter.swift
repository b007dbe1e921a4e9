import Foundation
import ProactiveEngine
import ProactiveStore
import Synchronization

// MARK: - Group commit of donation batches

/// Stores the donation batches of concurrent requests, several in one write
/// transaction (group commit), on a thread of its own.
///
/// A request hands over its batch, already checked and encoded
/// (`Engine.prepare(batch:)`), and waits without holding one of the
/// concurrency pool's threads (on 2 cores there are 2): those go on decoding
/// other requests while this thread writes. The thread takes every batch
/// waiting when it is free (up to `maximumDonations` donations) and writes them
/// together (`Engine.commit(batches:)`, the store's `DonationStore.appendEach(batches:)`;
/// on SQLite one transaction, the batches one after the other, and again each in a savepoint
/// of its own only when one fails), so batches that arrived while the previous write
/// committed share one commit. A request is answered only after the transaction holding
/// its batch committed; a batch that fails is answered with its own error, the others are
/// stored. This type never checkpoints or tunes the store: the store does
/// (`StoreBackend.prepareForSustainedWrites`; docs/PERFORMANCE.md says why for SQLite).
/// The thread ends when nothing is waiting and starts again with the next batch.
public final class DonationCommitter: Sendable {
    typealias Answer = CheckedContinuation<[Result<Bool, StoreError>], any Error>
    private struct Waiting {
        var batch: PreparedDonations
        var answer: Answer
    }
    private struct State {
        var waiting: [Waiting] = []
        var running = false
        /// Transactions committed so far and the batches they held (for tests and metrics).
        var transactions = 0
        var batches = 0
        /// Seconds the thread spent writing (wall clock), and of those on a CPU (its own CPU time).
        var writingSeconds = 0.0
        var cpuSeconds = 0.0
    }

    /// Whose store the batches are written to (the owner's engine: each batch was checked for its caller by `Engine.prepare`).
    public let engine: Engine
    /// Donations at most in one transaction (more waiting are left for the next one).
    public let maximumDonations: Int
    private let state = Mutex(State())

    public init(engine: Engine, maximumDonations: Int = 20_000) {
        self.engine = engine
        self.maximumDonations = maximumDonations
    }

    /// Stores `batch` (each donation on its own, duplicates skipped) and answers once it is
    /// committed: per donation, true when stored, false when a duplicate, or why it was refused.
    /// - Throws: `StoreError` when the batch could not be stored (then none of it is).
    public func commit(_ batch: PreparedDonations) async throws -> [Result<Bool, StoreError>] {
        if batch.donations.isEmpty { return [] }
        return try await withCheckedThrowingContinuation { (answer: Answer) in
            let start = state.withLock { state -> Bool in
                state.waiting.append(Waiting(batch: batch, answer: answer))
                defer { state.running = true }
                return !state.running
            }
            if start {
                let thread = Thread { [self] in
                    // Named from inside: on Linux a name set before `start()` never reaches the thread,
                    // and the kernel keeps at most 15 bytes (so `perf` and `top -H` show it).
                    Thread.current.name = "proactive-write"
                    while let group = next() { write(group) }
                }
                thread.start()
            }
        }
    }

    /// Transactions committed and batches they held since the start: batches / transactions
    /// is how many requests shared a commit on average.
    public var committed: (transactions: Int, batches: Int) {
        state.withLock { ($0.transactions, $0.batches) }
    }

    /// Seconds spent writing groups so far (wall clock) and the thread's CPU time in them: over a
    /// load, writing / wall time is how busy the one writer was, and cpu / writing how much of
    /// that it computed rather than waited (for the disk, or for a lock).
    public var writing: (seconds: Double, cpuSeconds: Double) {
        state.withLock { ($0.writingSeconds, $0.cpuSeconds) }
    }

    /// The batches waiting, oldest first, up to `maximumDonations` donations (at least one
    /// batch); nil, and the thread ends, when none is waiting.
    private func next() -> [Waiting]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running = false
                return nil
            }
            var count = 0
            var taken = 0
            for waiting in state.waiting {
                if taken > 0, count + waiting.batch.donations.count > maximumDonations { break }
                count += waiting.batch.donations.count
                taken += 1
            }
            let group = Array(state.waiting[..<taken])
            state.waiting.removeFirst(taken)
            return group
        }
    }

    private func write(_ group: [Waiting]) {
        let started = (wall: Self.seconds(CLOCK_MONOTONIC), cpu: Self.seconds(CLOCK_THREAD_CPUTIME_ID))
        defer {
            let wall = Self.seconds(CLOCK_MONOTONIC) - started.wall, cpu = Self.seconds(CLOCK_THREAD_CPUTIME_ID) - started.cpu
            state.withLock { state in
                state.writingSeconds += wall
                state.cpuSeconds += cpu
            }
        }
        do {
            let results = try engine.commit(batches: group.map(\.batch))
            state.withLock { state in
                state.transactions += 1
                state.batches += group.count
            }
            for (waiting, result) in zip(group, results) { waiting.answer.resume(with: result.mapError { $0 as any Error }) }
        } catch {
            for waiting in group { waiting.answer.resume(throwing: error) }
        }
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var now = timespec()
        clock_gettime(clock, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
