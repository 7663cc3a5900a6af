import ArgumentParser
import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO
import ScoringService
import ServiceLifecycle
import Synchronization

/// scoring-service end to end on this machine: the embedded broker, a private PostgreSQL (fsync on, as deployed) and
/// the service in-process.
/// 1. Throughput: a topic pre-filled with blood-pressure readings is drained; rows committed per second.
/// 2. Latency at a fixed rate: readings produced at `--rate` per second; for each, the time from just before it was
///    sent to the moment its assessment event arrives on `caretide.scores` (an upper bound of event-to-commit: it adds
///    the outbox relay and a consumer hop).
struct ScoringBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scoring", abstract: "scoring-service throughput and event-to-commit latency.")

    @Option(help: "Readings pre-filled for the throughput phase.") var events = 50_000
    @Option(help: "Partitions of each topic (the embedded broker keeps about 5 MB per partition).") var partitions = 12
    @Option(help: "Distinct patients (message keys).") var patients = 2_000
    @Option(help: "Readings per second in the latency phase.") var rate = 2_000
    @Option(help: "Seconds of the latency phase.") var seconds = 20
    @Flag(help: "Print PostgreSQL's time per statement in the throughput phase (pg_stat_statements).") var statementStats = false
    @Option(help: "Consumer lanes (CONSUMER_LANES); the service's default when not given.") var lanes: Int?
    @Option(name: .customLong("postgres-setting"), help: "A PostgreSQL server setting, name=value (repeatable), e.g. autovacuum_naptime=60.")
    var postgresSettings: [String] = []

    func validate() throws {
        for setting in postgresSettings where LocalPostgres.setting(parsing: setting) == nil {
            throw ValidationError("--postgres-setting \(setting): expected name=value")
        }
    }

    func run() async throws {
        let logger = BenchPostgres.logger
        // Commit timestamps give each assessment row the moment its transaction committed: event-to-commit exactly.
        var settings = ["track_commit_timestamp": "on"]
        if statementStats { settings["shared_preload_libraries"] = "pg_stat_statements" }
        for case (let name, let value)? in postgresSettings.map(LocalPostgres.setting(parsing:)) { settings[name] = value }
        let bench = try await BenchPostgres.start(settings: settings, logger: logger)
        defer { bench.stop() }
        let postgres = bench.server
        let broker = try EmbeddedBroker(logger: logger)
        for topic in Topic.allCases { try broker.createTopic(topic.name, partitions: partitions) }
        let kafka = KafkaConfiguration(
            bootstrapServers: broker.bootstrapServers,
            properties: EmbeddedBroker.clientProperties.merging(["heartbeat.interval.ms": "500", "linger.ms": "2"]) { _, bench in bench })
        let producer = try KafkaProducer(configuration: kafka, logger: logger)

        Console.write("pre-filling \(events) readings over \(partitions) partitions…\n")
        var readings = (0..<events).map { reading(index: $0) }
        for chunk in stride(from: 0, to: readings.count, by: 5_000) {
            try await producer.send(readings[chunk..<min(chunk + 5_000, readings.count)].map(\.message))
        }
        readings.removeAll()

        var configuration = ServiceConfiguration(
            serviceName: ScoringService.name, httpHost: "127.0.0.1", httpPort: 0, database: postgres.configuration, kafka: kafka,
            // The bench drives Kafka only; no HTTP request is made.
            auth: .disabled, logLevel: .warning)
        if let lanes { configuration.limits.consumerLanes = lanes }
        let assembly = try await ServiceAssembly(definition: ScoringService.definition, configuration: configuration, logger: logger, signals: false)
        let service = Task { try await assembly.group.run() }
        // The superuser: it creates the pg_stat_statements extension and reads every role's statements.
        let counter = Database(configuration: postgres.superuserConfiguration(), schema: "scoring", logger: logger)
        try await counter.whileRunning {
            if statementStats {
                try await counter.client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public", logger: logger)
                try await counter.client.query("SELECT public.pg_stat_statements_reset()", logger: logger)
            }
            // Phase 1: drain the pre-filled topic. Rows per second from the first commit to the last, read from the
            // rows' commit timestamps; the poll only waits for the end, rarely enough not to load PostgreSQL.
            while (try? await counter.client.fetchAll("SELECT count(*)::int FROM assessments", as: Int.self, logger: logger).first) ?? 0 < events {
                try await Task.sleep(for: .milliseconds(500))
            }
            let span = try await counter.client.fetchAll(
                """
                SELECT count(*)::int, extract(epoch FROM min(c))::float8, extract(epoch FROM max(c))::float8,
                       count(*) FILTER (WHERE c = min_c)::int
                FROM (SELECT pg_xact_commit_timestamp(xmin) AS c, min(pg_xact_commit_timestamp(xmin)) OVER () AS min_c FROM assessments) t
                """, as: (Int, Double, Double, Int).self, logger: logger)[0]
            // The first transaction's rows are not counted: the span starts at its commit.
            let elapsed = span.2 - span.1
            // bounded: a count of rows over the seconds that committed them, both measured here.
            Console.write(
                "throughput: \(span.0 - span.3) rows committed in \(String(format: "%.2f", elapsed)) s = \(Int(Double(span.0 - span.3) / elapsed)) events/s\n"
            )
            let clock = ContinuousClock()
            let drained = clock.now
            while (try? await Outbox.pendingCount(counter, logger: logger)) ?? 1 > 0 { try await Task.sleep(for: .milliseconds(20)) }
            Console.write(
                "published: the relay's backlog was empty \(String(format: "%.2f", (clock.now - drained).seconds)) s after the last row was counted\n"
            )
            if statementStats { try await printStatementStats(counter, logger: logger) }
        }

        // Phase 2: a fixed rate, latency per event.
        // The probe reads only what is published from now on: the pre-fill's assessments are not its business.
        var probeConfiguration = kafka
        probeConfiguration.properties["auto.offset.reset"] = "latest"
        let probe = try KafkaConsumer(
            configuration: probeConfiguration, groupID: "bench-\(UUID().uuidString.prefix(8))", topics: [Topic.scores.name], logger: logger)
        let sentAt = SentTimes()
        var sentWallClock: [UUID: Date] = [:]
        let total = rate * seconds
        let receiver = Task { () -> [Duration] in
            var latencies: [Duration] = []
            let deadline = ContinuousClock.now + .seconds(seconds + 120)
            while latencies.count < total, ContinuousClock.now < deadline {
                guard let message = try await probe.poll(timeout: .milliseconds(100)) else { continue }
                let arrived = ContinuousClock.now
                guard let event = try? EventCodec().decode(message.value), let assessed = event.payload(as: AssessmentRecorded.self),
                    let sent = sentAt.take(assessed.sourceEventID)
                else { continue }
                latencies.append(arrived - sent)
            }
            return latencies
        }
        // Let the probe join its group (the embedded broker's first join takes 3 s) before the clock starts.
        try await Task.sleep(for: .seconds(5))
        Console.write("latency: \(rate) readings/s for \(seconds) s…\n")
        let tick = Duration.milliseconds(10)
        let perTick = max(1, rate / 100)
        let clock = ContinuousClock()
        var next = clock.now
        var index = events
        for _ in 0..<(total / perTick) {
            let batch = (0..<perTick).map { _ in
                defer { index += 1 }
                return reading(index: index)
            }
            let now = clock.now
            let wallClock = Date()
            for item in batch {
                sentAt.put(item.id, now)
                sentWallClock[item.id] = wallClock
            }
            for item in batch { try producer.sendWithoutWaiting(item.message) }
            next = next + tick
            try await Task.sleep(until: next, clock: clock)
        }
        let latencies = LatencySummary(try await receiver.value)
        Console.write(
            "latency to the assessment event on caretide.scores over \(latencies.sorted.count) of \(total) events: "
                + "p50 \(latencies.milliseconds(0.50)), p90 \(latencies.milliseconds(0.90)), p99 \(latencies.milliseconds(0.99)), "
                + "max \(latencies.milliseconds(1.0))\n")

        // Event-to-commit: from just before the reading was sent to the commit of the transaction that stored its
        // assessment (same machine, same wall clock).
        let reader = Database(configuration: postgres.superuserConfiguration(), schema: "scoring", logger: logger)
        let sent = sentWallClock
        let commits = try await reader.whileRunning {
            try await reader.client.fetchAll(
                """
                SELECT source_event_id, extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 FROM assessments
                WHERE source_event_id = ANY(\(Array(sent.keys)))
                """, as: (UUID, Double).self, logger: logger)
        }
        let commitLatencies = LatencySummary(
            commits.compactMap { id, committed in
                // bounded: two clock readings of this run, a few seconds apart.
                sent[id].map { Duration.microseconds(Int64(((committed - $0.timeIntervalSince1970) * 1_000_000).rounded())) }
            })
        Console.write(
            "event-to-commit over \(commitLatencies.sorted.count) of \(total) events: p50 \(commitLatencies.milliseconds(0.50)), "
                + "p90 \(commitLatencies.milliseconds(0.90)), p99 \(commitLatencies.milliseconds(0.99)), max \(commitLatencies.milliseconds(1.0))\n")

        await probe.close()
        await producer.shutdown()
        await assembly.group.triggerGracefulShutdown()
        try await service.value
    }

    /// PostgreSQL's time per statement since the reset: where the database's share of a batch goes.
    private func printStatementStats(_ database: Database, logger: Logger) async throws {
        let rows = try await database.client.fetchAll(
            """
            SELECT calls::int8, total_exec_time, rows::int8, regexp_replace(left(query, 90), '\\s+', ' ', 'g')
            FROM public.pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15
            """, as: (Int, Double, Int, String).self, logger: logger)
        Console.write("PostgreSQL statements (total ms, calls, mean ms, rows):\n")
        for (calls, total, rowCount, query) in rows {
            Console.write(String(format: "%9.0f %8d %8.3f %9d  ", total, calls, total / Double(max(calls, 1)), rowCount) + query + "\n")
        }
    }

    private func reading(index: Int) -> (id: UUID, message: OutgoingMessage) {
        let id = UUID()
        let patient = "bench-patient-\(index % patients)"
        let takenAt = Timestamp.format(Date(timeIntervalSince1970: 1_790_000_000 + Double(index)))
        let body =
            #"{"eventId":"\#(id)","eventType":"blood-pressure.recorded","schemaVersion":1,"occurredAt":"\#(takenAt)","producer":"bench","patientId":"\#(patient)","payload":{"measurementId":"\#(UUID())","revision":1,"systolic":\#(100 + index % 90),"diastolic":\#(60 + index % 40),"takenAt":"\#(takenAt)","source":"device"}}"#
        return (
            id,
            OutgoingMessage(
                topic: Topic.measurements.name, key: patient, value: Array(body.utf8), headers: [EventHeader.eventType: "blood-pressure.recorded"])
        )
    }
}

/// Send times by event id, shared by the sending loop and the receiving task.
final class SentTimes: Sendable {
    private let times = Mutex<[UUID: ContinuousClock.Instant]>([:])
    func put(_ id: UUID, _ instant: ContinuousClock.Instant) { times.withLock { $0[id] = instant } }
    func take(_ id: UUID) -> ContinuousClock.Instant? { times.withLock { $0.removeValue(forKey: id) } }
}
