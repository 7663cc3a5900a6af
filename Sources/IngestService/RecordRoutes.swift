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
    func validated(_ definition: RecordDefinition, request: Request, requestContext: some RequestContext, recordID: String) async throws -> JSONValue {
        let body = try await request.validatedJSON(schema: definition.requestSchema, context: requestContext)
        let payload = try decodePayload(definition, body: body, recordID: recordID, revision: 1)
        let now = Date()
        var violations: [SchemaViolation] = []
        do {
            _ = try AssessmentEngine.assess(payload, now: now)
        } catch {
            violations = error.issues.map { SchemaViolation(pointer: JSONPointer(parsing: $0.field), message: $0.message + ($0.allowedRange.map { " (allowed: \($0))" } ?? "")) }
        }
        if let field = definition.observedAtField, definition.observedAt(payload) > now.addingTimeInterval(Self.clockSkew) {
            violations.append(SchemaViolation(
                pointer: JSONPointer(parsing: field), message: "must not be in the future (allowed: up to 5 minutes ahead of the server clock)"))
        }
        guard violations.isEmpty else {
            throw HTTPProblem(status: .unprocessableContent, error: "the values cannot be assessed", violations: violations)
        }
        return body
    }

    /// - Parameter request: whose request id the events carry as their trace id, and whose audit entry is recorded in
    ///   the same transaction.
    func store(
        _ definition: RecordDefinition, mode: Mode, patientID: String, recordID: String, body: JSONValue, request: CaretideRequestContext
    ) async throws -> Receipt {
        let bodyText = try CaretideJSON.encodeToString(body)
        let requestID = request.requestID
        return try await context.transaction(auditing: request, status: { $0.httpStatus.code }) { handler in
            let connection = handler.connection
            let first = try decodePayload(definition, body: body, recordID: recordID, revision: 1)
            let envelope = handler.envelope(of: first, patientID: patientID, traceID: requestID)
            let inserted = try await connection.fetchAll(
                """
                INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id)
                VALUES (\(definition.recordType), \(recordID), \(patientID), 1, \(bodyText)::jsonb, \(definition.observedAt(first)), \(envelope.eventID))
                ON CONFLICT (record_type, record_id) DO NOTHING RETURNING 1
                """, as: Int.self, logger: handler.logger)
            if !inserted.isEmpty {
                try await handler.publish(envelope)
                return Receipt(id: recordID, revision: 1, eventId: envelope.eventID, status: "recorded")
            }

            guard let existing = try await lockedRecord(definition, recordID: recordID, handler: handler) else {
                throw HTTPProblem(status: .conflict, error: "the record changed concurrently; retry")
            }
            guard existing.patientID == patientID else { throw Self.idTaken }
            guard existing.deletedAt == nil else {
                throw HTTPProblem(status: .conflict, error: "this record was deleted and cannot be changed", violations: [])
            }
            let unchanged = try CaretideJSON.parse(Array(existing.body.utf8)) == body
            if mode == .create || unchanged {
                return Receipt(id: recordID, revision: existing.revision, eventId: existing.lastEventID, status: mode == .create ? "duplicate" : "unchanged")
            }
            let revision = existing.revision + 1
            let corrected = try decodePayload(definition, body: body, recordID: recordID, revision: revision)
            let correction = handler.envelope(of: corrected, patientID: patientID, traceID: requestID)
            try await connection.query(
                """
                UPDATE records SET revision = \(revision), body = \(bodyText)::jsonb, observed_at = \(definition.observedAt(corrected)),
                    last_event_id = \(correction.eventID), updated_at = now()
                WHERE record_type = \(definition.recordType) AND record_id = \(recordID)
                """, logger: handler.logger)
            try await handler.publish(correction)
            return Receipt(id: recordID, revision: revision, eventId: correction.eventID, status: "corrected")
        }
    }

    func delete(_ definition: RecordDefinition, patientID: String, recordID: String, request: CaretideRequestContext) async throws -> Receipt {
        guard let deletion = definition.deletion else { throw HTTPError(.methodNotAllowed) }
        let requestID = request.requestID
        return try await context.transaction(auditing: request, status: { $0.httpStatus.code }) { handler in
            guard let existing = try await lockedRecord(definition, recordID: recordID, handler: handler) else {
                throw HTTPProblem(status: .notFound, error: "no such record")
            }
            guard existing.patientID == patientID else { throw HTTPProblem(status: .notFound, error: "no such record") }
            if existing.deletedAt != nil {
                return Receipt(id: recordID, revision: existing.revision, eventId: existing.lastEventID, status: "deleted")
            }
            let envelope = handler.envelope(of: deletion(recordID, Date()), patientID: patientID, traceID: requestID)
            try await handler.connection.query(
                """
                UPDATE records SET deleted_at = now(), last_event_id = \(envelope.eventID), updated_at = now()
                WHERE record_type = \(definition.recordType) AND record_id = \(recordID)
                """, logger: handler.logger)
            try await handler.publish(envelope)
            return Receipt(id: recordID, revision: existing.revision, eventId: envelope.eventID, status: "deleted")
        }
    }

    /// The patient a record belongs to, or a 404.
    func patientOwning(_ definition: RecordDefinition, recordID: String) async throws -> String {
        let rows = try await context.database.client.fetchAll(
            "SELECT patient_id FROM records WHERE record_type = \(definition.recordType) AND record_id = \(recordID)",
            as: String.self, logger: context.logger)
        guard let patientID = rows.first else { throw HTTPProblem(status: .notFound, error: "no such record") }
        return patientID
    }

    /// One page of the patient's current (not deleted) records whose type starts with `typePrefix`, oldest
    /// observation first.
    func list(patientID: String, typePrefix: String, page: PageRequest) async throws -> Page<JSONValue> {
        let after = page.after
        guard after == nil || after?.date != nil else { throw PageRequest.badCursor }
        let rows = try await context.database.client.fetchAll(
            """
            SELECT record_type, record_id, revision, observed_at, body::text FROM records
            WHERE patient_id = \(patientID) AND record_type LIKE \(typePrefix + "%") AND deleted_at IS NULL
              AND (\(after == nil) OR (observed_at, record_id) > (\(after?.date ?? Date()), \(after?.id ?? "")))
            ORDER BY observed_at, record_id LIMIT \(page.limit + 1)
            """, as: (String, String, Int, Date, String).self, logger: context.logger)
        return try Page(rows: rows, request: page, cursor: { PageRequest.Cursor(date: $0.3, id: $0.1) }) { type, _, revision, _, body in
            try CaretideJSON.parse(Array(body.utf8)).merging([
                "kind": .string(String(type.split(separator: ":").last ?? "")), "revision": .number(Double(revision)),
            ])
        }
    }

    static let idTaken = HTTPProblem(
        status: .conflict, error: "this id is already used",
        violations: [SchemaViolation(pointer: .root, message: "the id belongs to another record")])

    private struct ExistingRecord {
        let patientID: String
        let revision: Int
        let body: String
        let deletedAt: Date?
        let lastEventID: UUID
    }

    private func lockedRecord(_ definition: RecordDefinition, recordID: String, handler: HandlerContext) async throws -> ExistingRecord? {
        let rows = try await handler.connection.fetchAll(
            """
            SELECT patient_id, revision, body::text, deleted_at, last_event_id FROM records
            WHERE record_type = \(definition.recordType) AND record_id = \(recordID) FOR UPDATE
            """, as: (String, Int, String, Date?, UUID).self, logger: handler.logger)
        guard let row = rows.first else { return nil }
        return ExistingRecord(patientID: row.0, revision: row.1, body: row.2, deletedAt: row.3, lastEventID: row.4)
    }

    private func decodePayload(_ definition: RecordDefinition, body: JSONValue, recordID: String, revision: Int) throws -> any EventPayload {
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
