import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// `POST /v1/broadcasts`: an operator sends health information or an activity to every known patient, to an area's
/// subscribers, or to listed patients (202: delivered into the inboxes in batches by `Broadcasts.job`);
/// `GET /v1/broadcasts/{broadcastId}`: how far delivery has come.
struct BroadcastRoutes: Sendable {
    let context: ServiceContext

    struct Body: SchemaBody {
        static let schema: RequestSchema = .broadcast
        let broadcastId: UUID?
        let kind: String
        let text: String
        let audience: Audience

        /// One of three shapes (the schema's `oneOf`): everyone, an area's subscribers, or listed patients.
        struct Audience: Decodable {
            let areaCode: String?
            let patientIds: [String]?

            var scope: Broadcasts.Audience {
                if let areaCode { .area(areaCode) } else if let patientIds, !patientIds.isEmpty { .patients(patientIds) } else { .all }
            }
        }
    }

    struct Accepted: Encodable, Sendable {
        let broadcastId: UUID
        let status: String
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/broadcasts", access: .broadcasts, summary: "Broadcast health information or an activity to patients' inboxes", body: [Body.schema]
        ) {
            request, requestContext in
            let body = try await request.decode(as: Body.self, context: requestContext)
            let broadcast = Broadcasts.Broadcast(
                id: body.broadcastId ?? UUID.timeOrdered(), kind: body.kind, text: body.text, audience: body.audience.scope)
            let created = try await context.transaction { handler in try await Broadcasts(handler).insert(broadcast) }
            return try jsonResponse(
                Accepted(broadcastId: broadcast.id, status: created ? "accepted" : "duplicate"), status: created ? .accepted : .ok)
        }
        routes.get("v1/broadcasts/:broadcastId", access: .broadcasts, summary: "How far a broadcast's delivery has come") { _, requestContext in
            let id = try requestContext.uuidParameter("broadcastId", label: "broadcast id")
            guard let status = try await Broadcasts(context).status(id) else {
                throw HTTPProblem(status: .notFound, error: "no such broadcast")
            }
            return try jsonResponse(status)
        }
    }
}
