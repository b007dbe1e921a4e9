import Foundation
import Logging
import ServiceLifecycle

// MARK: - Saving held models in the background

/// A lifecycle service that folds pending donations into the held models and
/// saves them every `interval`, off the request path, and saves them all once
/// more on graceful shutdown (after the HTTP server has drained: it stops first).
public struct ModelKeeper: Service {
    public let models: LiveModelCache
    public let interval: Duration
    public let logger: Logger

    public init(models: LiveModelCache, interval: Duration, logger: Logger) {
        self.models = models
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break  // shutting down
            }
            await models.flush()
        }
        // Shutting down: the server has drained (it stops before this service); save what is left.
        await models.flush()
        let held = await models.count
        logger.info("saved the held models", metadata: ["models": "\(held)"])
    }
}
