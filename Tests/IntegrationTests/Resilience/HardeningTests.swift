import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import ScoringService
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One hostile message, one oversized request or one stuck database wait must never stop event flow, and must show
/// where an operator looks (`/readyz`, metrics, the parked tables). Each test is the regression test of one finding
/// of the hardening review against the real PostgreSQL and the embedded broker.
@Suite(.serialized, .stoppingStacks) struct HardeningTests {
    static func reading(_ id: UUID = UUID(), patient: String = "p1", systolic: Int = 150) -> [UInt8] {
        Array(
            #"{"eventId": "\#(id)", "eventType": "blood-pressure.recorded", "schemaVersion": 1, "occurredAt": "2026-11-22T08:00:00Z", "producer": "test", "patientId": "\#(patient)", "payload": {"measurementId": "\#(UUID())", "revision": 1, "systolic": \#(systolic), "diastolic": 95, "takenAt": "2026-11-22T07:00:00Z", "source": "patient"}}"#
                .utf8)
    }

    /// scoring-service on one partition, a producer standing for any client of the broker, and a dead-letter reader.
    struct ScoringHarness {
        let stack: TestStack
        let producer: KafkaProducer
        let deadLetters: KafkaProbe

        static func start() async throws -> ScoringHarness {
            let stack = try await TestStack.start([ScoringService.definition], partitions: 1)
            return ScoringHarness(
                stack: stack, producer: try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer")),
                deadLetters: try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name))
        }

