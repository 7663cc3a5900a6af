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
        // The reminder due last is held mid-batch, so that the kill lands inside a due batch whatever the machine's
        // speed: the test inserts, uncommitted, an occurrence row with the id the scheduler will give that reminder's
        // first occurrence (under a cancelled reminder of its own), and the scheduler's insert of it waits on that row.
        let last = UUID()
        let holder = UUID()
        let (isHeld, announceHeld) = AsyncStream<Void>.makeStream()
        let (release, releaseHolder) = AsyncStream<Void>.makeStream()
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query(
                """
                INSERT INTO reminders (reminder_id, patient_id, topic, repeats, starts_on, at_time, time_zone, dates, origin, next_index, next_due_at,
                                       cancelled_at)
                VALUES (\(holder), 'p-holder', 'skinCheck', 'weekly', '2026-01-01', '09:00', 'UTC', '{}', 'patient', 0, NULL, now())
                """, logger: logger)
        }
        let holderTransaction = Task {
            try await stack.withDatabase(schema: "notification") { database, logger in
                try await database.client.withConnection { connection in
                    _ = try await connection.query("BEGIN", logger: logger)
                    _ = try await connection.query(
                        """
                        INSERT INTO reminder_occurrences (reminder_id, occurrence_index, occurrence_id, due_at, fired_at, late)
                        VALUES (\(holder), 0, \(UUID.named("reminder/\(last.uuidString.lowercased())/0")), now(), now(), false)
                        """, logger: logger)
                    announceHeld.yield()
                    for await _ in release { break }
                    _ = try await connection.query("ROLLBACK", logger: logger)
                }
            }
        }
        for await _ in isHeld { break }
        try await stack.withDatabase(schema: "notification") { database, logger in
            // Due a minute ago, but the held one half a minute ago: it is taken in the last batch.
            try await database.client.query(
                """
                INSERT INTO reminders (reminder_id, patient_id, topic, repeats, starts_on, at_time, time_zone, dates, origin, next_index, next_due_at)
                SELECT CASE WHEN n = \(Self.reminderCount) THEN \(last) ELSE gen_random_uuid() END, 'p-' || n, 'skinCheck', 'weekly',
                       to_char(now() AT TIME ZONE 'UTC' - interval '1 minute', 'YYYY-MM-DD'),
                       to_char(now() AT TIME ZONE 'UTC' - interval '1 minute', 'HH24:MI'), 'UTC', '{}', 'patient', 0,
                       now() - CASE WHEN n = \(Self.reminderCount) THEN interval '30 seconds' ELSE interval '1 minute' END
                FROM generate_series(1, \(Self.reminderCount)) AS n
                """, logger: logger)
        }
        try await eventually("the last batch waiting on the held occurrence", timeout: .seconds(120)) {
            try await count(
                """
                SELECT count(*)::int FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND ltrim(query) LIKE 'INSERT INTO reminder_occurrences%'
                """) == 1
        }
        first.killHard()
        let atKill = try await count("SELECT count(*)::int FROM reminder_occurrences")
        #expect(atKill < Self.reminderCount, "the batch must still be in progress when the service is killed")
        releaseHolder.yield()
        try await holderTransaction.value

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
