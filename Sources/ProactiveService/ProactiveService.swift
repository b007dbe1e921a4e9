import Foundation
import Hummingbird
import Logging
import ProactiveCore
import ProactiveEngine
import ProactiveRuntime

// MARK: - The service

/// The engine as an HTTP/JSON service (`proactive serve`): a thin adapter
/// over `Engine` that authenticates each request, scopes it to the acting
/// party (`StoreAccess`, exactly the rules of `--as-app`), and answers with
/// the CLI's formats. `openapi.yaml` at the repository root describes every
/// route; `router().routes` lists them for the test that checks the two agree.
public struct ProactiveService: Sendable {
    public struct Configuration: Sendable {
        /// Largest request body accepted (413 above it; at once when `Content-Length` declares more).
        public var maxBody = 16 << 20
        /// How long a connection may go without a complete request head or another part of a request
        /// (a body chunk) before the server closes it: idle keep-alive connections, half-sent headers
        /// (the header deadline: no part is read before the head is complete) and stalled bodies alike.
        /// A request being answered is never cut. `proactive serve --idle-timeout`.
        public var idleTimeout: Duration = .seconds(10)
        /// Bytes of live models kept in memory.
        public var memoryBudget = 512 << 20
        /// How long declarations, feedback and Focus filters read for a question are reused
        /// (the service's own writes of them take effect at once; another process's within this).
        public var inputsLifetime: Duration = .seconds(1)
        /// How often retention is applied after donations none of which is already past its window (`RetentionSweeper`).
        public var retentionInterval: Duration = .seconds(60)
        public init() {}
    }

    /// The store every request's engine works on.
    public let storage: any StoreBackend
    public let credentials: CredentialStore
    /// Live models, ranking inputs, the donation writer and retention: every write goes through one of its methods, which drops what the write made stale.
    public let runtime: Runtime
    /// Each user's last answer to the suggestions route, reused for the same question.
    public let answers: SuggestionAnswers
    public let metrics: ServiceMetrics
    public let configuration: Configuration
    public let logger: Logger

    /// Users' live models (`runtime.models`).
    public var models: LiveModelCache { runtime.models }
    /// Users' declarations, feedback and the Focus filters (`runtime.inputs`).
    public var inputs: RankingInputsCache { runtime.inputs }
    /// Where batches of donations are written (`runtime.committer`).
    public var committer: DonationCommitter { runtime.committer }

    public init(storage: any StoreBackend, credentials: CredentialStore, configuration: Configuration = Configuration(),
                metrics: ServiceMetrics = ServiceMetrics(), logger: Logger = Logger(label: "proactive.serve")) {
        self.storage = storage
        self.credentials = credentials
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        let answers = SuggestionAnswers()
        self.answers = answers
        var settings = Runtime.Configuration()
        settings.memoryBudget = configuration.memoryBudget
        settings.inputsLifetime = configuration.inputsLifetime
        settings.retentionInterval = configuration.retentionInterval
        // Kept answers were computed from held models and inputs: a change drops those it made stale.
        runtime = Runtime(engine: Engine(storage: storage), configuration: settings, metrics: metrics, logger: logger) { change in
            if change.models { answers.removeAll() } else { answers.drop(users: change.donated) }
        }
    }

    /// The engine acting as the request's credential.
    func engine(_ context: ServiceRequestContext) -> Engine { Engine(storage: storage, access: context.access) }

    // MARK: Routes

    /// The router with every route and the middleware (errors as JSON, metrics, credentials, 405 for another
    /// method on a known path). `router().routes` is what `openapi.yaml` describes, path for path.
    public func router() -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(logger: logger))
        router.add(middleware: CredentialMiddleware(credentials: credentials))
        router.add(middleware: BodyLimitMiddleware(maxBody: configuration.maxBody))
        router.addRoutes(HealthController(service: self).routes)
        router.addRoutes(DonationsController(service: self).routes, atPath: "/v1")
        router.addRoutes(UsersController(service: self).routes, atPath: "/v1")
        router.addRoutes(SuggestionsController(service: self).routes, atPath: "/v1")
        router.addRoutes(StackController(service: self).routes, atPath: "/v1")
        router.addRoutes(DeclarationsController(service: self).routes, atPath: "/v1")
        router.addRoutes(FeedbackController(service: self).routes, atPath: "/v1")
        router.addRoutes(FocusController(service: self).routes, atPath: "/v1")
        router.addRoutes(FocusFiltersController(service: self).routes, atPath: "/v1")
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes.map { ($0.method, $0.path.description) }))
        return router
    }
}
