import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import Hummingbird

/// `POST /v1/patients/{patientId}/advice`: a consultant whose grant from the patient is in force sends advice to the
/// patient's inbox (care tracking's closed loop). Stored and announced in one transaction with the request's audit
/// entry; the announcement on `caretide.alerts` carries no text.
struct AdviceRoutes: Sendable {
    let context: ServiceContext

    struct Body: SchemaBody {
        static let schema: RequestSchema = .advice
        let text: String
        /// `normal` or `attention` (the schema's enum): advice is never urgent.
        let severity: Severity?
    }

    struct Receipt: Encodable, Sendable {
        let notificationId: UUID
        let adviceId: UUID
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/patients/:patientId/advice", access: .patientData(.advise),
            summary: "A consultant of the patient's care team sends advice to the patient's inbox", body: [Body.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let body = try await request.decode(as: Body.self, context: requestContext)
            let (text, severity) = (body.text, body.severity ?? .normal)
            let consultant = requestContext.identity?.subject
            let adviceID = UUID.timeOrdered()
            let row = NotificationStore.Row(
                .advice, severity: severity, source: adviceID, about: adviceID, to: .init(id: patientID, role: .patient), patientID: patientID,
                raisedAt: Date(), subjectID: consultant, text: text)
            let traceID = requestContext.requestID
            try await context.transaction(auditing: requestContext.origin, status: { 201 }) { handler in
                try await NotificationDelivery.deliver([row], traceID: traceID, context: handler)
            }
            return try jsonResponse(Receipt(notificationId: row.alert.alertID, adviceId: adviceID), status: .created)
        }
    }
}
