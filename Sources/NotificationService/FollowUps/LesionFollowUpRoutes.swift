import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import Hummingbird

/// The follow-ups of suspicious or uncertain skin photos (`LesionFollowUps`):
/// - `GET /v1/patients/{patientId}/lesion-follow-ups`: the patient's, newest first, each with its stage, due date,
///   status (open, appointmentBooked, overdue, closed) and the care team's findings; for the patient and consultants
///   with a grant in force;
/// - `POST …/lesion-follow-ups/{followUpId}/findings`: a consultant of the care team records what the check-up or the
///   treatment found; a check-up found positive starts the treatment stage, told to the patient and the care team.
struct LesionFollowUpRoutes: Sendable {
    let context: ServiceContext
    let clock: WallClock

    struct Body: SchemaBody {
        static let schema: RequestSchema = .lesionFollowUpFinding
        let finding: LesionFollowUp.Finding
    }

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/lesion-follow-ups"
        routes.get(
            path, access: .patientData(.read), summary: "The follow-ups of the patient's suspicious or uncertain skin photos, newest first",
            paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(try await LesionFollowUpStore(context).list(patientID: patientID, page: try PageRequest.from(request)))
        }
        routes.post(
            "\(path)/:followUpId/findings", access: .patientData(.advise),
            summary: "A consultant of the care team records what a skin lesion's check-up or treatment found", body: [Body.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let id = try requestContext.uuidParameter("followUpId", label: "follow-up id")
            let body = try await request.decode(as: Body.self, context: requestContext)
            let consultant = requestContext.identity?.subject ?? ""
            let now = clock.now
            let recorded = try await context.transaction(
                auditing: requestContext.origin,
                status: { (recorded: LesionFollowUpStore.Recorded) in
                    switch recorded {
                    case .recorded: 201
                    case .duplicate: 200
                    case .notFound: 404
                    case .conflict: 409
                    }
                }
            ) { handler in
                let recorded = try await LesionFollowUpStore(handler).record(
                    body.finding, followUpID: id, patientID: patientID, consultantID: consultant, at: now)
                if case .recorded(_, let started?) = recorded {
                    let consultants = try await CareTeamStore(handler).activeConsultants(patientID: patientID)
                    try await NotificationDelivery.deliver(
                        LesionFollowUps.opened(id, stage: started, patientID: patientID, consultants: consultants, at: now),
                        traceID: requestContext.requestID, context: handler)
                }
                return recorded
            }
            switch recorded {
            case .recorded(let followUp, _): return try jsonResponse(followUp, status: .created)
            case .duplicate(let followUp): return try jsonResponse(followUp)
            case .notFound: throw HTTPProblem(status: .notFound, error: "no such follow-up")
            case .conflict(let reason): throw HTTPProblem(status: .conflict, error: reason)
            }
        }
    }
}
