import CaretideIdentity
import CaretideRuntime
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// `GET /v1/patients/{patientId}/alerts`: the patient's alert inbox, newest first; withdrawn alerts are left out unless
/// `?withdrawn=true`.
struct InboxRoutes: Sendable {
    let context: ServiceContext

    struct Alert: Encodable {
        let alertId: UUID
        let sourceEventId: UUID
        let aboutId: UUID?
        let kind: String
        let severity: String
        let category: String
        let messageKey: String
        let raisedAt: Date
        let read: Bool
        let withdrawn: String?
    }

    func register(on routes: APIRoutes) {
        routes.get("v1/patients/:patientId/alerts", access: .patientData(.read)) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let includeWithdrawn = request.uri.queryParameters.get("withdrawn") == "true"
            let rows = try await context.database.client.fetchAll(
                """
                SELECT alert_id, source_event_id, about_id, kind, severity, category, message_key, raised_at, read_at IS NOT NULL, withdrawal_reason
                FROM alerts WHERE patient_id = \(patientID) AND (\(includeWithdrawn) OR withdrawn_at IS NULL)
                ORDER BY raised_at DESC, alert_id
                """, as: (UUID, UUID, UUID?, String, String, String, String, Date, Bool, String?).self, logger: context.logger)
            return try jsonResponse(rows.map {
                Alert(alertId: $0.0, sourceEventId: $0.1, aboutId: $0.2, kind: $0.3, severity: $0.4, category: $0.5, messageKey: $0.6,
                      raisedAt: $0.7, read: $0.8, withdrawn: $0.9)
            })
        }
    }
}
