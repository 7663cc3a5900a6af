import CaretideKafka
import CaretideStore
import Hummingbird

/// `/healthz` (the process answers), `/readyz` (database and broker reachable, schema migrated, consumer running,
/// the identity provider's keys loaded, no consumer lane or relay stuck on one unit of work beyond the stall threshold)
/// and `/metrics` (Prometheus text format).
struct OperationalRoutes: Sendable {
    let database: Database
    let producer: KafkaProducer
    let readiness: ReadinessState
    let consumers: [EventConsumerService]
    let metrics: ServiceMetrics
    let progress: ProgressMonitor
    let authenticator: Authenticator

    /// - Parameter metrics: whether `/metrics` is served here too (not when it has a port of its own).
    func register(on router: Router<CaretideRequestContext>, metrics withMetrics: Bool) {
        if withMetrics { registerMetrics(on: router) }
        router.get("healthz") { _, _ in
            try jsonResponse(["status": "ok"])
        }
        router.get("readyz") { _, _ in
            var checks = await readinessChecks()
            let problems = progress.problems()
            checks["progress"] = problems.isEmpty
            let ready = checks.values.allSatisfy { $0 }
            return try jsonResponse(
                ReadinessReport(ready: ready, checks: checks, problems: problems), status: ready ? .ok : .serviceUnavailable)
        }
    }

    func registerMetrics(on router: Router<CaretideRequestContext>) {
        router.get("metrics") { _, _ in
            metrics.report(progress)
            // Readiness and the outbox's backlog as gauges, read at scrape time, so alert rules see what `/readyz`
            // would answer; a database that cannot answer counts the backlog as unknown (the series keeps its value).
            var checks = await readinessChecks()
            checks["progress"] = progress.problems().isEmpty
            metrics.readiness(checks)
            if checks["database"] == true, let pending = try? await Outbox.pendingCount(database, logger: database.logger) {
                metrics.outboxPending(pending)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }

    func readinessChecks() async -> [String: Bool] {
        async let databaseUp = database.isReachable()
        async let brokerUp = producer.isBrokerReachable(timeout: .seconds(2))
        var checks = [
            "database": await databaseUp, "broker": await brokerUp, "migrated": readiness.isMigrated, "authKeys": authenticator.isReady,
        ]
        if !consumers.isEmpty { checks["consumer"] = consumers.allSatisfy(\.isConsuming) }
        return checks
    }
}

struct ReadinessReport: Encodable {
    let ready: Bool
    let checks: [String: Bool]
    /// Why a check fails where a boolean says too little: e.g. which consumer lane has been stuck, for how long.
    let problems: [String]
}
