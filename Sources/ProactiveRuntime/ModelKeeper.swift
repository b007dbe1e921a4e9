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
/// With `retrainEvery`, it also trains every user of the store afresh that often
/// (`LiveModelCache.retrain`: what `proactive train` does, at the lowest priority, then the held models
/// replaced by the trained ones), so a long-running holder stays within that span of what `train`
/// would answer, and logs `retrained N users in X s`. A training under way when stopped is abandoned
/// at its next user; shutdown does not wait for it.
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
    /// How often every user is trained afresh (nil: never).
    public let retrainEvery: Duration?
    public let logger: Logger

    private struct State {
        var stopped = false
        /// `run`'s loops waiting out their spans (resumed early by `stop` or cancellation), by waiter.
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }
    private let state = Mutex(State())

    /// - Parameters:
    ///   - shutdownFolding: default a quarter of a second, or a quarter of `shutdownBudget` when that is less.
    ///   - shutdownWorkers: default the machine's cores, at most 4.
    ///   - retrainEvery: how often every user is trained afresh, the first time one span after `run` starts (nil: never).
    public init(models: LiveModelCache, interval: Duration, shutdownBudget: Duration = .seconds(20),
                shutdownFolding: Duration? = nil,
                shutdownWorkers: Int = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)),
                retrainEvery: Duration? = nil, logger: Logger) {
        self.models = models
        self.interval = interval
        self.shutdownBudget = shutdownBudget
        self.shutdownFolding = shutdownFolding ?? min(.milliseconds(250), shutdownBudget / 4)
        self.shutdownWorkers = max(1, shutdownWorkers)
        self.retrainEvery = retrainEvery
        self.logger = logger
    }

    /// Folds and saves every `interval` (and retrains every `retrainEvery`) until `stop()` is called or the
    /// task is cancelled, then saves what is left within `shutdownBudget` and returns. A fold or save under
    /// way when stopped ends early; a training under way is abandoned, not waited for.
    public func run() async {
        let retraining = retrainEvery.map { every in Task { await retrainLoop(every: every) } }
        while await pause() {
            await models.flush(stop: { [self] in isStopped || Task.isCancelled })
        }
        stop()  // also when cancelled: the retraining loop ends, a fold under way ends at its next check
        retraining?.cancel()
        let clock = ContinuousClock()
        let started = clock.now
        let (saved, left) = await models.saveForShutdown(budget: shutdownBudget, folding: shutdownFolding, workers: shutdownWorkers)
        let took = clock.now - started
        let held = await models.count
        logger.notice("saved \(saved) models in \(took.logText)", metadata: [
            "models": "\(held)", "saved": "\(saved)", "left_to_catch_up": "\(left)", "workers": "\(shutdownWorkers)",
        ])
    }

    /// Every `every` until stopped: trains every user afresh and holds the trained models, and logs what it did.
    private func retrainLoop(every: Duration) async {
        while await pause(every) {
            let clock = ContinuousClock()
            let started = clock.now
            let done = await models.retrain(stop: { [self] in isStopped })
            if done.abandoned, isStopped { return }
            let took = clock.now - started
            for failure in done.failures { logger.warning("could not retrain a user", metadata: ["error": "\(failure)"]) }
            logger.notice("retrained \(done.trained) users in \(took.logText)", metadata: [
                "held_replaced": "\(done.replaced)", "failures": "\(done.failures.count)", "abandoned": "\(done.abandoned)",
            ])
        }
    }

    /// Ends `run`: its wait is cut short and it saves the held models before returning. Calling it
    /// before `run` makes `run` save at once and return.
    public func stop() {
        models.stopFolding()  // a fold under way (a periodic pass) ends at its next check
        let waiting = state.withLock { state in
            state.stopped = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Waits `span` (default `interval`), less when stopped or cancelled meanwhile. - Returns: whether to go on.
    private func pause(_ span: Duration? = nil) async -> Bool {
        if isStopped || Task.isCancelled { return false }
        let span = span ?? interval
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: span) }
            group.addTask { await self.untilStopped() }
            await group.next()
            group.cancelAll()
        }
        return !isStopped && !Task.isCancelled
    }

    /// Returns once `stop()` is called or the task is cancelled.
    private func untilStopped() async {
        let waiter = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.stopped || Task.isCancelled { return true }
                    state.waiting[waiter] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { $0.waiting.removeValue(forKey: waiter) }
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
