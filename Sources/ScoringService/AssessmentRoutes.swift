import CaretideRuntime
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// `GET /v1/patients/{patientId}/assessments`: the patient's assessment history, oldest first.
struct AssessmentRoutes: Sendable {
    let context: ServiceContext

    struct Assessment: Encodable {
        let assessmentId: UUID
        let sourceEventId: UUID
        let measurementId: UUID
        let takenAt: Date
        let category: String
        let severity: String
        let tip: String
        let ruleSetVersion: String
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("v1/patients/:patientId/assessments") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let rows = try await context.database.client.fetchAll(
                """
                SELECT assessment_id, source_event_id, measurement_id, taken_at, category, severity, tip, rule_set_version
                FROM blood_pressure_assessments WHERE patient_id = \(patientID) ORDER BY taken_at, assessment_id
                """, as: (UUID, UUID, UUID, Date, String, String, String, String).self, logger: context.logger
            )
            return try jsonResponse(rows.map {
                Assessment(assessmentId: $0.0, sourceEventId: $0.1, measurementId: $0.2, takenAt: $0.3, category: $0.4, severity: $0.5, tip: $0.6, ruleSetVersion: $0.7)
            })
        }
    }
}
