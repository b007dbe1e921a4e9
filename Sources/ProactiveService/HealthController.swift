import Foundation
import Hummingbird
import NIOCore
import ProactiveEngine

// MARK: - Liveness, readiness and metrics

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
