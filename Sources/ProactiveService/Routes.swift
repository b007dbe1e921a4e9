import Foundation
import Hummingbird
import NIOCore
import ProactiveEngine

// MARK: - The routes, one controller per area

extension ProactiveService {
    /// The router with every route and the middleware (errors as JSON, metrics, credentials, 405 for another
    /// method on a known path). `router().routes` is what `openapi.yaml` describes, path for path.
    public func router() -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(logger: logger))
        router.add(middleware: CredentialMiddleware(credentials: credentials))
        router.add(middleware: BodyLimitMiddleware(maxBody: configuration.maxBody))
        router.addRoutes(HealthController(service: self).routes)
        router.addRoutes(DonationController(service: self).routes, atPath: "/v1")
        router.addRoutes(QuestionController(service: self).routes, atPath: "/v1")
        router.addRoutes(DeclarationController(service: self).routes, atPath: "/v1")
        router.addRoutes(FocusController(service: self).routes, atPath: "/v1")
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes.map { ($0.method, $0.path.description) }))
        return router
    }
}

/// `GET /healthz` (liveness) and `GET /readyz` (readiness: the store answers), no credential; `GET /metrics` (the owner's).
struct HealthController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get("/healthz") { _, _ in HealthAnswer() }
            .get("/readyz", use: ready)
            .get("/metrics", use: metrics)
    }

    /// 200 `{"status": "ready"}` when the store answers one cheap statement (`Engine.checkStoreAnswers`);
    /// 503 `store_unavailable` with `Retry-After` while it does not (the database away, the file unreadable).
    @Sendable func ready(_ request: Request, _ context: ServiceRequestContext) throws -> HealthAnswer {
        do {
            try Engine(storage: service.storage).checkStoreAnswers()
        } catch {
            var answer = APIError(.serviceUnavailable, "store_unavailable", "the store does not answer: \(error)")
            answer.retryAfter = APIError.databaseRetryAfter
            throw answer
        }
        return HealthAnswer(status: "ready")
    }

    @Sendable func metrics(_ request: Request, _ context: ServiceRequestContext) throws -> Response {
        try context.requireOwner(to: "read the service's metrics")
        var buffer = ByteBuffer()
        buffer.writeString(service.metrics.exposition())
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: ResponseBody(byteBuffer: buffer))
    }
}

/// Storing and deleting donations.
struct DonationController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("donations", use: service.donate)
            .delete("donations", use: service.deleteDonations)
            .delete("users", use: service.eraseUser)
    }
}

/// Questions about a user: predictions, suggestions, the Smart Stack, donation counts.
struct QuestionController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .post("predict", use: service.predict)
            .post("suggestions", use: service.suggest)
            .post("stack", use: service.stack)
            .get("stats", use: service.stats)
    }
}

/// What apps declare besides donations: shortcuts, widget timelines, feedback; and the intent definitions.
struct DeclarationController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .put("apps/{app}/shortcuts", use: service.putShortcuts)
            .put("timelines", use: service.putTimelines)
            .post("feedback", use: service.postFeedback)
            .get("definitions", use: service.getDefinitions)
    }
}

/// Focus: the Focus on, apps' Focus filters, notifications and the people to allow.
struct FocusController {
    let service: ProactiveService

    var routes: RouteCollection<ServiceRequestContext> {
        RouteCollection(context: ServiceRequestContext.self)
            .get("focus", use: service.getFocus)
            .put("focus", use: service.putFocus)
            .get("focus/people", use: service.getFocusPeople)
            .get("apps/{app}/focus-filter", use: service.getFocusFilter)
            .put("apps/{app}/focus-filter", use: service.putFocusFilter)
            .patch("apps/{app}/focus-filter/{focus}", use: service.patchFocusFilter)
            .post("notifications", use: service.postNotification)
    }
}

// MARK: - Another method on a known path

/// A request whose path is a route's but whose method is not one the path answers: 405 with the path's
/// methods in `Allow` (after the credential check, as a route's answer would be).
struct MethodNotAllowedMiddleware: RouterMiddleware {
    /// Each route path, its segments (a `{name}` segment matches any one) and the methods it answers.
    let paths: [(path: String, segments: [Substring], methods: [String])]
    /// The order methods are listed in `Allow`.
    static let order = ["GET", "HEAD", "PUT", "POST", "PATCH", "DELETE"]

    init(routes: [(method: HTTPRequest.Method, path: String)]) {
        var methods: [String: [String]] = [:]
        var order: [String] = []
        for route in routes {
            if methods[route.path] == nil { order.append(route.path) }
            methods[route.path, default: []].append(route.method.rawValue)
        }
        paths = order.map { path in
            (path, path.split(separator: "/"), methods[path]!.sorted { (Self.order.firstIndex(of: $0) ?? 9) < (Self.order.firstIndex(of: $1) ?? 9) })
        }
    }

    func handle(_ request: Request, context: ServiceRequestContext,
                next: (Request, ServiceRequestContext) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
        let segments = request.uri.path.split(separator: "/")
        if let known = paths.first(where: { Self.matches($0.segments, segments) }), !known.methods.contains(method) {
            let allow = known.methods.joined(separator: ", ")
            var error = APIError(.methodNotAllowed, "method_not_allowed", "\(known.path) answers \(allow), not \(method)")
            error.allow = allow
            throw error
        }
        return try await next(request, context)
    }

    static func matches(_ template: [Substring], _ segments: [Substring]) -> Bool {
        template.count == segments.count && zip(template, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }
}
