import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// A patient's care team: the consultants who may read their data, and until when.
/// - `PUT    /v1/patients/{patientId}/care-team/{consultantId}`: grant (body: optional `expiresAt`), or change the expiry
/// - `DELETE /v1/patients/{patientId}/care-team/{consultantId}`: revoke
/// - `GET    /v1/patients/{patientId}/care-team`: the grants in force
/// Only the patient may do any of it. Each change is stored here and announced on `caretide.care-team` in one
/// transaction; the other services apply it to their own projections within moments.
struct CareTeamRoutes: Sendable {
    let context: ServiceContext

    struct GrantBody: SchemaBody {
        static let schema: RequestSchema = .careTeamGrant
        let expiresAt: Date?
    }

    func register(on routes: APIRoutes) {
        routes.put(
            "v1/patients/:patientId/care-team/:consultantId", access: .patientData(.manage),
            summary: "Grant a consultant access to the patient's data, or change the grant's expiry", body: [GrantBody.schema],
            bodyLimit: 4 * 1024
        ) { request, requestContext in
            let (patientID, consultantID) = try Self.pair(requestContext)
            let body = try await request.decode(as: GrantBody.self, context: requestContext)
            let grant = try Self.grant(consultantID: consultantID, expiresAt: body.expiresAt, now: Date())
            try await context.transaction(auditing: requestContext.origin, status: { 200 }) { handler in
                try await ErasureStore(handler).refuseIfErased(patientID: patientID)
                let envelope = EventEnvelope(producer: handler.producer, patientID: patientID, traceID: requestContext.requestID, payload: grant)
                try await CareTeamStore(handler).apply(grant, patientID: patientID, eventID: envelope.eventID)
                try await handler.publish(envelope)
            }
            return try jsonResponse(CareTeamStore.Grant(consultantId: consultantID, grantedAt: grant.grantedAt, expiresAt: grant.expiresAt))
        }
        routes.delete(
            "v1/patients/:patientId/care-team/:consultantId", access: .patientData(.manage), summary: "Revoke a consultant's access"
        ) { _, requestContext in
            let (patientID, consultantID) = try Self.pair(requestContext)
            try await context.transaction(auditing: requestContext.origin, status: { 204 }) { handler in
                // Revoking what is not granted changes nothing and announces nothing.
                guard
                    try await CareTeamStore(handler).lockUnrevoked(
                        patientID: patientID, consultantID: consultantID)
                else { return }
                let revocation = CareTeamRevoked(consultantID: consultantID, revokedAt: Date())
                let envelope = EventEnvelope(producer: handler.producer, patientID: patientID, traceID: requestContext.requestID, payload: revocation)
                try await CareTeamStore(handler).apply(
                    revocation, patientID: patientID, eventID: envelope.eventID)
                try await handler.publish(envelope)
            }
            return Response(status: .noContent)
        }
        routes.get(
            "v1/patients/:patientId/care-team", access: .patientData(.manage), summary: "The consultants the patient's grants are in force for",
            paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(
                try await CareTeamStore(context).activeGrants(
                    patientID: patientID, page: .from(request)))
        }
    }

    /// The grant made at `now`, or a 422 when it would lapse at once: an expiry at `now` or before grants nothing.
    /// Without an expiry it lasts until revoked.
    static func grant(consultantID: String, expiresAt: Date?, now: Date) throws -> CareTeamGranted {
        if let expiresAt, expiresAt <= now {
            throw HTTPProblem(
                status: .unprocessableContent, error: "the grant would already have lapsed",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["expiresAt"]), message: "must be in the future")])
        }
        return CareTeamGranted(consultantID: consultantID, grantedAt: now, expiresAt: expiresAt)
    }

    static func pair(_ context: CaretideRequestContext) throws -> (patient: String, consultant: String) {
        (try PatientID.fromPath(context), try PatientID.fromPath(context, parameter: "consultantId", label: "consultant id"))
    }
}
