import CaretideKafka
import CaretideSchemas
import CaretideTestSupport
import Foundation
import ScoringService
import Testing

/// Over the wire: a producer already on `pulse.recorded` version 2 (an added optional field) publishes with kcat to a
/// scoring-service that knows version 1 only. Scoring assesses it; nothing reaches the dead-letter topic.
@Suite(.serialized, .stoppingStacks) struct SchemaEvolutionFlowTests {
    @Test("a version-2 event with a new optional field is assessed by a version-1 consumer, not dead-lettered")
    func newProducerOldConsumer() async throws {
        let stack = try await TestStack.start([ScoringService.definition], partitions: 1)
        let scores = try KafkaProbe(stack.kafka, topic: Topic.scores.name)
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let eventID = UUID()
        let event =
            #"{"eventId": "\#(eventID)", "eventType": "pulse.recorded", "schemaVersion": 2, "occurredAt": "2026-11-22T08:30:00Z", "producer": "ingest-service-next", "patientId": "p-evolve", "payload": {"measurementId": "\#(UUID())", "revision": 1, "takenAt": "2026-11-22T07:55:00Z", "source": "device", "beatsPerMinute": 72, "position": "sitting"}}"#
        try await InboundKafkaTests.produce(stack, .measurements, [("p-evolve", event)])
        let assessed = try await scores.receive(1).compactMap { try EventCodec().decode($0.value).payload(as: AssessmentRecorded.self) }
        #expect(assessed.first?.sourceEventID == eventID && assessed.first?.kind == .pulse)
        #expect(try await deadLetters.drain(for: .seconds(2)).isEmpty)
        await scores.close()
        await deadLetters.close()
        try await stack.shutdown()
    }
}
