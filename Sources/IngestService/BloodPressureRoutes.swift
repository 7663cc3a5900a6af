import CaretideRuntime
import CaretideStore
import CaretideSchemas
import Foundation
import Hummingbird
import PostgresNIO

/// `POST /v1/patients/{patientId}/blood-pressure` and `GET` of the same path.
struct BloodPressureRoutes: Sendable {
    let context: ServiceContext

    struct ReadingRequest: Decodable {
        let measurementId: UUID
        let systolic: Int
        let diastolic: Int
        let takenAt: Date
        let source: MeasurementSource?
    }

    struct Receipt: Encodable {
        let measurementId: UUID
        let eventId: UUID
        /// "recorded" the first time, "duplicate" when the same measurement id was already stored (offline re-sync).
        let status: String
    }

    struct Reading: Encodable {
        let measurementId: UUID
        let systolic: Int
        let diastolic: Int
        let takenAt: Date
        let source: String
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("v1/patients/:patientId/blood-pressure") { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decodeValidated(ReadingRequest.self, schema: "blood-pressure-reading.request", context: requestContext)
            let receipt = try await record(body, patientID: patientID)
            return try jsonResponse(receipt, status: receipt.status == "recorded" ? .created : .ok)
        }
        router.get("v1/patients/:patientId/blood-pressure") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(try await readings(patientID: patientID))
        }
    }

    /// Stores the reading and its event in one transaction. The measurement id is the idempotency key: a re-sent
    /// reading is answered with the original receipt, and a measurement id reused for another patient is a conflict.
    func record(_ body: ReadingRequest, patientID: String) async throws -> Receipt {
        let payload = BloodPressureRecorded(
            measurementID: body.measurementId, systolic: body.systolic, diastolic: body.diastolic, takenAt: body.takenAt,
            source: body.source ?? .patient)
        let envelope = EventEnvelope(producer: IngestService.name, patientID: patientID, traceID: UUID().uuidString.lowercased(), payload: payload)
        return try await context.transaction { handler in
            let inserted = try await handler.connection.fetchAll(
                """
                INSERT INTO blood_pressure_readings (measurement_id, patient_id, systolic, diastolic, taken_at, source, event_id)
                VALUES (\(payload.measurementID), \(patientID), \(payload.systolic), \(payload.diastolic), \(payload.takenAt),
                        \(payload.source.rawValue), \(envelope.eventID))
                ON CONFLICT (measurement_id) DO NOTHING RETURNING 1
                """, as: Int.self, logger: handler.logger
            ).count == 1
            if inserted {
                try await handler.publish(envelope)
                return Receipt(measurementId: payload.measurementID, eventId: envelope.eventID, status: "recorded")
            }
            let existing = try await handler.connection.fetchAll(
                "SELECT patient_id, event_id FROM blood_pressure_readings WHERE measurement_id = \(payload.measurementID)", as: (String, UUID).self,
                logger: handler.logger
            )
            guard let (owner, eventID) = existing.first, owner == patientID else {
                throw HTTPProblem(
                    status: .conflict, error: "this measurement id is already used",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["measurementId"]), message: "is already used by another record")])
            }
            return Receipt(measurementId: payload.measurementID, eventId: eventID, status: "duplicate")
        }
    }

    func readings(patientID: String) async throws -> [Reading] {
        try await context.database.client.fetchAll(
            """
            SELECT measurement_id, systolic, diastolic, taken_at, source FROM blood_pressure_readings
            WHERE patient_id = \(patientID) ORDER BY taken_at, measurement_id
            """, as: (UUID, Int, Int, Date, String).self, logger: context.logger
        ).map {
            Reading(measurementId: $0.0, systolic: $0.1, diastolic: $0.2, takenAt: $0.3, source: $0.4)
        }
    }
}
