import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// `POST /v1/patients/{patientId}/report-shares`: the patient shares their report for a period with one consultant of
/// their care team. The consultant's inbox gets a `reportShared` notification holding a signed, expiring link
/// (`ReportShareLink`) that scoring-service opens for that consultant alone, while the grant is in force. The link
/// stays in the inbox: the message on `caretide.alerts` says that a report was shared, never how to open it.
struct ReportShareRoutes: Sendable {
    let context: ServiceContext
    let shareKey: ShareKey?

    /// How long a link opens when the patient does not say.
    static let defaultLifetimeDays = 14

    struct Body: SchemaBody {
        static let schema: RequestSchema = .reportShare
        let consultantId: String
        let expiresInDays: Int?
        let from: String?
        let to: String?
    }

    struct Receipt: Encodable, Sendable {
        let shareId: UUID
        let notificationId: UUID
        let consultantId: String
        let from: Date
        let to: Date
        let expiresAt: Date
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/patients/:patientId/report-shares", access: .patientData(.manage),
            summary:
                "Share the patient's report for a period with a consultant of their care team (a signed, expiring link in the consultant's inbox)",
            body: [Body.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: Body.self, context: requestContext)
            // A deployment without a key shares nothing by the operator's choice: a standing state, not an outage.
            guard let shareKey else {
                throw HTTPProblem(status: .conflict, error: "this deployment does not share reports: an operator sets \(ShareKey.variable)")
            }
            let consultantID = body.consultantId
            let period = try Period.from(from: body.from, to: body.to).reportPeriod(now: Date())
            let days = body.expiresInDays ?? Self.defaultLifetimeDays
            let now = Date()
            let link = ReportShareLink(
                patientID: patientID, shareID: UUID.timeOrdered(), consultantID: consultantID, from: period.start, to: period.end,
                expiresAt: now.addingTimeInterval(TimeInterval(days) * 86_400))
            let row = NotificationStore.Row(
                .reportShared, severity: .normal, source: link.shareID, about: link.shareID, to: .init(id: consultantID, role: .consultant),
                patientID: patientID, raisedAt: now, link: link.relativeURL(signedWith: shareKey))
            let traceID = requestContext.requestID
            let shared = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 201 : 422 }) { handler in
                // The grant is checked where the notification is written, so a revocation racing the share is seen.
                guard try await CareTeamStore(handler).isActive(patientID: patientID, consultantID: consultantID) else { return false }
                try await NotificationDelivery.deliver([row], traceID: traceID, context: handler)
                return true
            }
            guard shared else {
                throw HTTPProblem(
                    status: .unprocessableContent, error: "the report can only be shared with the patient's care team",
                    violations: [
                        SchemaViolation(pointer: JSONPointer(tokens: ["consultantId"]), message: "has no care-team grant in force from this patient")
                    ])
            }
            return try jsonResponse(
                Receipt(
                    shareId: link.shareID, notificationId: row.alert.alertID, consultantId: consultantID, from: link.from, to: link.to,
                    expiresAt: link.expiresAt), status: .created)
        }
    }
}
