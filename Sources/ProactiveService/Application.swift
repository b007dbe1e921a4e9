import Foundation
import Hummingbird
import Logging
import ProactiveRuntime
import ProactiveStore
import ServiceLifecycle

// MARK: - The application

/// Where and how `proactive serve` runs, as its flags say.
public struct ServeSettings: Sendable {
    /// Where the service listens: a Unix domain socket (made mode 0600 once listening), or TCP.
    public enum Address: Sendable {
        case socket(path: String)
        case tcp(host: String, port: Int)
    }

    public var address: Address
    public var service = ProactiveService.Configuration()
    /// How often held models are saved (`ModelKeeper`); nil: no keeper runs (the holder saves them itself).
    public var saveEvery: Duration? = .seconds(30)
    /// How long saving held models may take on shutdown.
    public var shutdownSave: Duration = .seconds(20)

    public init(address: Address) {
        self.address = address
    }
}

/// The service as a Hummingbird application: `service`'s router on `settings.address`, with the
/// `ModelKeeper` that saves held models periodically and on graceful shutdown (unless `settings.saveEvery` is nil).
/// `onServerRunning` is told the TCP port bound (nil on a socket): with port 0, the one the system chose.
///
/// ```swift
/// let service = ProactiveService(database: database, credentials: CredentialStore(storePath: path))
/// let app = buildApplication(service: service, settings: ServeSettings(address: .tcp(host: "127.0.0.1", port: 0)))
/// try await app.runService()
/// ```
public func buildApplication(service: ProactiveService, settings: ServeSettings,
                             onServerRunning: @escaping @Sendable (_ port: Int?) async -> Void = { _ in }) -> some ApplicationProtocol {
    let logger = service.logger
    let address: BindAddress
    switch settings.address {
    case let .socket(path): address = .unixDomainSocket(path: path)
    case let .tcp(host, port): address = .hostname(host, port: port)
    }
    let keepers = settings.saveEvery.map {
        [ModelKeeperService(keeper: ModelKeeper(models: service.models, interval: $0, shutdownBudget: settings.shutdownSave, logger: logger))]
    } ?? []
    return Application(
        router: service.router(),
        configuration: ApplicationConfiguration(address: address, serverName: "proactive"),
        services: keepers,
        onServerRunning: { channel in
            let port = channel.localAddress?.port
            switch settings.address {
            case let .socket(path):
                chmod(path, 0o600)
                logger.notice("listening", metadata: ["address": "unix:\(path)"])
            case let .tcp(host, _):
                logger.notice("listening", metadata: ["address": "\(host):\(port ?? 0)"])
            }
            await onServerRunning(port)
        },
        logger: logger
    )
}

/// The runtime's `ModelKeeper` as a lifecycle service: graceful shutdown stops it, and it then saves
/// the held models. The application's services are shut down after its HTTP server, so the last
/// requests' donations are folded in before that save.
public struct ModelKeeperService: Service {
    public let keeper: ModelKeeper

    public init(keeper: ModelKeeper) { self.keeper = keeper }

    public func run() async {
        await withGracefulShutdownHandler { await keeper.run() } onGracefulShutdown: { keeper.stop() }
    }
}

extension ProactiveService {
    /// Runs the service until SIGTERM or SIGINT (then in-flight requests finish and held models are
    /// saved within `settings.shutdownSave`), as `proactive serve` does: tunes the store for sustained
    /// writes, creates the owner's credential on first use, makes way for the socket and removes it after.
    /// The credentials are the files beside the store's file (`CredentialStore(storePath:)`).
    /// - Throws: `StoreError` when the store, the credential file or the socket path cannot be set up;
    ///   `StoreError(.invalidRequest)` for a store that is not a file (no place for the credential files).
    public static func serve(storage: any StoreBackend, settings: ServeSettings, logger: Logger) async throws {
        guard let storePath = storage.filePath else {
            throw StoreError(.invalidRequest, "\(storage.location): the service keeps its credentials in files beside a store file; "
                             + "this store is not a file")
        }
        try storage.prepareForSustainedWrites()  // batches of donations many times a second: the indexes' hot pages stay cached
        let credentials = CredentialStore(storePath: storePath)
        if try credentials.ensureOwnerCredential().created {
            logger.notice("created the owner's credential", metadata: ["file": "\(credentials.ownerPath)"])
        }
        let service = ProactiveService(storage: storage, credentials: credentials, configuration: settings.service, logger: logger)
        if case let .socket(path) = settings.address { try Listening.prepareSocket(at: path) }
        try await buildApplication(service: service, settings: settings).runService()
        let committed = service.committer.committed
        let writing = service.committer.writing
        logger.notice("donation batches committed", metadata: [
            "batches": "\(committed.batches)", "transactions": "\(committed.transactions)",
            "writing_s": "\(String(format: "%.2f", writing.seconds))", "writing_cpu_s": "\(String(format: "%.2f", writing.cpuSeconds))",
            "suggestion_answers_reused": "\(service.answers.hits)",
        ])
        if case let .socket(path) = settings.address { unlink(path) }
        logger.notice("stopped")
    }
}
