import Foundation
import Logging
import Synchronization

// MARK: - Saving held models in the background

/// Folds pending donations into the held models and saves them every `interval`, off the
/// question path, until `stop()`; then folds the donations still pending for at most
/// `shutdownFolding` and saves the models that learned something since their last save,
/// `shutdownWorkers` transactions at once, within `shutdownBudget` in all
/// (`LiveModelCache.saveForShutdown`: what is left is caught up from the store on the next read,
/// so neither a flood of donations nor a slow disk can hold shutdown past a service manager's
/// timeout), and logs `saved N models in X s`.
///
/// A plain async loop: an app runs it in a task of its own and stops it on the way out (the
/// service runs it as a ServiceLifecycle service that graceful shutdown stops). One `run()` at a time.
///
/// ```swift
/// let runtime = Runtime(engine: try Engine(path: "me.sqlite"))
/// let keeper = ModelKeeper(models: runtime.models, interval: .seconds(30), logger: Logger(label: "app"))
/// let saving = Task { await keeper.run() }
/// // ... the app answers questions ...
/// keeper.stop()
/// await saving.value  // the held models that learned something are saved
/// ```
public final class ModelKeeper: Sendable {
    public let models: LiveModelCache
    public let interval: Duration
    public let shutdownBudget: Duration
    /// The part of `shutdownBudget` that folding the donations still pending may take on shutdown.
    public let shutdownFolding: Duration
    /// Save transactions written at once on shutdown (each encodes its models on a core of its own).
    public let shutdownWorkers: Int
    public let logger: Logger

    private struct State {
        var stopped = false
        /// `run` waiting out its interval (resumed early by `stop` or cancellation).
        var waiting: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// - Parameters:
    ///   - shutdownFolding: default a quarter of a second, or a quarter of `shutdownBudget` when that is less.
    ///   - shutdownWorkers: default the machine's cores, at most 4.
    public init(models: LiveModelCache, interval: Duration, shutdownBudget: Duration = .seconds(20),
                shutdownFolding: Duration? = nil,
                shutdownWorkers: Int = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)), logger: Logger) {
        self.models = models
        self.interval = interval
        self.shutdownBudget = shutdownBudget
        self.shutdownFolding = shutdownFolding ?? min(.milliseconds(250), shutdownBudget / 4)
        self.shutdownWorkers = max(1, shutdownWorkers)
        self.logger = logger
    }

    /// Folds and saves every `interval` until `stop()` is called or the task is cancelled, then saves
    /// what is left within `shutdownBudget` and returns. A fold or save under way when stopped ends early.
    public func run() async {
        while await pause() {
            await models.flush(stop: { [self] in isStopped || Task.isCancelled })
        }
        models.stopFolding()  // also when cancelled: a fold under way ends at its next check
        let clock = ContinuousClock()
        let started = clock.now
        let (saved, left) = await models.saveForShutdown(budget: shutdownBudget, folding: shutdownFolding, workers: shutdownWorkers)
        let took = clock.now - started
        let held = await models.count
        logger.notice("saved \(saved) models in \(took.logText)", metadata: [
            "models": "\(held)", "saved": "\(saved)", "left_to_catch_up": "\(left)", "workers": "\(shutdownWorkers)",
        ])
    }

    /// Ends `run`: its wait is cut short and it saves the held models before returning. Calling it
    /// before `run` makes `run` save at once and return.
    public func stop() {
        models.stopFolding()  // a fold under way (a periodic pass) ends at its next check
        let waiting = state.withLock { state in
            state.stopped = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Waits `interval`, less when stopped or cancelled meanwhile. - Returns: whether to go on.
    private func pause() async -> Bool {
        if isStopped || Task.isCancelled { return false }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [interval] in try? await Task.sleep(for: interval) }
            group.addTask { await self.untilStopped() }
            await group.next()
            group.cancelAll()
        }
        return !isStopped && !Task.isCancelled
    }

    /// Returns once `stop()` is called or the task is cancelled.
    private func untilStopped() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.stopped || Task.isCancelled { return true }
                    state.waiting = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume()
        }
    }
}

extension Duration {
    /// The duration in seconds to the millisecond, as the service's log lines print it: "0.250 s", "12.034 s".
    package var logText: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return String(format: "%.3f s", seconds)
    }
}
