import Foundation
import Hummingbird
import Logging
import NIOCore
import ProactiveEngine
import ProactiveRuntime
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
    /// Save transactions written at once on shutdown (`ModelKeeper.shutdownWorkers`): the machine's cores, at most 4.
    public var shutdownWorkers = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))
    /// How often every user is trained afresh and the held models replaced (`ModelKeeper.retrainEvery`); nil: never.
    public var retrainEvery: Duration? = .seconds(24 * 3600)
    /// Where to write the owner's credential when a store that keeps only hashes (a database) has
    /// none yet (`ProactiveService.serve`); nil: such a store must have one.
    public var ownerCredentialFile: String?

    public init(address: Address) {
        self.address = address
    }
}

/// The service as a Hummingbird application: `service`'s router on `settings.address`, with the
/// `ModelKeeper` that saves held models periodically and on graceful shutdown (unless `settings.saveEvery` is nil).
/// `onServerRunning` is told the TCP port bound (nil on a socket): with port 0, the one the system chose.
///
/// ```swift
/// let service = ProactiveService(storage: storage, credentials: CredentialStore(records: try storage.credentials))
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
        [ModelKeeperService(keeper: ModelKeeper(models: service.models, interval: $0, shutdownBudget: settings.shutdownSave,
                                                shutdownWorkers: settings.shutdownWorkers, retrainEvery: settings.retrainEvery,
                                                logger: logger))]
    } ?? []
    // Hummingbird's HTTP/1 idle timer: reset by each request part read, so it is also the header and read deadline.
    let idle = service.configuration.idleTimeout.components
    let timeout = TimeAmount.nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)
    return Application(
        router: service.router(),
        server: .http1(configuration: .init(idleTimeout: timeout)),
        configuration: ApplicationConfiguration(address: address, serverName: "proactive"),
        services: keepers,
        onServerRunning: { channel in
            let port = channel.localAddress?.port
            switch settings.address {
            case let .socket(path):
                chmod(path, 0o600)
                // The exact line to try it with: the default path depends on XDG_RUNTIME_DIR (see the README).
                logger.notice("listening", metadata: ["address": "unix:\(path)", "try": "curl --unix-socket \(path) http://localhost/healthz"])
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
    ///
    /// The credentials are the store's (`storage.credentials`): a store file's are the files beside
    /// it, the owner's created as `STORE.owner-credential`; a database keeps their hashes, and when
    /// it has no owner credential yet the one created is written to `settings.ownerCredentialFile`
    /// (mode 0600; a file there already holding a credential is adopted). Several instances on one
    /// database share one owner credential: the second finds it, two starting at once create one.
    /// - Throws: `StoreError` when the store, the credentials or the socket path cannot be set up;
    ///   `.invalidRequest` for a database without an owner credential and no `ownerCredentialFile`,
    ///   or an `ownerCredentialFile` for a store that keeps the owner's credential itself.
    public static func serve(storage: any StoreBackend, settings: ServeSettings, logger: Logger) async throws {
        let records = try storage.credentials
        if let kept = records.ownerCredentialFile, let named = settings.ownerCredentialFile, named != kept {
            throw StoreError(.invalidRequest, "\(storage.location) keeps the owner's credential in \(kept); --owner-credential-file is for a database")
        }
        try storage.prepareForSustainedWrites()  // batches of donations many times a second: the indexes' hot pages stay cached
        let credentials = CredentialStore(records: records)
        if records.ownerCredentialFile == nil, settings.ownerCredentialFile == nil, try records.ownerHash() == nil {
            throw StoreError(.invalidRequest, "\(storage.location) has no owner credential yet: give --owner-credential-file PATH "
                             + "for serve to create one there (mode 0600; the database keeps only its hash)")
        }
        let owner = try credentials.ensureOwnerCredential(file: settings.ownerCredentialFile)
        if owner.created {
            logger.notice("created the owner's credential", metadata: ["file": "\(records.ownerCredentialFile ?? settings.ownerCredentialFile ?? "")"])
        } else if let named = settings.ownerCredentialFile, records.ownerCredentialFile == nil, owner.credential == nil {
            logger.notice("the database has an owner credential already, not the one in this file (if any)", metadata: ["file": "\(named)"])
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