        func stop() async throws {
            await deadLetters.close()
            await producer.shutdown()
            try await stack.shutdown()
        }
    }

    static func assessedEvents(_ stack: TestStack) async throws -> Set<UUID> {
        Set(
            try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll("SELECT source_event_id FROM assessments", as: UUID.self, logger: logger)
            })
    }

    @Test("a message the dead-letter topic refuses is parked in PostgreSQL and its partition moves on")
    func refusedDeadLetterIsParked() async throws {
        let harness = try await ScoringHarness.start()
        let (stack, producer, deadLetters) = (harness.stack, harness.producer, harness.deadLetters)
        let topic = Topic.measurements.name
        // Just under the producer's 1,000,000-byte limit as sent; the dead-letter headers push it over.
        let oversized = [UInt8](repeating: UInt8(ascii: "x"), count: 999_800)
        let before = UUID()
        let after = UUID()
        try await producer.send([
            OutgoingMessage(topic: topic, key: "p1", value: Self.reading(before)),
            OutgoingMessage(topic: topic, key: "p1", value: oversized),
            OutgoingMessage(topic: topic, key: "p1", value: Self.reading(after)),
        ])
        try await eventually("both readings around the refused message assessed") {
            try await Self.assessedEvents(stack) == [before, after]
        }
        let parked = try await stack.withDatabase(schema: "scoring") { database, logger in
            try await database.client.fetchAll(
                "SELECT reason, publish_error, source_offset, value_size, value_truncated, value FROM parked_messages",
                as: (String, String, Int64, Int, Bool, ByteBuffer).self, logger: logger)
        }
        #expect(parked.count == 1)
        #expect(parked.first?.0 == "malformed JSON" && parked.first?.1 == "MSG_SIZE_TOO_LARGE")
        #expect(parked.first?.2 == 1 && parked.first?.3 == oversized.count && parked.first?.4 == false)
        #expect(parked.first.map { Array(buffer: $0.5) } == oversized)
        #expect(try await deadLetters.drain(for: .seconds(1)).isEmpty)
        try await harness.stop()
    }

    @Test("the dead-letter copy is the message as received: key, null value and headers byte for byte")
    func deadLetterCopyIsExact() async throws {
        let harness = try await ScoringHarness.start()
        let (producer, deadLetters) = (harness.producer, harness.deadLetters)
        var tombstone = OutgoingMessage(topic: Topic.measurements.name, key: nil, value: [])
        tombstone.keyBytes = [0xff, 0xfe, 0x00, 0x41]  // not UTF-8, with a NUL
        tombstone.valueBytes = nil
        tombstone.headerFields = [
            KafkaHeader(name: "null", value: nil), KafkaHeader(name: "binary", value: [0xc3, 0x28]), KafkaHeader(name: "null", value: [0x61]),
        ]
        try await producer.send(tombstone)
        let dead = try await deadLetters.receive(1)[0]
        #expect(dead.keyBytes == tombstone.keyBytes)
        #expect(dead.valueBytes == nil)
        #expect(Array(dead.headerFields.prefix(3)) == tombstone.headerFields)
        #expect(dead.headers[EventHeader.deadLetterReason] == "malformed JSON")
        try await harness.stop()
    }

    @Test("an event whose key is not its patientId is dead-lettered, naming neither")
    func keyMustMatchPatient() async throws {
        let harness = try await ScoringHarness.start()
        let (stack, producer, deadLetters) = (harness.stack, harness.producer, harness.deadLetters)
        let misfiled = UUID()
        let filed = UUID()
        try await producer.send([
            OutgoingMessage(topic: Topic.measurements.name, key: "p2", value: Self.reading(misfiled, patient: "p1")),
            OutgoingMessage(topic: Topic.measurements.name, key: "p1", value: Self.reading(filed, patient: "p1")),
        ])
        let dead = try await deadLetters.receive(1)[0]
        #expect(dead.headers[EventHeader.deadLetterReason] == "the message key does not match the event's patientId")
        try await eventually("the correctly keyed reading assessed") { try await Self.assessedEvents(stack) == [filed] }
        try await harness.stop()
    }

    @Test("a lane stuck on the database shows in /readyz and the metrics, and lag counts what it holds")
    func stuckLaneIsVisible() async throws {
        let stack = try await TestStack.start([ScoringService.definition], partitions: 1) { configuration in
            configuration.limits.stallThreshold = .seconds(1)
        }
        let scoring = stack.baseURL(ScoringService.name)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer"))
        let (locked, lockedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        // Another session holds a lock the lane's transaction needs, as a stuck or restarting database would.
        async let holder: Void = stack.withDatabase(schema: "scoring") { database, logger in
            try await database.transaction { connection in
                try await connection.query("LOCK TABLE processed_events IN ACCESS EXCLUSIVE MODE", logger: logger)
                lockedSignal.yield()
                for await _ in release { break }
            }
        }
        for await _ in locked { break }
        let event = UUID()
        try await producer.send(OutgoingMessage(topic: Topic.measurements.name, key: "p1", value: Self.reading(event)))
        try await eventually("/readyz reports the stuck lane") {
            let reply = try await HTTP.get(scoring + "/readyz")
            return reply.status == 503 && reply.text.contains("consumer lane 0 has not finished its work in hand")
        }
        // The lag gauges are refreshed once a second: wait for the report that counts the held message.
        try await eventually("the lag counts the message the stuck lane holds") {
            try await HTTP.get(scoring + "/metrics").text.contains(#"caretide_consumer_lag{topic="caretide.measurements"} 1"#)
        }
        let metrics = try await HTTP.get(scoring + "/metrics").text
        #expect(metrics.contains(#"caretide_worker_busy_seconds{worker="consumer lane 0"}"#))
        // The lag in seconds is the held message's age: it grows while the lane is stuck, and is 0 once it is applied.
        func lagSeconds() async throws -> Double? {
            let line = try await HTTP.get(scoring + "/metrics").text.split(separator: "\n")
                .first { $0.hasPrefix(#"caretide_consumer_lag_seconds{topic="caretide.measurements"} "#) }
            return line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        }
        try await eventually("the lag in seconds counts the held message's age") { try await (lagSeconds() ?? 0) >= 2 }
        releaseSignal.yield()
        try await holder
        try await eventually("the reading assessed once the lock is gone") { try await Self.assessedEvents(stack) == [event] }
        try await eventually("the lag in seconds back to 0") { try await lagSeconds() == 0 }
        try await eventually("/readyz ready again") { try await HTTP.get(scoring + "/readyz").status == 200 }
        await producer.shutdown()
        try await stack.shutdown()
    }

    @Test("readings posted while PostgreSQL restarts are each stored and assessed, or refused; none hangs")
    func databaseRestartUnderLoad() async throws {
        let cluster = try await TestPostgres.privateCluster()
        let stack = try await TestStack.start(
            [IngestService.definition, ScoringService.definition], partitions: 3, database: cluster.server.configuration
        ) { configuration in
            configuration.limits.transactionTimeout = .seconds(5)
            configuration.limits.stallThreshold = .seconds(10)
        }
        let ingest = stack.baseURL(IngestService.name)
        let accepted = Recorder<UUID>()
        let refused = Recorder<Int>()
        // Four clients post 400 readings of 40 patients; the restart happens while they do.
        async let restart: Void = {
            try await Task.sleep(for: .milliseconds(300))
            try await cluster.server.restart()
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask {
                    for index in 0..<100 {
                        let id = UUID()
                        let patient = "patient-\((client * 100 + index) % 40)"
                        let reply = try? await HTTP.post(
                            ingest + "/v1/patients/\(patient)/measurements/blood-pressure",
                            json: #"{"measurementId": "\#(id)", "systolic": 150, "diastolic": 95, "takenAt": "2026-11-22T07:00:00Z"}"#)
                        if reply?.status == 201 { accepted.append(id) } else { refused.append(reply?.status ?? 0) }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await restart
        // Refusals are clear (503 while the database is away), never a hang: the HTTP client gives up after 10 s.
        #expect(refused.values.allSatisfy { $0 == 503 }, "\(refused.values)")
        #expect(accepted.values.count + refused.values.count == 400)
        let expected = Set(accepted.values.map { $0.uuidString.lowercased() })
        try await eventually("every accepted reading assessed", timeout: .seconds(120)) {
            let assessed = try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll("SELECT lower(subject_id) FROM assessments", as: String.self, logger: logger)
            }
            return Set(assessed) == expected
        }
        try await eventually("both services ready again") {
            for service in [IngestService.name, ScoringService.name] where try await HTTP.get(stack.baseURL(service) + "/readyz").status != 200 {
                return false
            }
            return true
        }
        try await stack.shutdown()
        await cluster.stop()
    }

    @Test("an outbox row the broker refuses is parked with its reason, and the rows behind it leave")
    func refusedOutboxRowIsParked() async throws {
        let stack = try await TestStack.start([IngestService.definition, ScoringService.definition], partitions: 1)
        let ingest = stack.baseURL(IngestService.name)
        // A row written before the size bound existed (or by another writer): 1.2 MB, over the broker's limit.
        let poisoned = UUID()
        try await stack.withDatabase(schema: "ingest") { database, logger in
            let body = ByteBuffer(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 1_200_000))
            try await database.client.query(
                """
                INSERT INTO outbox (event_id, topic, message_key, event_type, schema_version, body)
                VALUES (\(poisoned), \(Topic.examResults.name), 'p1', 'exam-result.recorded', 1, \(body))
                """, logger: logger)
        }
        let reading = UUID()
        let posted = try await HTTP.post(
            ingest + "/v1/patients/p1/measurements/blood-pressure",
            json: #"{"measurementId": "\#(reading)", "systolic": 150, "diastolic": 95, "takenAt": "2026-11-22T07:00:00Z"}"#)
        #expect(posted.status == 201)
        try await eventually("the reading behind the refused row assessed") { try await Self.assessedEvents(stack).count == 1 }
        let parked = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.fetchAll("SELECT event_id, reason FROM outbox_parked", as: (UUID, String).self, logger: logger)
        }
        #expect(parked.map(\.0) == [poisoned])
        #expect(parked.first?.1.hasPrefix("MSG_SIZE_TOO_LARGE") == true)
        try await stack.shutdown()
    }

    @Test("a request whose event would be too large to publish is refused with 413, and nothing is stored")
    func oversizedReportIsRefused() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/institutions/st-mary/exam-results/"
        func report(items: Int, commentLength: Int, lastCommentLength: Int? = nil) -> String {
            func item(_ length: Int) -> String {
                #"{"code":"2345-7","name":"Glucose","value":182,"unit":"mg/dL","comment":"\#(String(repeating: "c", count: length))"}"#
            }
            let items = Array(repeating: item(commentLength), count: items - 1) + [item(lastCommentLength ?? commentLength)]
            return #"{"patientId":"p1","reportedAt":"2026-11-22T06:10:00Z","items":[\#(items.joined(separator: ","))]}"#
        }
        // The issue's report: 500 items with 2,000-character comments, over the limit as a body already.
        let huge = try await HTTP.send(method: "PUT", url + "LAB-1", json: report(items: 500, commentLength: 2_000))
        #expect(huge.status == 413)
        // Just under the body limit (compact JSON), but over the event limit once the envelope wraps it.
        let base = report(items: 500, commentLength: 1_727, lastCommentLength: 0).utf8.count
        let body = report(items: 500, commentLength: 1_727, lastCommentLength: Outbox.maximumEventBytes - 50 - base)
        #expect(body.utf8.count == Outbox.maximumEventBytes - 50)
        let wrapped = try await HTTP.send(method: "PUT", url + "LAB-2", json: body)
        #expect(wrapped.status == 413)
        #expect(wrapped.text.contains("exam-result.recorded event would be"))
        let stored = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.fetchAll("SELECT count(*)::int FROM records", as: Int.self, logger: logger)
        }
        #expect(stored == [0])
        try await stack.shutdown()
    }

    @Test("items 7, 8 and 10: U+0000 (in a body, a query or a path), implausible or future dates and unknown members get a 4xx that echoes nothing")
    func hostileBodiesGetClearErrors() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/patients/p1/measurements/blood-pressure"
        func post(_ extra: String, takenAt: String = "2026-11-22T07:00:00Z") async throws -> (Int, [String], String) {
            let reply = try await HTTP.post(
                url, json: #"{"measurementId": "\#(UUID())", "systolic": 150, "diastolic": 95, "takenAt": "\#(takenAt)"\#(extra)}"#)
            let violations = (try? reply.json() as? [String: Any])?["violations"] as? [[String: Any]] ?? []
            return (reply.status, violations.compactMap { $0["pointer"] as? String }, reply.text)
        }
        let nul = try await post(#", "source": "pati\u0000ent""#)
        #expect(nul.0 == 400 && Set(nul.1) == ["/source"] && nul.2.contains("U+0000"))
        let yearZero = try await post("", takenAt: "0000-01-01T00:00:00+01:00")
        #expect(yearZero.0 == 400 && yearZero.1 == ["/takenAt"])
        let future = try await post("", takenAt: "2999-01-01T00:00:00Z")
        #expect(future.0 == 422 && future.1 == ["/takenAt"])
        let unknown = try await post(#", "Jane Roe has HIV": true"#)
        #expect(unknown.0 == 400 && unknown.1 == [""] && !unknown.2.contains("Jane"))
        let ok = try await post("")
        #expect(ok.0 == 201)
        // In a query or a path, U+0000 is refused before any route reads it (it once reached a statement: a 500).
        let ingest = stack.baseURL(IngestService.name)
        let query = try await HTTP.get(ingest + "/v1/foods?q=ap%00ple&limit=5")
        let queryPointers = (try? query.json() as? [String: Any])?["violations"] as? [[String: Any]] ?? []
        #expect(query.status == 400 && queryPointers.compactMap { $0["pointer"] as? String } == ["/q"] && query.text.contains("U+0000"))
        let path = try await HTTP.get(ingest + "/v1/patients/p%001/profile")
        #expect(path.status == 400 && path.text.contains("U+0000"))
        try await stack.shutdown()
    }

    @Test("a value repeating its pattern's group 80,000 times is a 400 naming it, and the service answers on")
    func patternGroupRepeatedIsRefused() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let profile = stack.baseURL(IngestService.name) + "/v1/patients/p1/profile"
        // A call per repetition of `(-[A-Za-z0-9]{2,8})*` once overflowed the thread's stack here: a crash, not a 400.
        // 240,000 bytes: within the route's body limit (256 KiB).
        let tag = "en" + String(repeating: "-ab", count: 80_000) + "-"
        let refused = try await HTTP.send(method: "PUT", profile, json: #"{"language": "\#(tag)"}"#)
        let violations = (try? refused.json() as? [String: Any])?["violations"] as? [[String: Any]] ?? []
        #expect(
            refused.status == 400 && Set(violations.compactMap { $0["pointer"] as? String }) == ["/language"],
            "\(refused.status) \(refused.text.prefix(500))")
        #expect(violations.contains { ($0["message"] as? String)?.hasPrefix("must match the pattern") == true })
        #expect(try await HTTP.send(method: "PUT", profile, json: #"{"language": "de-CH"}"#).status == 201)
        try await stack.shutdown()
    }

    @Test("a large invalid body gets a bounded answer")
    func validationAnswerIsBounded() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/institutions/st-mary/exam-results/LAB-3"
        let item = #"{"code": "", "name": "", "value": "high", "unit": 1}"#
        let reply = try await HTTP.send(
            method: "PUT", url,
            json:
                #"{"patientId": "p1", "reportedAt": "2026-11-22T06:10:00Z", "items": [\#(Array(repeating: item, count: 400).joined(separator: ","))]}"#
        )
        #expect(reply.status == 400)
        let violations = try #require((try reply.json() as? [String: Any])?["violations"] as? [[String: Any]])
        #expect(violations.count == JSONSchema.maximumViolations + 1)
        #expect(violations.last?["message"] as? String == "and 1500 more violations not listed")
        #expect(reply.body.count < 20_000)
        try await stack.shutdown()
    }

    @Test("a connection that stops sending mid-body is closed after the idle timeout")
    func halfSentBodyIsClosed() async throws {
        let stack = try await TestStack.start([IngestService.definition]) { configuration in
            configuration.limits.httpIdleTimeout = .seconds(1)
        }
        let port = try #require(URL(string: stack.baseURL(IngestService.name))?.port)
        let socket = try LoopbackSocket(port: port)
        socket.send(
            "POST /v1/patients/p1/measurements/blood-pressure HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"sys"
        )
        // Blocks until the server closes (0 bytes) or 20 s pass (-1): the bound is on waiting, not on speed.
        #expect(socket.receiveUntilClosed(timeoutSeconds: 20) == true)
        socket.close()
        try await stack.shutdown()
    }
}

/// A plain TCP client, for requests no HTTP client would send (half a body, then silence).
struct LoopbackSocket {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// True when the peer closed the connection within the timeout.
    func receiveUntilClosed(timeoutSeconds: Int) -> Bool {
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return false }
        }
    }

    func close() { _ = Glibc.close(descriptor) }
}
