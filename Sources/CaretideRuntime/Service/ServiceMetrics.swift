import CoreMetrics
import Foundation
public import Prometheus
import Synchronization

/// The metrics of one service, kept in its own Prometheus registry so that several services can run in one process
/// (the integration tests do) without sharing counters. Labels carry topics and event types, never patient data.
public final class ServiceMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[Series: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[Series: CoreMetrics.Timer]>([:])
    private let gauges = Mutex<[Series: CoreMetrics.Gauge]>([:])
    private let httpSeries = Mutex<[HTTPSeries: (requests: CoreMetrics.Counter, duration: CoreMetrics.Timer)]>([:])

    /// The series of answered requests with one route, method and status.
    private struct HTTPSeries: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// One series: a metric's name and its labels, in the order given.
    private struct Series: Hashable {
        let label: String
        let names: [String]
        let values: [String]

        init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            names = dimensions.map(\.0)
            values = dimensions.map(\.1)
        }
    }

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
        ]
        self.factory = factory
    }

    public func eventConsumed(topic: String) { counter("caretide_events_consumed_total", topic: topic).increment() }
    public func eventProduced(topic: String, count: Int = 1) { counter("caretide_events_produced_total", topic: topic).increment(by: count) }
    public func eventFailed(topic: String) { counter("caretide_events_failed_total", topic: topic).increment() }
    public func eventDeadLettered(topic: String) { counter("caretide_events_dead_lettered_total", topic: topic).increment() }
    /// A consumed message kept in PostgreSQL because even the dead-letter topic refused it.
    public func eventParked(topic: String) { counter("caretide_events_parked_total", topic: topic).increment() }
    /// A partition whose committed position the broker no longer held: messages were skipped (`OffsetReset`).
    public func offsetReset(topic: String) { counter("caretide_consumer_offset_resets_total", topic: topic).increment() }
    /// An outbox row moved aside because the broker refused it for good.
    public func outboxRowParked(topic: String) { counter("caretide_outbox_parked_total", topic: topic).increment() }

    /// Whether the service is ready (1) or not (0), and each readiness check, as `/readyz` would answer now.
    func readiness(_ checks: [String: Bool]) {
        gauge("caretide_ready", dimensions: []).record(checks.values.allSatisfy { $0 } ? 1 : 0)
        for (check, passing) in checks { gauge("caretide_readiness_check", dimensions: [("check", check)]).record(passing ? 1 : 0) }
    }

    /// Events in the outbox not yet published.
    func outboxPending(_ count: Int) { gauge("caretide_outbox_pending", dimensions: []).record(count) }

    /// A round of a periodic job completed (`PeriodicJob`). (The label is `periodic_job`: Prometheus keeps `job`.)
    func periodicJobRound(_ name: String) {
        counter("caretide_periodic_job_rounds_total", dimensions: [("periodic_job", name)]).increment()
    }

    /// Time from receiving a message to committing its effects.
    public func processingLatency(topic: String, _ duration: Duration) {
        timer("caretide_event_processing_seconds", dimensions: [("topic", topic)]).recordNanoseconds(duration.nanoseconds)
    }

    /// One answered HTTP request, by route pattern (never the path with its ids), method (its `label`) and status.
    func httpRequest(route: String, method: String, status: Int, _ duration: Duration) {
        // Looked up once per request by its three values: building and hashing both series' labels cost more.
        let series = httpSeries.withLock { known in
            let key = HTTPSeries(route: route, method: method, status: status)
            if let series = known[key] { return series }
            let dimensions = [("route", route), ("method", method), ("status", String(status))]
            let series = (
                requests: counter("caretide_http_requests_total", dimensions: dimensions),
                duration: timer("caretide_http_request_duration_seconds", dimensions: dimensions)
            )
            known[key] = series
            return series
        }
        series.requests.increment()
        series.duration.recordNanoseconds(duration.nanoseconds)
    }

    /// Creates the series of each consumed topic at zero when the service starts: a fresh service's `/metrics`
    /// already names them, so a rate or an alert sees "none yet" rather than no series at all.
    func prepare(consumedTopics: [String]) {
        for topic in consumedTopics {
            for label in [
                "caretide_events_consumed_total", "caretide_events_failed_total", "caretide_events_dead_lettered_total",
                "caretide_events_parked_total",
                "caretide_consumer_offset_resets_total",
            ] {
                _ = counter(label, topic: topic)
            }
            _ = timer("caretide_event_processing_seconds", dimensions: [("topic", topic)])
            consumerLag(topic: topic, messages: 0, seconds: 0)
        }
    }

    private func timer(_ label: String, dimensions: [(String, String)]) -> CoreMetrics.Timer {
        let key = Series(label, dimensions)
        return timers.withLock { timers in
            if let timer = timers[key] { return timer }
            let timer = CoreMetrics.Timer(
                label: label, dimensions: dimensions, handler: factory.makeTimer(label: label, dimensions: dimensions), factory: factory)
            timers[key] = timer
            return timer
        }
    }

    /// Messages not yet applied and committed, summed over the partitions this instance owns: from the last committed
    /// offset, not the fetch position, so messages fetched but stuck in a lane count. And the lag in seconds: how long
    /// ago the oldest of them was produced (0 when none is held), which the broker's retention is measured against.
    public func consumerLag(topic: String, messages: Int64, seconds: Double) {
        gauge("caretide_consumer_lag", dimensions: [("topic", topic)]).record(messages)
        gauge("caretide_consumer_lag_seconds", dimensions: [("topic", topic)]).record(seconds)
    }

    /// Each worker's progress (consumer lanes, the outbox relay), refreshed when `/metrics` is read: seconds spent on
    /// the work in hand (0 when idle) and the Unix time it last finished a unit of work.
    func report(_ monitor: ProgressMonitor) {
        for worker in monitor.snapshot() {
            gauge("caretide_worker_busy_seconds", dimensions: [("worker", worker.name)]).record(worker.busySeconds)
            gauge("caretide_worker_last_progress_timestamp_seconds", dimensions: [("worker", worker.name)])
                .record(worker.lastProgress.timeIntervalSince1970)
        }
    }

    private func gauge(_ label: String, dimensions: [(String, String)]) -> CoreMetrics.Gauge {
        let key = Series(label, dimensions)
        return gauges.withLock { gauges in
            if let gauge = gauges[key] { return gauge }
            let gauge = CoreMetrics.Gauge(label: label, dimensions: dimensions, factory: factory)
            gauges[key] = gauge
            return gauge
        }
    }

    /// Adds to a counter of the service's own (a feature's metric, declared in the service beside what it counts).
    public func count(_ label: String, dimensions: [(String, String)], by amount: Int = 1) {
        counter(label, dimensions: dimensions).increment(by: amount)
    }

    /// Sets a gauge of the service's own (see `count(_:dimensions:by:)`).
    public func set(_ label: String, dimensions: [(String, String)], to value: Double) {
        gauge(label, dimensions: dimensions).record(value)
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

    private func counter(_ label: String, topic: String) -> CoreMetrics.Counter {
        counter(label, dimensions: [("topic", topic)])
    }

    private func counter(_ label: String, dimensions: [(String, String)]) -> CoreMetrics.Counter {
        let key = Series(label, dimensions)
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }
}

extension Duration {
    /// The duration in seconds, for reports and logs.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
