import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Webhooks, for operators:
/// - `POST /v1/webhooks`: register a receiver for a group of recipients (201, with the signing secret, shown once);
/// - `GET /v1/webhooks`: every webhook, without secrets;
/// - `DELETE /v1/webhooks/{webhookId}`: stop one (what it still had waiting is cancelled);
/// - `GET /v1/webhooks/{webhookId}/deliveries`: each message's delivery, newest first, `?status=` pending, delivered,
///   dead or cancelled;
/// - `POST /v1/webhooks/{webhookId}/deliveries/{eventId}/retry`: send a dead or cancelled delivery again once its
///   cause is fixed.
struct WebhookRoutes: Sendable {
    let context: ServiceContext

    struct Body: SchemaBody {
        static let schema: RequestSchema = .webhook
        let recipientRole: RecipientRole
        let url: String
        let includeText: Bool?
        let description: String?
    }

    struct Requeued: Encodable, Sendable {
        let eventId: UUID
        let status: String
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/webhooks", access: .deliveryChannels, summary: "Register a webhook for every message to one group of recipients", body: [Body.schema]
        ) {
            request, requestContext in
            let body = try await request.decode(as: Body.self, context: requestContext)
            if let problem = Self.urlProblem(body.url) {
                throw HTTPProblem.invalidBody([SchemaViolation(pointer: JSONPointer(tokens: ["url"]), message: problem)])
            }
            let registered = try await context.transaction(auditing: requestContext.origin, status: { _ in 201 }) { handler in
                try await Webhooks(handler).register(
                    role: body.recipientRole, url: body.url, includeText: body.includeText ?? false, description: body.description)
            }
            return try jsonResponse(registered, status: .created)
        }
        routes.get("v1/webhooks", access: .deliveryChannels, summary: "Every webhook (without secrets)") { _, _ in
            try jsonResponse(try await Webhooks(context).list())
        }
        routes.delete("v1/webhooks/:webhookId", access: .deliveryChannels, summary: "Stop a webhook; what it still had waiting is cancelled") {
            _, requestContext in
            let id = try requestContext.uuidParameter("webhookId", label: "webhook id")
            guard
                let webhook = try await context.transaction(
                    auditing: requestContext.origin, status: { $0 == nil ? 404 : 200 },
                    { handler in
                        try await Webhooks(handler).disable(id)
                    })
            else { throw HTTPProblem(status: .notFound, error: "no such webhook") }
            return try jsonResponse(webhook)
        }
        routes.get(
            "v1/webhooks/:webhookId/deliveries", access: .deliveryChannels, summary: "A webhook's deliveries, newest first",
            query: [.init("status", "pending, delivered, dead (given up after the last try) or cancelled")], paged: true
        ) { request, requestContext in
            let id = try requestContext.uuidParameter("webhookId", label: "webhook id")
            let status = request.uri.queryParameters.get("status").map { String($0) }
            if let status, !Webhooks.statuses.contains(status) {
                throw HTTPProblem(
                    status: .badRequest, error: "the query is invalid",
                    violations: [
                        SchemaViolation(
                            pointer: JSONPointer(tokens: ["status"]), message: "must be one of \(Webhooks.statuses.joined(separator: ", "))")
                    ])
            }
            let page = try PageRequest.from(request)
            return try jsonResponse(
                try await Webhooks(context).deliveries(of: id, status: status, page: page))
        }
        routes.post(
            "v1/webhooks/:webhookId/deliveries/:eventId/retry", access: .deliveryChannels,
            summary: "Send a dead or cancelled delivery again, from its first attempt", body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let webhook = try requestContext.uuidParameter("webhookId", label: "webhook id")
            let event = try requestContext.uuidParameter("eventId", label: "event id")
            let requeued = try await context.transaction(auditing: requestContext.origin, status: { $0 ? 202 : 409 }) { handler in
                try await Webhooks(handler).retry(webhook: webhook, event: event)
            }
            guard requeued else {
                throw HTTPProblem(status: .conflict, error: "no dead or cancelled delivery of this event for an active webhook")
            }
            return try jsonResponse(Requeued(eventId: event, status: "pending"), status: .accepted)
        }
    }

    /// Why `url` cannot be a receiver's, or nil: https, or http to this machine only (development); no credentials in
    /// it, since the URL is shown to every operator.
    static func urlProblem(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { return "must be an absolute http(s) URL" }
        if components.user != nil || components.password != nil { return "must not carry credentials: the signature authenticates Caretide" }
        switch scheme {
        case "https": return nil
        case "http": return ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased()) ? nil : "must be https (http only to localhost)"
        default: return "must be an absolute http(s) URL"
        }
    }
}
