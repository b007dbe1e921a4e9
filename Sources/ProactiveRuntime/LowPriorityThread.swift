import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Work that must not take CPU from requests

/// Runs jobs one at a time on a thread of its own at the lowest scheduling
/// priority (nice 19 on Linux, where the nice value is per thread).
///
/// Folding donations into held models costs far more per donation than storing
/// them (the blend refits its weights every few events), so under a flood of
/// donations it would take the cores that answer requests. Here it gets what
/// the requests leave: held models fall behind during a burst and catch up
/// after it (questions answer from the model as folded so far). The thread
/// ends when no job is waiting and starts again with the next one.
final class LowPriorityThread: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var running = false
    }
    private let state = Mutex(State())

    init() {}

    /// Runs `body` on the thread and returns what it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job: @Sendable () -> Void = { continuation.resume(with: Result { try body() }) }
            let start = state.withLock { state -> Bool in
                state.jobs.append(job)
                defer { state.running = true }
                return !state.running
            }
            if start {
                let thread = Thread { [self] in
                    Thread.current.name = "proactive-bg"  // from inside, at most 15 bytes (see DonationCommitter)
                    #if canImport(Glibc)
                    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)  // this thread only (Linux)
                    #endif
                    while let job = next() { job() }
                }
                thread.start()
            }
        }
    }

    private func next() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.head < state.jobs.count else {
                state.jobs.removeAll(keepingCapacity: true)
                state.head = 0
                state.running = false
                return nil
            }
            defer { state.head += 1 }
            return state.jobs[state.head]
        }
    }
}
