import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// The right to erasure (GDPR Art. 17):
/// - `POST /v1/patients/{patientId}/erasure`: the patient, or an operator on their behalf, asks that Caretide erase
///   everything it holds about the patient. From the commit on, no write for the patient is taken (410); every
///   service erases its part on `patient.erasure-requested` and confirms. 202 with the progress; asked again, 200
///   with the same request.
/// - `GET /v1/patients/{patientId}/erasure`: the request's progress per service until it is complete.
/// The audit trail keeps the request (who, when, ids) and nothing of the data.
struct ErasureRoutes: Sendable {
    let context: ServiceContext

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/erasure"
        routes.post(
            path, access: .patientData(.erase),
            summary: "Erase everything Caretide holds about the patient, in every service (the patient, or an operator on their behalf)",
            body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let requester: ErasureRequester = requestContext.identity?.role == .operator ? .operator : .patient
            let origin = requestContext.origin
            let (progress, created) = try await context.transaction(auditing: origin, status: { $0.1 ? 202 : 200 }) { handler in
                let (progress, created) = try await ErasureStore(handler).request(patientID: patientID, by: requester, at: Date())
                if created {
                    try await handler.publish(
                        EventEnvelope(
                            producer: handler.producer, patientID: patientID, traceID: origin.traceID,
                            payload: PatientErasureRequested(
                                erasureID: progress.erasureId, requestedBy: requester, requestedAt: progress.requestedAt)))
                }
                return (progress, created)
            }
            var response = try jsonResponse(progress, status: created ? .accepted : .ok)
            response.headers[.location] = "/\(path.replacingOccurrences(of: ":patientId", with: patientID))"
            return response
        }
        routes.get(path, access: .patientData(.erase), summary: "How far the patient's erasure went, per service") { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let progress = try await ErasureStore(context).progress(patientID: patientID) else {
                throw HTTPProblem(status: .notFound, error: "no erasure was requested for this patient")
            }
            var response = try jsonResponse(progress)
            response.headers[.cacheControl] = "private, no-cache"
            return response
        }
    }
}
