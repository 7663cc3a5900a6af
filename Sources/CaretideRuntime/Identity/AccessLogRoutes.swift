import CaretideIdentity
import CaretideStore
import Foundation
import Hummingbird

/// `GET /v1/patients/{patientId}/access-log?limit=&cursor=`: who accessed the patient's data held by this service,
/// newest first, for the patient alone. Ids, operations and outcomes only.
struct AccessLogRoutes: Sendable {
    let context: ServiceContext

    struct Entry: Encodable, Sendable {
        let auditId: UUID
        let recordedAt: Date
        let subject: String
        let role: String
        let institutionId: String?
        let action: String
        let operation: String
        let outcome: String
        let status: Int
    }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/access-log", access: .patientData(.manage),
            summary: "Who accessed the patient's data held by this service, and who was refused, newest first", paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let page = try PageRequest.from(request)
            let after = try page.timeAndUUID()
            let rows = try await context.database.client.fetchAll(
                """
                SELECT audit_id, recorded_at, subject, role, institution_id, action, operation, outcome, status FROM access_audit
                WHERE patient_id = \(patientID) AND (\(after == nil) OR (recorded_at, audit_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
                ORDER BY recorded_at DESC, audit_id DESC LIMIT \(page.limit + 1)
                """, as: (UUID, Date, String, String, String?, String, String, String, Int).self, logger: context.logger)
            let entries = rows.map {
                Entry(auditId: $0.0, recordedAt: $0.1, subject: $0.2, role: $0.3, institutionId: $0.4, action: $0.5, operation: $0.6, outcome: $0.7, status: $0.8)
            }
            return try jsonResponse(Page(rows: entries, request: page) { .init(date: $0.recordedAt, id: $0.auditId) })
        }
    }
}
