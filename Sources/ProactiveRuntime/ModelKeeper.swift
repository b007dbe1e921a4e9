import Foundation
import Logging
import ServiceLifecycle

// MARK: - Saving held models in the background

/// A lifecycle service that folds pending donations into the held models and
/// saves them every `interval`, off the request path, and on graceful shutdown
/// (after the HTTP server has drained: it stops first) saves the ones that
/// learned something since their last save, within `shutdownBudget`
/// (`LiveModelCache.saveForShutdown`: what is left is caught up from the store
/// on the next read, so a slow disk cannot hold shutdown past a service manager's timeout).
public struct ModelKeeper: Service {
    public let models: LiveModelCache
    public let interval: Duration
    public let shutdownBudget: Duration
    public let logger: Logger

    public init(models: LiveModelCache, interval: Duration, shutdownBudget: Duration = .seconds(20), logger: Logger) {
        self.models = models
        self.interval = interval
        self.shutdownBudget = shutdownBudget
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break  // shutting down
            }
            await models.flush(stop: { Task.isShuttingDownGracefully })
        }
        // Shutting down: the server has drained (it stops before this service); save what is left.
        let clock = ContinuousClock()
        let started = clock.now
        let (saved, left) = await models.saveForShutdown(budget: shutdownBudget)
        let held = await models.count
        logger.notice("saved the held models", metadata: [
            "models": "\(held)", "saved": "\(saved)", "left_to_catch_up": "\(left)",
            "took": "\(clock.now - started)",
        ])
    }
}
