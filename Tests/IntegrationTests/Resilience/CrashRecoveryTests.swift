import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import ScoringService
import Testing

/// scoring-service is killed with SIGKILL in the middle of a stream and restarted: every event is scored exactly
/// once (no loss, no duplicate rows), because offsets are committed only after the transaction and the processed-
/// events key turns redeliveries into no-ops.
@Suite(.serialized, .stoppingStacks) struct CrashRecoveryTests {
    static let eventCount = 10_000

    @Test("SIGKILL mid-stream, restart: every event scored exactly once")
    func killedScoringServiceLosesAndDuplicatesNothing() async throws {
        // The broker and database only; scoring-service runs as a real process so it can be killed.
        // Twelve partitions keep every topic well under the embedded broker's ~5 MB per partition.
        let stack = try await TestStack.start([], partitions: 12)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer"))
        /// A reading of patient `index % 40` (forty patients cover every partition), and its event id.
        func reading(_ index: Int) -> (UUID, OutgoingMessage) {
            let id = UUID()
            let patient = "patient-\(index % 40)"
            let systolic = 100 + index % 100
            return (
                id,
                OutgoingMessage(
                    topic: Topic.measurements.name, key: patient,
                    value: Array(
                        #"{"eventId":"\#(id)","eventType":"blood-pressure.recorded","schemaVersion":1,"occurredAt":"2026-11-22T08:00:00Z","producer":"test","patientId":"\#(patient)","payload":{"measurementId":"\#(UUID())","revision":1,"systolic":\#(systolic),"diastolic":70,"takenAt":"2026-11-22T07:00:00Z","source":"device"}}"#
                            .utf8))
            )
        }
        let readings = (0..<Self.eventCount).map(reading)
        var sent = Set(readings.map(\.0))
        let messages = readings.map(\.1)
        for chunk in stride(from: 0, to: messages.count, by: 5_000) {
            try await producer.send(Array(messages[chunk..<min(chunk + 5_000, messages.count)]))
        }

        let environment = try await stack.processEnvironment()
        let executable = Paths.executable("scoring-service")

        func scoredCount() async throws -> Int {
            try await stack.withDatabase(schema: "scoring") { database, logger in
                (try? await database.client.fetchAll("SELECT count(*)::int FROM assessments", as: Int.self, logger: logger).first) ?? 0
            }
        }

        let first = ServiceProcess(name: "scoring-service", executable: executable, environment: environment)
        // Whatever fails below, no service process outlives the test.
        defer { first.killHard() }
        try first.start()
        try await eventually("scoring under way", timeout: .seconds(120)) { try await scoredCount() >= 200 }
        first.killHard()
        let atKill = try await scoredCount()
        #expect(first.exitCode == 128 + SIGKILL)
        #expect(atKill < Self.eventCount, "the stream must still be in progress when the service is killed")

        let second = ServiceProcess(name: "scoring-service", executable: executable, environment: environment)
        defer { second.killHard() }
        try second.start()
        try await eventually("all events scored after restart", timeout: .seconds(180)) { try await scoredCount() >= Self.eventCount }
        // A redelivery of what the killed process had applied but not committed comes before anything newer on its
        // partition: one more reading per patient, scored, shows every partition was read past what came before.
        let sentinels = (0..<40).map(reading)
        sent.formUnion(sentinels.map(\.0))
        try await producer.send(sentinels.map(\.1))
        await producer.shutdown()
        try await eventually("a later reading of every patient scored", timeout: .seconds(60)) { try await scoredCount() >= sent.count }
        await second.stop()

        let (rows, distinctSources, processed, pending) = try await stack.withDatabase(schema: "scoring") { database, logger in
            let counts = try await database.client.fetchAll(
                "SELECT count(*)::int, count(DISTINCT source_event_id)::int FROM assessments", as: (Int, Int).self, logger: logger)[0]
            let processed = try await database.client.fetchAll("SELECT event_id FROM processed_events", as: UUID.self, logger: logger)
            return (counts.0, counts.1, Set(processed), try await Outbox.pendingCount(database, logger: logger))
        }
        #expect(rows == sent.count)
        #expect(distinctSources == sent.count)
        #expect(processed.count == sent.count && processed.isSubset(of: sent))
        #expect(pending == 0, "every assessment event was published")

        // The scores topic carries one assessment per source event (a relay crash may repeat one; never lose one), among
        // the care-tracking flags the readings also raise.
        let scores = try KafkaProbe(stack.kafka, topic: Topic.scores.name)
        var sources: Set<UUID> = []
        let deadline = ContinuousClock.now + .seconds(180)
        while sources.count < sent.count, ContinuousClock.now < deadline {
            for message in try await scores.drain(for: .milliseconds(500)) {
                if let assessed = try EventCodec().decode(message.value).payload(as: AssessmentRecorded.self) {
                    sources.insert(assessed.sourceEventID)
                }
            }
        }
        #expect(sources.count == sent.count && sources.isSubset(of: sent))
        await scores.close()
        try await stack.shutdown()
    }
}
