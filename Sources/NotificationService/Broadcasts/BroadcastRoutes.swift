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

    static let schema: RequestSchema = .broadcast

    struct Accepted: Encodable, Sendable {
        let broadcastId: UUID
        let status: String
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/broadcasts", access: .broadcasts, summary: "Broadcast health information or an activity to patients' inboxes", body: [Self.schema]
        ) {
            request, requestContext in
            let body = try await request.validatedJSON(schema: Self.schema, context: requestContext)
            let audience: Broadcasts.Audience =
                if let area = body["audience"]?["areaCode"]?.stringValue {
                    .area(area)
                } else if let ids = body["audience"]?["patientIds"]?.elements, !ids.isEmpty { .patients(ids.compactMap(\.stringValue)) } else { .all }
            let broadcast = Broadcasts.Broadcast(
                id: body["broadcastId"]?.stringValue.flatMap(UUID.init(uuidString:)) ?? UUID.timeOrdered(), kind: body["kind"]?.stringValue ?? "",
                text: body["text"]?.stringValue ?? "", audience: audience)
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
