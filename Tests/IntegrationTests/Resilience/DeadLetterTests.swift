import CaretideKafka
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import ScoringService
import Testing

/// Messages a consumer cannot accept go to the dead-letter topic with the reason; the service keeps running and
/// nothing else is lost.
@Suite(.serialized, .stoppingStacks) struct DeadLetterTests {
    @Test("malformed, unknown and invalid events are dead-lettered; valid ones around them are scored")
    func poisonMessagesAreDeadLettered() async throws {
        let stack = try await TestStack.start([ScoringService.definition], partitions: 1)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("producer"))
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let topic = Topic.measurements.name
        let valid = { (id: UUID) in
            Array(
                #"{"eventId": "\#(id)", "eventType": "blood-pressure.recorded", "schemaVersion": 1, "occurredAt": "2026-11-22T08:00:00Z", "producer": "test", "patientId": "p1", "payload": {"measurementId": "\#(UUID())", "revision": 1, "systolic": 150, "diastolic": 95, "takenAt": "2026-11-22T07:00:00Z", "source": "patient"}}"#
                    .utf8)
        }
        let first = UUID()
        let last = UUID()
        try await producer.send([
            OutgoingMessage(topic: topic, key: "p1", value: valid(first)),
            OutgoingMessage(topic: topic, key: "p1", value: Array("not json at all".utf8)),
            OutgoingMessage(
                topic: topic, key: "p1",
                value: Array(
                    #"{"eventId": "\#(UUID())", "eventType": "weather.changed", "schemaVersion": 1, "occurredAt": "2026-11-22T08:00:00Z", "producer": "test", "payload": {}}"#
                        .utf8)),
            OutgoingMessage(
                topic: topic, key: "p1",
                value: Array(
                    #"{"eventId": "\#(UUID())", "eventType": "blood-pressure.recorded", "schemaVersion": 1, "occurredAt": "2026-11-22T08:00:00Z", "producer": "test", "payload": {"systolic": 999}}"#
                        .utf8)),
            OutgoingMessage(topic: topic, key: "p1", value: valid(last)),
        ])

        let dead = try await deadLetters.receive(3)
        #expect(
            dead.map { $0.headers[EventHeader.deadLetterReason] ?? "" }.map { $0.components(separatedBy: ":")[0] }
                == ["malformed JSON", "unknown event type", "invalid payload for blood-pressure.recorded"])
        #expect(
            dead.allSatisfy { $0.headers[EventHeader.deadLetterTopic] == topic && $0.headers[EventHeader.deadLetterConsumer] == ScoringService.name })
        #expect(dead[2].headers[EventHeader.deadLetterReason]?.contains("/payload/systolic") == true)
        #expect(String(decoding: dead[0].value, as: UTF8.self) == "not json at all")

        try await eventually("both valid readings scored") {
            try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll("SELECT source_event_id FROM assessments", as: UUID.self, logger: logger)
            }.sorted { $0.uuidString < $1.uuidString } == [first, last].sorted { $0.uuidString < $1.uuidString }
        }
        #expect(try await deadLetters.drain(for: .seconds(1)).isEmpty)
        await deadLetters.close()
        await producer.shutdown()
        try await stack.shutdown()
    }
}
