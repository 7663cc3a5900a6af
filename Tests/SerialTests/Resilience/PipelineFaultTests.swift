import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ingest, scoring and notification run as processes of their own under a steady load of readings,
/// and one fault after another strikes them: each service killed with SIGKILL and restarted, the broker down and up,
/// every database connection killed with `pg_terminate_backend`, PostgreSQL restarted. No operator steps in. At the
/// end every accepted reading has exactly one assessment, one notification in the patient's inbox and one alert on
/// `caretide.alerts`, each recipient's alerts numbered without a gap.
///
/// Runs alone, after the rest (SerialTests: see scripts/test): it takes the embedded broker down, and runs three
/// service processes under load.
@Suite(.serialized, .stoppingStacks) struct PipelineFaultTests {
    static let services = ["ingest-service", "scoring-service", "notification-service"]
    static let patients = 40

    @Test(
        "under load: each service SIGKILLed and restarted, the broker down and up, connections terminated, PostgreSQL restarted; nothing lost, nothing twice"
    )
    func faultsUnderLoad() async throws {
        // A cluster of its own: restarting it must not touch other tests' databases.
        let cluster = try await TestPostgres.privateCluster()
        let stack = try await TestStack.start([], partitions: 3, database: cluster.server.configuration)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let services = ServiceReplicas(environment: try await stack.processEnvironment())
        // Whatever fails below, no service process outlives the test.
        try await services.stopAllOnFailure {
            for name in Self.services { try services.start(name) }
            try await eventually("the services ready", timeout: .seconds(120)) { await services.allReady() }

            // The load (`UrgentReadingLoad`): urgent readings, each sent until it is accepted, with the same measurement
            // id and Idempotency-Key on every retry.
            let load = UrgentReadingLoad(ingest: [services.baseURL("ingest-service")], patients: Self.patients, patientPrefix: "p-fault-")
            func progress(_ what: String) async throws { try await load.progress(what, in: stack) }

            try await progress("at the start")
            for name in Self.services {
                #expect(services.kill(name) == 128 + SIGKILL, "\(name) killed")
                try await Task.sleep(for: .milliseconds(500))
                try services.start(name)
                try await progress("after \(name) was killed")
            }
            stack.broker.setAllBrokersDown()
            try await Task.sleep(for: .seconds(3))
            stack.broker.setAllBrokersUp()
            try await progress("after the broker was down")
            let terminated = try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll(
                    "SELECT count(*)::int FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND pid <> pg_backend_pid()) AS killed",
                    as: Int.self, logger: logger)
            }
            #expect((terminated.first ?? 0) > 0, "the services' connections were terminated")
            try await progress("after the connections were terminated")
            try await cluster.server.restart()
            try await progress("after PostgreSQL restarted")
            try await load.stop()

            // Reconciliation: every accepted reading once in scoring, once in the patient's inbox, once on the topic.
            try await PipelineReconciliation.verify(stack: stack, alerts: alerts, accepted: load.accepted.values, abandoned: load.abandoned.values)
            try await eventually("every service ready again") { await services.allReady() }
        }

        await services.stopAll()
        await alerts.close()
        try await stack.shutdown()
        await cluster.stop()
    }
}
