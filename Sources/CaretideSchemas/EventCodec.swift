public import Foundation

/// Why an incoming message was refused. `reason` goes into the dead-letter header; it names fields, never values.
public struct EventRejection: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public let violations: [SchemaViolation]

    public init(reason: String, violations: [SchemaViolation] = []) {
        self.reason = reason
        self.violations = violations
    }

    public var description: String {
        violations.isEmpty ? reason : reason + ": " + violations.map(\.description).joined(separator: "; ")
    }
}

/// An event whose envelope and payload passed their schemas and decoded into the Swift payload type.
public struct ValidatedEvent: Sendable {
    public let eventID: UUID
    public let eventType: EventType
    public let occurredAt: Date
    public let producer: String
    public let patientID: String?
    public let traceID: String?
    public let payload: any EventPayload
    /// The payload as it arrived and passed its schema: what a consumer keeps as the exact inputs it used.
    public let payloadDocument: JSONValue

    public func payload<P: EventPayload>(as type: P.Type) -> P? { payload as? P }
}

/// Encodes outgoing events and validates incoming ones against the schema catalog.
public struct EventCodec: Sendable {
    public let catalog: SchemaCatalog

    public init(catalog: SchemaCatalog = .bundled) { self.catalog = catalog }

    public func encode<P: EventPayload>(_ envelope: EventEnvelope<P>) throws -> [UInt8] {
        try CaretideJSON.encode(envelope)
    }

    /// Parses, validates (envelope, then the payload schema of its event type) and decodes one message.
    public func decode(_ bytes: some Collection<UInt8>) throws(EventRejection) -> ValidatedEvent {
        let document: JSONValue
        do {
            document = try CaretideJSON.parse(bytes)
        } catch {
            throw EventRejection(reason: "malformed JSON")
        }
        let envelopeViolations = catalog.envelope.validate(document)
        guard envelopeViolations.isEmpty else {
            throw EventRejection(reason: "invalid envelope", violations: envelopeViolations)
        }
        guard let typeName = document["eventType"]?.stringValue, let type = EventType(rawValue: typeName) else {
            throw EventRejection(
                reason: "unknown event type",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["eventType"]), message: "is not an event type this service knows")])
        }
        // Versions (docs/operations.md, "Upgrading"): the current and the previous one are read against their own
        // schemas; the next one is tolerated when, without the members this consumer does not know, it is a valid
        // current payload (a version that only added optional fields); anything else is refused with the versions
        // that would be accepted.
        let current = catalog.currentVersions[type] ?? type.schemaVersion
        let version = document["schemaVersion"]?.numberValue.flatMap { Int(exactly: $0) } ?? 0
        var payload = document["payload"] ?? .null
        let schema: JSONSchema
        if version == current {
            schema = catalog.payloads[type]!
        } else if let previous = catalog.previousPayloads[type], previous.version == version {
            schema = previous.schema
        } else if version == current + 1, case .object(let members) = payload {
            schema = catalog.payloads[type]!
            let known = schema.topLevelProperties
            payload = .object(members.filter { known.contains($0.key) })
        } else {
            let accepted = ([catalog.previousPayloads[type]?.version, current, current + 1].compactMap { $0 }).map(String.init).joined(
                separator: ", ")
            throw EventRejection(
                reason: "unsupported schema version",
                violations: [
                    SchemaViolation(pointer: JSONPointer(tokens: ["schemaVersion"]), message: "must be one of \(accepted) for \(type.rawValue)")
                ])
        }
        let payloadViolations = schema.validate(payload).map {
            SchemaViolation(pointer: JSONPointer(tokens: ["payload"] + JSONPointer(parsing: $0.pointer).tokens), message: $0.message)
        }
        guard payloadViolations.isEmpty else {
            throw EventRejection(reason: "invalid payload for \(type.rawValue)", violations: payloadViolations)
        }
        // Only a next version's payload was cut down to the known members; otherwise the document is read as it is
        // (replacing its payload would copy every member of the envelope for nothing).
        var read = document
        if version == current + 1, case .object(var members) = document {
            members["payload"] = payload
            read = .object(members)
        }
        do {
            return try Self.decodeTyped(type.payloadType, from: read)
        } catch {
            // The schema and the Swift type disagree: a defect, but still a clear rejection rather than a crash.
            throw EventRejection(reason: "payload does not decode as \(type.rawValue)")
        }
    }

    /// From the document already parsed for the schema check: no second pass over the bytes.
    private static func decodeTyped<P: EventPayload>(_ type: P.Type, from document: JSONValue) throws -> ValidatedEvent {
        let envelope = try JSONValueDecoder.decode(EventEnvelope<P>.self, from: document)
        return ValidatedEvent(
            eventID: envelope.eventID, eventType: envelope.eventType, occurredAt: envelope.occurredAt, producer: envelope.producer,
            patientID: envelope.patientID, traceID: envelope.traceID, payload: envelope.payload, payloadDocument: document["payload"] ?? .null)
    }
}
