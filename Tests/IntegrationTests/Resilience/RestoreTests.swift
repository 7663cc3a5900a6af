import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import ScoringService
import Testing

/// Backup and restore as docs/operations.md describes it: a pg_dump of a running stack's database, restored into a
/// fresh cluster; the service started on the restored database continues where it stopped, on the same Kafka
/// (its offsets live there): nothing processed twice, nothing lost.
@Suite(.serialized, .stoppingStacks) struct RestoreTests {
    static let batch = 300

    static func readings(_ count: Int) -> (Set<UUID>, [OutgoingMessage]) {
        var ids: Set<UUID> = []
        let messages = (0..<count).map { index in
            let id = UUID()
            ids.insert(id)
            let patient = "patient-\(index % 20)"
            return OutgoingMessage(
                topic: Topic.measurements.name, key: patient,
                value: Array(
                    #"{"eventId":"\#(id)","eventType":"blood-pressure.recorded","schemaVersion":1,"occurredAt":"2026-11-22T08:00:00Z","producer":"test","patientId":"\#(patient)","payload":{"measurementId":"\#(UUID())","revision":1,"systolic":\#(100 + index % 90),"diastolic":70,"takenAt":"2026-11-22T07:00:00Z","source":"device"}}"#
                        .utf8))
        }
        return (ids, messages)
    }

    static func tool(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.sorted { Int($0) ?? 0 > Int($1) ?? 0 } ?? []
        guard
            let version = versions.first(where: {
                FileManager.default.isExecutableFile(atPath: root.appendingPathComponent("\($0)/bin/\(name)").path)
            })
        else { throw MissingTool(name: name) }
        return root.appendingPathComponent("\(version)/bin/\(name)").path
    }

    struct MissingTool: Error {
        let name: String
    }

    @Test("pg_dump of a running stack, restored into a fresh cluster: scoring continues from its committed offsets, each reading assessed once")
    func dumpAndRestore() async throws {
        let stack = try await TestStack.start([], partitions: 3)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer"))
        let (before, first) = Self.readings(Self.batch)
        try await producer.send(first)

        var environment = try await stack.processEnvironment()
        let executable = Paths.executable("scoring-service")

        func counts(_ database: DatabaseConfiguration) async throws -> (rows: Int, sources: Set<UUID>, processed: Int, pending: Int) {
            let logger = TestLogging.logger("sql")
            let db = Database(configuration: database, schema: "scoring", logger: logger)
            return try await db.whileRunning {
                let rows = (try? await db.client.fetchAll("SELECT count(*)::int FROM assessments", as: Int.self, logger: logger).first) ?? 0
                let ids: [UUID] = (try? await db.client.fetchAll("SELECT source_event_id FROM assessments", as: UUID.self, logger: logger)) ?? []
                let sources = Set(ids)
                let processed = (try? await db.client.fetchAll("SELECT count(*)::int FROM processed_events", as: Int.self, logger: logger).first) ?? 0
                let pending = (try? await Outbox.pendingCount(db, logger: logger)) ?? -1
                return (rows, sources, processed, pending)
            }
        }

        // Scoring runs on the original database and applies the first readings; then it stops, and more arrive.
        let original = ServiceProcess(name: "scoring-service", executable: executable, environment: environment)
        // Whatever fails below, no service process outlives the test.
        defer { original.killHard() }
        try original.start()
        try await eventually("the first readings assessed", timeout: .seconds(120)) { try await counts(stack.database).rows >= Self.batch }
        await original.stop()
        let (after, second) = Self.readings(Self.batch)
        try await producer.send(second)
        await producer.shutdown()

        // The backup, and the restore into a cluster of its own.
        let dump = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-\(UUID().uuidString.prefix(8)).dump").path
        defer { try? FileManager.default.removeItem(atPath: dump) }
        let dumped = try await Subprocess.run(try Self.tool("pg_dump"), ["--format=custom", "--file=\(dump)", stack.database.url])
        #expect(dumped.status == 0, "\(dumped.output)")
        let (cluster, stopCluster) = try await TestPostgres.privateCluster()
        try await cluster.createDatabase("caretide_restored")
        let restored = cluster.configuration(database: "caretide_restored")
        let restoring = try await Subprocess.run(try Self.tool("pg_restore"), ["--no-owner", "--no-privileges", "--dbname=\(restored.url)", dump])
        #expect(restoring.status == 0, "\(restoring.output)")
        let atRestore = try await counts(restored)
        #expect(atRestore.rows == Self.batch && atRestore.sources == before)

        // Scoring on the restored database, same broker: it takes up at its committed offsets.
        environment["DATABASE_URL"] = restored.url
        let resumed = ServiceProcess(name: "scoring-service", executable: executable, environment: environment)
        defer { resumed.killHard() }
        try resumed.start()
        try await eventually("every reading assessed on the restored database", timeout: .seconds(120)) {
            try await counts(restored).rows >= 2 * Self.batch
        }
        // A redelivery would show as a duplicate row or a second processed event. It would come before anything newer
        // on its partition: one more reading per patient (twenty patients cover every partition), assessed, shows
        // every partition was read past what came before.
        let (later, third) = Self.readings(20)
        let lateProducer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer"))
        try await lateProducer.send(third)
        await lateProducer.shutdown()
        try await eventually("a later reading of every patient assessed", timeout: .seconds(60)) {
            try await counts(restored).rows >= 2 * Self.batch + later.count
        }
        await resumed.stop()
        let final = try await counts(restored)
        #expect(final.rows == 2 * Self.batch + later.count, "one assessment per reading")
        #expect(final.sources == before.union(after).union(later), "none lost, none from elsewhere")
        #expect(final.processed == 2 * Self.batch + later.count)
        #expect(final.pending == 0, "every assessment published")
        await stopCluster()
        try await stack.shutdown()
    }
}
