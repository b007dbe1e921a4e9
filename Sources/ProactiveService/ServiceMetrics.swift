import Foundation
import Metrics
import Prometheus

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
        Metrics.Counter(label: "proactive_http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))],
                factory: factory).increment()
        Metrics.Timer(label: "proactive_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                      factory: factory).recordNanoseconds(nanoseconds)
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String { registry.emitToString() }
}
