import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The rules every input follows, whatever its kind:
/// - **create** (POST): stored once per id; re-sending the same id (an offline app syncing again) answers the original
///   receipt without a second event.
/// - **put** (PUT): creates, or corrects: a changed body becomes the next revision and a new event (downstream, the new
///   assessment supersedes the old one); an identical body changes nothing.
/// - **delete**: marks the record deleted and announces it, so downstream withdraws what it derived.
/// An id belongs to one patient: using it for another is a 409. Values the clinical rules cannot assess are a 422
/// naming every failing field, before anything is stored.
struct RecordRoutes: Sendable {
    let context: ServiceContext

    struct Receipt: Encodable {
        let id: String
        let revision: Int
        let eventId: UUID?
        /// recorded, duplicate, corrected, unchanged or deleted.
        let status: String

        var httpStatus: HTTPResponse.Status { status == "recorded" ? .created : .ok }
    }

    enum Mode { case create, put }

    /// How far ahead of the server clock a device's clock may run: a reading "taken" later than this is refused.
    static let clockSkew: TimeInterval = 300

    /// Validates the body against the request schema and the clinical rules; returns it with the payload it makes.
    func validated(_ definition: RecordDefinition, request: Request, requestContext: some RequestContext, recordID: String) async throws -> JSONValue
    {
        let body = try await request.validatedJSON(schema: definition.requestSchema, context: requestContext)
        let violations = try ruleViolations(definition, body: body, recordID: recordID)
        guard violations.isEmpty else {
            throw HTTPProblem(status: .unprocessableContent, error: "the values cannot be assessed", violations: violations)
        }
        return body
    }

    /// What a request of this kind would be told of `body` before anything is stored: its schema first, then, when
    /// its form is right, the clinical rules and the clock. For bodies that arrive inside another document (a batch, an
    /// offline upload, an HL7 v2 or FHIR message).
    func violations(_ definition: RecordDefinition, body: JSONValue, recordID: String, now: Date = Date()) throws -> [SchemaViolation] {
        let schemaViolations = SchemaCatalog.bundled.validateRequest(definition.requestSchema, body)
        guard schemaViolations.isEmpty else { return schemaViolations }
        return try ruleViolations(definition, body: body, recordID: recordID, now: now)
    }

    /// What the clinical rules and the clock say of a body that passed its schema: each value they cannot assess, and
    /// a time of observation in the future.
    func ruleViolations(_ definition: RecordDefinition, body: JSONValue, recordID: String, now: Date = Date()) throws -> [SchemaViolation] {
        let payload = try decodePayload(definition, body: body, recordID: recordID, revision: 1)
        var violations: [SchemaViolation] = []
        do {
            _ = try AssessmentEngine.assess(payload, now: now)
        } catch {
            violations = error.issues.map {
                SchemaViolation(pointer: JSONPointer(parsing: $0.field), message: $0.message + ($0.allowedRange.map { " (allowed: \($0))" } ?? ""))
            }
        }
        if let field = definition.observedAtField, definition.observedAt(payload) > now.addingTimeInterval(Self.clockSkew) {
            violations.append(SchemaViolation(pointer: JSONPointer(parsing: field), message: Self.futureMessage))
        }
        return violations
    }

    static let futureMessage = "must not be in the future (allowed: up to 5 minutes ahead of the server clock)"

    /// - Parameter origin: whose trace id the events carry, and whose audit entry is recorded in the same transaction.
    func store(
        _ definition: RecordDefinition, mode: Mode, patientID: String, recordID: String, body: JSONValue, origin: WriteOrigin
    ) async throws -> Receipt {
        let bodyText = try CaretideJSON.encodeToString(body)
        let requestID = origin.traceID
        return try await context.transaction(auditing: origin, status: { $0.httpStatus.code }) { handler in
            let store = RecordStore(handler)
            let first = try decodePayload(definition, body: body, recordID: recordID, revision: 1)
            let envelope = handler.envelope(of: first, patientID: patientID, traceID: requestID)
            if try await store.insertFirst(
                type: definition.recordType, id: recordID, patientID: patientID, bodyText: bodyText, observedAt: definition.observedAt(first),
                eventID: envelope.eventID)
            {
                try await handler.publish(envelope)
                try await definition.onStored?(
                    handler, StoredRevision(payload: first, patientID: patientID, recordID: recordID, revision: 1, traceID: requestID))
                return Receipt(id: recordID, revision: 1, eventId: envelope.eventID, status: "recorded")
            }

            guard let existing = try await store.locked(type: definition.recordType, id: recordID) else {
                throw HTTPProblem(status: .conflict, error: "the record changed concurrently; retry")
            }
            guard existing.patientID == patientID else { throw Self.idTaken }
            guard existing.deletedAt == nil else {
                throw HTTPProblem(status: .conflict, error: "this record was deleted and cannot be changed", violations: [])
            }
            let unchanged = try CaretideJSON.parse(Array(existing.body.utf8)) == body
            if mode == .create || unchanged {
                return Receipt(
                    id: recordID, revision: existing.revision, eventId: existing.lastEventID, status: mode == .create ? "duplicate" : "unchanged")
            }
            let revision = existing.revision + 1
            let corrected = try decodePayload(definition, body: body, recordID: recordID, revision: revision)
            let correction = handler.envelope(of: corrected, patientID: patientID, traceID: requestID)
            try await store.revise(
                type: definition.recordType, id: recordID, revision: revision, bodyText: bodyText, observedAt: definition.observedAt(corrected),
                eventID: correction.eventID)
            try await handler.publish(correction)
            try await definition.onStored?(
                handler, StoredRevision(payload: corrected, patientID: patientID, recordID: recordID, revision: revision, traceID: requestID))
            return Receipt(id: recordID, revision: revision, eventId: correction.eventID, status: "corrected")
        }
    }

