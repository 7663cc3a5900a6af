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
        routes.get(
            "v1/patients/:patientId/alerts", access: .patientData(.read), summary: "The patient's alert inbox, newest first",
            query: [.init("withdrawn", "true: include alerts withdrawn because what they were about was retracted")], paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let includeWithdrawn = request.uri.queryParameters.get("withdrawn") == "true"
            let page = try PageRequest.from(request)
            let after = try page.timeAndUUID()
            let rows = try await context.database.client.fetchAll(
                """
                SELECT alert_id, source_event_id, about_id, kind, severity, category, message_key, raised_at, read_at IS NOT NULL, withdrawal_reason
                FROM alerts WHERE patient_id = \(patientID) AND (\(includeWithdrawn) OR withdrawn_at IS NULL)
                  AND (\(after == nil) OR (raised_at, alert_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
                ORDER BY raised_at DESC, alert_id DESC LIMIT \(page.limit + 1)
                """, as: (UUID, UUID, UUID?, String, String, String, String, Date, Bool, String?).self, logger: context.logger)
            let items = rows.map {
                Alert(alertId: $0.0, sourceEventId: $0.1, aboutId: $0.2, kind: $0.3, severity: $0.4, category: $0.5, messageKey: $0.6,
                      raisedAt: $0.7, read: $0.8, withdrawn: $0.9)
            }
            return try jsonResponse(Page(rows: items, request: page) { .init(date: $0.raisedAt, id: $0.alertId) })
        }
    }
}
