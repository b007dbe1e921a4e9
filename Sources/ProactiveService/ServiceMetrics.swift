import Foundation
import Metrics
import Prometheus
import ProactiveRuntime
import Synchronization

// MARK: - Metrics

/// The service's metrics (swift-metrics, exported by swift-prometheus at
/// `GET /metrics`), on a registry of its own so two services in one process
/// (tests) do not share counts. Labels name routes, methods and statuses,
/// never a credential, user or app.
public struct ServiceMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    let donationsStored: Metrics.Counter
    let donationsRejected: Metrics.Counter
    let refits: Metrics.Counter
    let modelsInMemory: Metrics.Gauge
    let modelBytes: Metrics.Gauge
    /// Each route's request counter (per status) and timer, made once: the factory looks its
    /// metrics up by label and dimensions under the registry's lock.
    private let perRoute = RouteMetrics()

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(2.5), .seconds(10),
        ]
        self.factory = factory
        donationsStored = Metrics.Counter(label: "proactive_donations_stored_total", factory: factory)
        donationsRejected = Metrics.Counter(label: "proactive_donations_rejected_total", factory: factory)
        refits = Metrics.Counter(label: "proactive_refits_total", factory: factory)
        modelsInMemory = Metrics.Gauge(label: "proactive_models_in_memory", factory: factory)
        modelBytes = Metrics.Gauge(label: "proactive_model_bytes_in_memory", factory: factory)
    }

    /// Counts one answered request and records how long it took.
    func record(route: String, method: String, status: Int, nanoseconds: Int64) {
        let (counter, timer) = perRoute.metrics(for: RouteMetrics.Key(route: route, method: method, status: status)) { key in
            (Metrics.Counter(label: "proactive_http_requests_total",
                             dimensions: [("route", key.route), ("method", key.method), ("status", String(key.status))], factory: factory),
             Metrics.Timer(label: "proactive_http_request_duration_seconds", dimensions: [("route", key.route), ("method", key.method)],
                           factory: factory))
        }
        counter.increment()
        timer.recordNanoseconds(nanoseconds)
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String { registry.emitToString() }
}

/// The request metrics made so far, by route, method and status.
private final class RouteMetrics: Sendable {
    struct Key: Hashable, Sendable {
        var route: String
        var method: String
        var status: Int
    }
    private let made = Mutex<[Key: (Metrics.Counter, Metrics.Timer)]>([:])

    func metrics(for key: Key, make: (Key) -> (Metrics.Counter, Metrics.Timer)) -> (Metrics.Counter, Metrics.Timer) {
        if let known = made.withLock({ $0[key] }) { return known }
        let new = make(key)  // the factory answers the same metric for the same label and dimensions
        return made.withLock { made in
            if let known = made[key] { return known }
            made[key] = new
            return new
        }
    }
}

extension ServiceMetrics: LiveModelMetrics {
    public func refitted() { refits.increment() }

    public func held(models: Int, bytes: Int) {
        modelsInMemory.record(models)
        modelBytes.record(bytes)
    }
}
