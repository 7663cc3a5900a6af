import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// Inboxes:
/// - `GET /v1/patients/{patientId}/alerts`: the patient's inbox, newest first (the patient, or the care team);
/// - `GET /v1/inbox`: the caller's own inbox (patient or consultant), newest first, `?unread=true` for unread only;
/// - `GET /v1/inbox/unread-count`: how many stand unread, and how many of those are urgent;
/// - `POST /v1/inbox/{notificationId}/read` and `…/acknowledge`: marked on the server, so every device of the
///   recipient sees it (an acknowledged notification is not shown as new again).
/// Withdrawn notifications are left out unless `?withdrawn=true`. Whose inbox it is comes from the token alone. Each
/// notification carries a `title` and `body` in the language `Accept-Language` asks for (`InboxWords`).
struct InboxRoutes: Sendable {
    let context: ServiceContext
    /// The languages notifications' titles and sentences are answered in (`Accept-Language`).
    let tips: TipCatalog

    struct Unread: Encodable, Sendable {
        let unread: Int
        let urgent: Int
    }

    struct Marked: Encodable, Sendable {
        let notificationId: UUID
        let readAt: Date
        let acknowledgedAt: Date?
    }

    static let withdrawnParameter = QueryParameter("withdrawn", "true: include notifications withdrawn because what they were about was retracted")
    static let listParameters =
        [
            withdrawnParameter,
            QueryParameter(
                "kind", "only notifications of this kind (bloodPressure, careTracking, examResultReady, uvIndex, airQuality, reminder, …); repeatable"
            ),
        ] + Period.queryParameters.map { QueryParameter($0.name, $0.description + "; of when the notification was created") }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/alerts", access: .patientData(.read), summary: "The patient's inbox, newest first",
            query: Self.listParameters, paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try await inbox(.init(id: patientID, role: .patient), request: request)
        }
        routes.get(
            "v1/inbox", access: .ownInbox, summary: "The caller's own inbox, newest first",
            query: Self.listParameters + [.init("unread", "true: only notifications not yet read")], paged: true
        ) { request, requestContext in
            try await inbox(try Self.recipient(requestContext), request: request)
        }
        routes.get(
            "v1/inbox/unread-count", access: .ownInbox, summary: "How many notifications of the caller's inbox stand unread, and how many are urgent"
        ) {
            _, requestContext in
            let (all, urgent) = try await NotificationStore(context).unread(
                try Self.recipient(requestContext))
            return try jsonResponse(Unread(unread: all, urgent: urgent))
        }
        registerPreferences(on: routes)
        for mark in [NotificationStore.Mark.read, .acknowledged] {
            let path = mark == .read ? "read" : "acknowledge"
            routes.post(
                "v1/inbox/:notificationId/\(path)", access: .ownInbox,
                summary: mark == .read
                    ? "Mark one of the caller's notifications read" : "Acknowledge one of the caller's notifications (and read it)",
                body: [], bodyLimit: APIRoutes.noBody
            ) { _, requestContext in
                let id = try requestContext.uuidParameter("notificationId", label: "notification id")
                guard
                    let marked = try await NotificationStore(context).mark(
                        id, mark, for: try Self.recipient(requestContext))
                else { throw HTTPProblem(status: .notFound, error: "no such notification") }
                return try jsonResponse(Marked(notificationId: id, readAt: marked.readAt, acknowledgedAt: marked.acknowledgedAt))
            }
        }
    }

    struct PreferencesBody: SchemaBody {
        static let schema: RequestSchema = .inboxPreferences
        let timeZone: String
        let quietHours: PreferenceStore.Preferences.Window?
    }

    /// `PUT` and `GET /v1/inbox/preferences`: the caller's time zone and quiet hours.
    func registerPreferences(on routes: APIRoutes) {
        routes.put("v1/inbox/preferences", access: .ownInbox, summary: "Set the caller's time zone and quiet hours", body: [PreferencesBody.schema]) {
            request, requestContext in
            let recipient = try Self.recipient(requestContext)
            let body = try await request.decode(as: PreferencesBody.self, context: requestContext)
            let zone = body.timeZone
            guard TimeZone(identifier: zone) != nil else {
                throw HTTPProblem.invalidBody([
                    SchemaViolation(pointer: JSONPointer(tokens: ["timeZone"]), message: "must be an IANA time zone, e.g. Europe/Lisbon")
                ])
            }
            let preferences = PreferenceStore.Preferences(timeZone: zone, quietHours: body.quietHours, updatedAt: Date())
            try await context.transaction(auditing: requestContext.origin, status: { 200 }) { handler in
                try await PreferenceStore(handler).save(recipient, preferences)
            }
            return try jsonResponse(preferences)
        }
        routes.get("v1/inbox/preferences", access: .ownInbox, summary: "The caller's time zone and quiet hours") { _, requestContext in
            let recipient = try Self.recipient(requestContext)
            guard let found = try await PreferenceStore(context).preferences(of: recipient) else {
                throw HTTPProblem(status: .notFound, error: "no preferences set")
            }
            return try jsonResponse(found)
        }
    }

    private func inbox(_ recipient: NotificationStore.Recipient, request: Request) async throws -> Response {
        let parameters = request.uri.queryParameters
        let kinds = parameters.getAll("kind").map { String($0) }
        let period = try Period.from(request)
        guard kinds.allSatisfy(Self.isKindWord) else {
            throw HTTPProblem(
                status: .badRequest, error: "the query is invalid",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["kind"]), message: "must be a notification kind: 1 to 40 letters")])
        }
        let query = NotificationStore.InboxQuery(
            includeWithdrawn: parameters.get("withdrawn") == "true", unreadOnly: parameters.get("unread") == "true", kinds: kinds, period: period)
        let page = try PageRequest.from(request)
        let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
        var response = try jsonResponse(
            try await NotificationStore(context).inbox(recipient, query: query, page: page).compactMap {
                $0.worded(texts)
            })
        response.headers[.contentLanguage] = texts.language
        return response
    }

    /// A notification kind is a word of letters; any such word is a kind to filter by (one no notification has
    /// lists nothing), anything else is refused.
    static func isKindWord(_ text: String) -> Bool {
        (1...40).contains(text.utf8.count) && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
    }

    /// The caller as a recipient: a patient or consultant by their subject, institution staff as their institution.
    /// With authentication disabled (development only) there is no caller: nobody's inbox.
    static func recipient(_ context: CaretideRequestContext) throws -> NotificationStore.Recipient {
        guard let identity = context.identity, let role = RecipientRole(rawValue: identity.role.rawValue) else {
            throw HTTPProblem(status: .forbidden, error: "only patients, consultants and institutions have an inbox")
        }
        if role == .institution {
            guard let institution = identity.institutionID else { throw HTTPProblem(status: .forbidden, error: "the token names no institution") }
            return .init(id: institution, role: .institution)
        }
        return .init(id: identity.subject, role: role)
    }
}
