public import CaretideSchemas
public import CaretideStore

extension Outbox.Entry {
    /// A Caretide event as an outbox row: its topic, its key (the payload's partition key, else the patient), its
    /// type, version and trace id for the message's headers, and the encoded envelope.
    /// - Throws: ``EventTooLarge`` when the encoded event could not be published; an encoding error.
    public init<P: EventPayload>(_ envelope: EventEnvelope<P>, codec: EventCodec) throws {
        try self.init(
            eventID: envelope.eventID, topic: P.eventType.topic.name, key: envelope.payload.partitionKey ?? envelope.patientID,
            eventType: P.eventType.rawValue, schemaVersion: P.eventType.schemaVersion, traceID: envelope.traceID,
            body: try codec.encode(envelope))
    }
}