    func delete(_ definition: RecordDefinition, patientID: String, recordID: String, origin: WriteOrigin) async throws -> Receipt {
        guard let deletion = definition.deletion else { throw HTTPError(.methodNotAllowed) }
        let requestID = origin.traceID
        return try await context.transaction(auditing: origin, status: { $0.httpStatus.code }) { handler in
            let store = RecordStore(handler)
            // The patient's change number first: the lock order every writer keeps (ChangeFeedStore).
            try await ChangeFeedStore(handler).takeChanges(patientID: patientID, count: 1)
            guard let existing = try await store.locked(type: definition.recordType, id: recordID) else {
                throw HTTPProblem(status: .notFound, error: "no such record")
            }
            guard existing.patientID == patientID else { throw HTTPProblem(status: .notFound, error: "no such record") }
            if existing.deletedAt != nil {
                return Receipt(id: recordID, revision: existing.revision, eventId: existing.lastEventID, status: "deleted")
            }
            let envelope = handler.envelope(of: deletion(recordID, Date()), patientID: patientID, traceID: requestID)
            try await store.markDeleted(type: definition.recordType, id: recordID, eventID: envelope.eventID)
            try await handler.publish(envelope)
            return Receipt(id: recordID, revision: existing.revision, eventId: envelope.eventID, status: "deleted")
        }
    }

    /// The patient a record belongs to, or a 404.
    func patientOwning(_ definition: RecordDefinition, recordID: String) async throws -> String {
        guard
            let patientID = try await RecordStore.patient(
                type: definition.recordType, id: recordID, on: context.database.client, logger: context.logger)
        else { throw HTTPProblem(status: .notFound, error: "no such record") }
        return patientID
    }

    /// One page of the patient's current (not deleted) records whose type starts with `typePrefix`, oldest
    /// observation first.
    func list(patientID: String, typePrefix: String, page: PageRequest) async throws -> Page<JSONValue> {
        try await RecordStore.current(patientID: patientID, typePrefix: typePrefix, page: page, on: context.database.client, logger: context.logger)
    }

    static let idTaken = HTTPProblem(
        status: .conflict, error: "this id is already used",
        violations: [SchemaViolation(pointer: .root, message: "the id belongs to another record")])

    func decodePayload(_ definition: RecordDefinition, body: JSONValue, recordID: String, revision: Int) throws -> any EventPayload {
        do {
            return try definition.eventType.decodePayload(from: definition.payload(body, recordID, revision))
        } catch let error as DecodingError {
            throw HTTPProblem.invalidBody([error.violation])
        }
    }

}

extension HandlerContext {
    /// A new envelope from this service for a payload of any event type.
    func envelope(of payload: some EventPayload, patientID: String, traceID: String) -> AnyEnvelope {
        AnyEnvelope(EventEnvelope(producer: producer, patientID: patientID, traceID: traceID, payload: payload))
    }

    func publish(_ envelope: AnyEnvelope) async throws {
        try await envelope.enqueue(self)
    }
}

/// An envelope whose payload type is known only at run time (the kind of record decides it).
struct AnyEnvelope: Sendable {
    let eventID: UUID
    let enqueue: @Sendable (HandlerContext) async throws -> Void

    init<P: EventPayload>(_ envelope: EventEnvelope<P>) {
        eventID = envelope.eventID
        enqueue = { try await $0.publish(envelope) }
    }
}
