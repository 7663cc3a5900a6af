import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// The Kafka door of the result feeds: an outside client (kcat) publishes what a hospital pipeline would, and
/// ingest-service stores it as the HTTP door does, dead-letters what that door would refuse, and applies a message once.
@Suite(.serialized, .stoppingStacks) struct InboundKafkaTests {
    /// Produces each `(key, value)` as one message (kcat splits on newlines, so each value is one line; nil: no key).
    static func produce(_ stack: TestStack, _ topic: Topic, _ messages: [(String?, String)]) async throws {
        let kcat = try #require(KcatTests.kcat, "kcat is not installed (apt-get install kcat)")
        for (key, value) in messages {
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("inbound-\(UUID()).txt")
            try Data(((key.map { "\($0)\u{1F}" } ?? "") + value + "\n").utf8).write(to: input)
            defer { try? FileManager.default.removeItem(at: input) }
            var arguments = ["-P", "-b", stack.broker.bootstrapServers, "-t", topic.name, "-H", "trace-id=pipeline-trace-1"]
            if key != nil { arguments += ["-K", "\u{1F}"] }
            let produced = try await Subprocess.run(kcat, arguments + ["-l", input.path])
            #expect(produced.status == 0, "\(produced.output)")
        }
    }

    static func count(_ stack: TestStack, _ sql: String) async throws -> Int {
        try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collectAll().first?.decode(Int.self) ?? -1
        }
    }

    static func report(_ patient: String, glucose: Double) -> [String: Any] {
        [
            "patientId": patient, "reportedAt": "2026-11-22T06:10:00Z",
            "items": [["code": "2345-7", "name": "Glucose", "value": glucose, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99]],
        ]
    }

    static func json(_ object: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) }

    @Test("HL7 v2, FHIR and JSON batches on the inbound topics become the same exam reports; refusals are dead-lettered with the reason")
    func bothDoorsSameEvents() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let examEvents = try KafkaProbe(stack.kafka, topic: Topic.examResults.name)
        let fhir = try Self.json(try JSONSerialization.jsonObject(with: ExamResultBatchTests.fhirFixture))

        try await Self.produce(stack, .inboundHL7v2, [("st-mary", ExamResultBatchTests.hl7Fixture)])
        try await Self.produce(stack, .inboundFHIR, [("st-mary", fhir)])
        try await Self.produce(
            stack, .inboundExamResults,
            [
                (
                    "st-mary",
                    try Self.json([
                        "reports": [
                            ["examId": "K-1", "report": Self.report("p-k", glucose: 182)],
                            ["examId": "K-2", "report": Self.report("p-k", glucose: 90).merging(["reportedAt": "2099-01-01T00:00:00Z"]) { $1 }],
                        ]
                    ])
                )
            ])
        // The HL7 message's two reports, the bundle's one, and K-1: four reports, each recorded and (without release
        // rules) released once.
        let announced = try await examEvents.receive(8)
        #expect(announced.filter { $0.headers[EventHeader.eventType] == "exam-result.recorded" }.count == 4)
        #expect(announced.filter { $0.headers[EventHeader.eventType] == "exam-result.released" }.count == 4)
        #expect(Set(announced.map { $0.headers[EventHeader.traceID] }) == ["pipeline-trace-1"])
        #expect(
            try await Self.count(stack, "SELECT count(*)::int FROM records WHERE record_type = 'exam-result' AND record_id LIKE 'st-mary/%'") == 4)

        // K-2 is refused as over HTTP, naming the failing field and leaving K-1 stored.
        let refused = try await deadLetters.receive(1)
        let reason = refused[0].headers[EventHeader.deadLetterReason] ?? ""
        #expect(reason.hasPrefix("1 of 2 reports refused (the others are stored)"), "\(reason)")
        #expect(reason.contains("/reports/1/report/reportedAt: must not be in the future"), "\(reason)")
        #expect(refused[0].headers[EventHeader.deadLetterTopic] == Topic.inboundExamResults.name)

        // Each stored report was audited for the key's institution, as the topic's consumption.
        #expect(
            try await Self.count(
                stack,
                """
                SELECT count(*)::int FROM access_audit WHERE institution_id = 'st-mary' AND subject LIKE 'kafka:caretide.inbound.%'
                  AND operation LIKE 'CONSUME caretide.inbound.%' AND action = 'write'
                """) == 4)

        // The same HL7 message again is a new message but the same reports: duplicates, no new revision or event.
        try await Self.produce(stack, .inboundHL7v2, [("st-mary", ExamResultBatchTests.hl7Fixture)])
        // A message without a key, an HL7 message that is not an ORU^R01, and a bundle that is not FHIR.
        try await Self.produce(
            stack, .inboundExamResults, [(nil, try Self.json(["reports": [["examId": "K-3", "report": Self.report("p-k", glucose: 90)]]]))])
        try await Self.produce(
            stack, .inboundHL7v2, [("st-mary", ExamResultBatchTests.hl7Fixture.replacingOccurrences(of: "ORU^R01^ORU_R01", with: "ADT^A01^ADT_A01"))])
        try await Self.produce(stack, .inboundFHIR, [("st-mary", #"{"resourceType": "Patient"}"#)])
        let more = try await deadLetters.receive(3)
        let reasons = more.map { $0.headers[EventHeader.deadLetterReason] ?? "" }
        #expect(reasons.contains { $0.hasPrefix("the message key must be the institution id") }, "\(reasons)")
        #expect(reasons.contains { $0.hasPrefix("the HL7 v2 message is refused (AR): MSH^1^9") }, "\(reasons)")
        #expect(reasons.contains { $0.hasPrefix("the FHIR Bundle is refused") && $0.contains("Bundle") }, "\(reasons)")
        #expect(try await examEvents.drain(for: .seconds(2)).isEmpty)
        #expect(
            try await Self.count(stack, "SELECT max(revision) FROM records WHERE record_type = 'exam-result' AND record_id LIKE 'st-mary/%'") == 1)
        await deadLetters.close()
        await examEvents.close()
        try await stack.shutdown()
    }

    @Test("a message recorded as applied (a redelivery after a restart) is not applied again")
    func appliedOnce() async throws {
        let stack = try await TestStack.start([IngestService.definition], partitions: 1)
        // As if the service had applied offset 0 and stopped before committing it.
        try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query(
                "INSERT INTO inbound_messages (topic, partition, message_offset) VALUES (\(Topic.inboundExamResults.name), 0, 0)", logger: logger)
        }
        try await Self.produce(
            stack, .inboundExamResults,
            [
                ("st-mary", try Self.json(["reports": [["examId": "R-0", "report": Self.report("p-r", glucose: 100)]]])),
                ("st-mary", try Self.json(["reports": [["examId": "R-1", "report": Self.report("p-r", glucose: 100)]]])),
            ])
        try await eventually("the second message is applied") {
            try await Self.count(stack, "SELECT count(*)::int FROM inbound_messages WHERE message_offset = 1") == 1
        }
        #expect(try await Self.count(stack, "SELECT count(*)::int FROM records WHERE record_id = 'st-mary/R-1'") == 1)
        #expect(try await Self.count(stack, "SELECT count(*)::int FROM records WHERE record_id = 'st-mary/R-0'") == 0)
        try await stack.shutdown()
    }
}
