import CaretideRuntime
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// `GET /v1/patients/{patientId}/alerts`: the patient's alert inbox, newest first.
struct InboxRoutes: Sendable {
    let context: ServiceContext

    struct Alert: Encodable {
        let alertId: UUID
        let sourceEventId: UUID
        let kind: String
        let severity: String
        let category: String
        let messageKey: String
        let raisedAt: Date
        let read: Bool
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("v1/patients/:patientId/alerts") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let rows = try await context.database.client.fetchAll(
                """
                SELECT alert_id, source_event_id, kind, severity, category, message_key, raised_at, read_at IS NOT NULL
                FROM alerts WHERE patient_id = \(patientID) ORDER BY raised_at DESC, alert_id
                """, as: (UUID, UUID, String, String, String, String, Date, Bool).self, logger: context.logger
            )
            return try jsonResponse(rows.map {
                Alert(alertId: $0.0, sourceEventId: $0.1, kind: $0.2, severity: $0.3, category: $0.4, messageKey: $0.5, raisedAt: $0.6, read: $0.7)
            })
        }
    }
}
