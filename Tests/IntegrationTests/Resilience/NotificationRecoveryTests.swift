import CaretideDomain
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import NotificationService
import PostgresNIO
import Testing

/// notification-service under duplication and crashes: a duplicated input event notifies once; the scheduler killed
/// with SIGKILL in the middle of a due batch and restarted fires every occurrence exactly once.
@Suite(.serialized, .stoppingStacks) struct NotificationRecoveryTests {
    @Test("a duplicated input event (the same event id twice, from an outside producer) produces one notification")
    func duplicateEventNotifiesOnce() async throws {
        let kcat = try #require(KcatTests.kcat, "kcat is not installed (apt-get install kcat)")
        let stack = try await TestStack.start([NotificationService.definition])
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        func line(trace: String) throws -> String {
            let envelope = EventEnvelope(
                producer: "kcat", patientID: "p-dup", traceID: trace,
                payload: AssessmentRecorded(
                    assessmentID: UUID(), sourceEventID: UUID(), subjectID: UUID().uuidString.lowercased(),
                    category: .bloodPressure(.hypertensiveCrisis), severity: .urgent, tip: "bloodPressure.crisis", ruleSetVersion: "2026.11.1",
                    observedAt: Date(),
                    supersedes: nil, values: ["systolic": 190, "diastolic": 100]))
            return "p-dup|" + String(decoding: try EventCodec().encode(envelope), as: UTF8.self) + "\n"
        }
        // The event twice, then another event of the same patient: its alert, on the same partition, comes after
        // anything the duplicate could have caused.
        let duplicated = try line(trace: "dup-trace")
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("dup-\(UUID()).txt")
        try Data((duplicated + duplicated + line(trace: "next-trace")).utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let produced = try await Subprocess.run(
            kcat, ["-P", "-b", stack.broker.bootstrapServers, "-t", Topic.scores.name, "-K", "|", "-l", input.path])
        #expect(produced.status == 0, "\(produced.output)")
        let received = try await alerts.receive(2)
        #expect(received.map { $0.headers[EventHeader.traceID] } == ["dup-trace", "next-trace"])
        let count = try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.fetchAll("SELECT count(*)::int FROM notifications WHERE patient_id = 'p-dup'", as: Int.self, logger: logger)
                .first
        }
        #expect(count == 2)
        await alerts.close()
        try await stack.shutdown()
    }

    static let reminderCount = 6_000

    @Test("the scheduler killed in the middle of a due batch and restarted fires every occurrence exactly once")
    func killedMidBatch() async throws {
        let stack = try await TestStack.start([], partitions: 12)
        var environment = try await stack.processEnvironment()
        environment["REMINDER_CHECK_INTERVAL_SECONDS"] = "1"
        let executable = Paths.executable("notification-service")
        func count(_ sql: String) async throws -> Int {
            try await stack.withDatabase(schema: "notification") { database, logger in
                (try? await database.client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collectAll().first?.decode(Int.self)) ?? 0
            }
        }

        let first = ServiceProcess(name: "notification-service", executable: executable, environment: environment)
        let second = ServiceProcess(name: "notification-service", executable: executable, environment: environment)
        // Whatever fails below, no service process outlives the test.
        defer {
            first.killHard()
            second.killHard()
        }
        try first.start()
        try await eventually("the schema is migrated", timeout: .seconds(120)) {
            try await count("SELECT (to_regclass('notification.reminder_occurrences') IS NOT NULL)::int") == 1
        }
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query(
                """
                INSERT INTO reminders (reminder_id, patient_id, topic, repeats, starts_on, at_time, time_zone, dates, origin, next_index, next_due_at)
                SELECT gen_random_uuid(), 'p-' || n, 'skinCheck', 'weekly', to_char(now() AT TIME ZONE 'UTC' - interval '1 minute', 'YYYY-MM-DD'),
                       to_char(now() AT TIME ZONE 'UTC' - interval '1 minute', 'HH24:MI'), 'UTC', '{}', 'patient', 0, now() - interval '1 minute'
                FROM generate_series(1, \(Self.reminderCount)) AS n
                """, logger: logger)
        }
        try await eventually("firing under way", timeout: .seconds(120)) { try await count("SELECT count(*)::int FROM reminder_occurrences") >= 500 }
        first.killHard()
        let atKill = try await count("SELECT count(*)::int FROM reminder_occurrences")
        #expect(atKill < Self.reminderCount, "the batch must still be in progress when the service is killed")

        try second.start()
        try await eventually("every occurrence fired after the restart", timeout: .seconds(180)) {
            try await count("SELECT count(*)::int FROM reminder_occurrences") >= Self.reminderCount
        }
        try await eventually("every notification published", timeout: .seconds(60)) { try await count("SELECT count(*)::int FROM outbox") == 0 }
        await second.stop()
        #expect(try await count("SELECT count(*)::int FROM reminder_occurrences") == Self.reminderCount)
        #expect(try await count("SELECT count(DISTINCT reminder_id)::int FROM reminder_occurrences") == Self.reminderCount)
        #expect(try await count("SELECT count(*)::int FROM notifications WHERE kind = 'reminder'") == Self.reminderCount)
        // Each recipient's one message numbered 1: none taken twice, none skipped.
        #expect(try await count("SELECT count(*)::int FROM recipient_sequences WHERE last_sequence = 1") == Self.reminderCount)
        try await stack.shutdown()
    }
}
