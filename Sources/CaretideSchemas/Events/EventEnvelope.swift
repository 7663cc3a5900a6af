public import Foundation

/// The common envelope of every Caretide event (`Schemas/envelope.v1.schema.json`).
public struct EventEnvelope<Payload: EventPayload>: Codable, Sendable, Equatable {
    /// Unique per event; consumers are idempotent on it.
    public var eventID: UUID
    public var eventType: EventType
    public var schemaVersion: Int
    /// When the fact the event reports happened (for a measurement: when it was recorded by the service).
    public var occurredAt: Date
    /// The service that produced the event, e.g. "ingest-service".
    public var producer: String
    /// The patient the event is about; also the Kafka message key.
    public var patientID: String?
    /// Correlates the events caused by one request across services.
    public var traceID: String?
    public var payload: Payload

    public init(
        eventID: UUID = .timeOrdered(), occurredAt: Date = Date(), producer: String, patientID: String?, traceID: String?, payload: Payload
    ) {
        self.eventID = eventID
        self.eventType = Payload.eventType
        self.schemaVersion = Payload.eventType.schemaVersion
        self.occurredAt = occurredAt
        self.producer = producer
        self.patientID = patientID
        self.traceID = traceID
        self.payload = payload
    }

    enum CodingKeys: String, CodingKey {
        case eventID = "eventId"
        case eventType, schemaVersion, occurredAt, producer
        case patientID = "patientId"
        case traceID = "traceId"
        case payload
    }
}
