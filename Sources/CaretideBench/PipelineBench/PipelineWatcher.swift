import CaretideKafka
import CaretideSchemas
import Foundation
import Logging

/// Reads `caretide.scores` and `caretide.alerts` as an outside consumer would (a group of its own, committing
/// nothing) and hands the ledger every assessment and alert that carries one of the run's trace ids. It reads each
/// partition from its start, so nothing published while it joins its group is missed; what other runs left there
/// is skipped by its trace id without being decoded.
struct PipelineWatcher: Sendable {
    let consumer: KafkaConsumer
    let ledger: PipelineLedger
    /// The first characters of every trace id of this run: other messages are skipped without being decoded.
    let tracePrefix: String

    init(kafka: KafkaConfiguration, ledger: PipelineLedger, tracePrefix: String, logger: Logger) throws {
        var configuration = kafka
        configuration.properties["auto.offset.reset"] = "earliest"
        configuration.properties["enable.auto.commit"] = "false"
        consumer = try KafkaConsumer(
            configuration: configuration, groupID: "caretide-bench-\(UUID().uuidString.lowercased())",
            topics: ([Topic.scores, .alerts] + Self.ingestTopics).map(\.name), logger: logger)
        self.ledger = ledger
        self.tracePrefix = tracePrefix
    }

    /// The topics ingest publishes the load's events on: their messages' timestamps split each end's latency into
    /// stages (the envelope is not read).
    static let ingestTopics: [Topic] = [.measurements, .npi, .riskProfiles, .examResults, .environment]

    /// Only the members the bench reads.
    private struct Envelope: Decodable {
        let eventId: UUID
        let eventType: String
        let payload: Payload
        struct Payload: Decodable {
            let assessmentId: UUID?
            let subjectId: String?
            let alertId: UUID?
            let sourceEventId: UUID?
            let recipientId: String?
            let category: String?
            let kind: String?
        }
    }

    func run() async throws {
        let prefix = Array(tracePrefix.utf8)
        while !Task.isCancelled {
            let messages = try await consumer.pollBatch(maxMessages: 1_000, timeout: .milliseconds(50))
            let now = ContinuousClock.now
            for message in messages {
                guard let header = message.headerFields.first(where: { $0.name == EventHeader.traceID }), let value = header.value,
                    value.starts(with: prefix)
                else { continue }
                let trace = String(decoding: value, as: UTF8.self)
                if message.topic != Topic.scores.name, message.topic != Topic.alerts.name {
                    if let producedAt = message.timestamp { ledger.ingestPublished(trace: trace, producedAt: producedAt) }
                    continue
                }
                // The services' own parser and decoder: Foundation's took a fifth of the bench's CPU flat out, and the
                // bench shares the machine with the stack it measures.
                guard let document = try? CaretideJSON.parse(message.value),
                    let envelope = try? JSONValueDecoder.decode(Envelope.self, from: document)
                else {
                    ledger.unreadable()
                    continue
                }
                let payload = envelope.payload
                switch envelope.eventType {
                case EventType.assessmentRecorded.rawValue:
                    guard let assessment = payload.assessmentId, let subject = payload.subjectId else { continue }
                    ledger.arrived(
                        .assessment(eventID: envelope.eventId, assessmentID: assessment, subjectID: subject), trace: trace, at: now,
                        producedAt: message.timestamp)
                case EventType.alertRaised.rawValue:
                    guard let alert = payload.alertId, let source = payload.sourceEventId else { continue }
                    let purpose = "\(source.lowercased)|\(payload.recipientId ?? "")|\(payload.category ?? "")"
                    // Care-tracking alerts follow from a patient's series (the trend rules), not from one request.
                    let arrival: PipelineLedger.Arrival =
                        payload.kind == "careTracking"
                        ? .followOn(eventID: envelope.eventId, alertID: alert, purpose: purpose)
                        : .alert(eventID: envelope.eventId, alertID: alert, purpose: purpose)
                    ledger.arrived(arrival, trace: trace, at: now, producedAt: message.timestamp)
                default:
                    continue
                }
            }
        }
    }

    func close() async { await consumer.close() }
}
