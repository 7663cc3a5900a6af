import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// Messages between a patient and their care team, in threads (`ThreadStore`):
/// - `PUT /v1/patients/{patientId}/threads/{threadId}`: a new thread with one consultant, and its first message
/// - `PUT /v1/patients/{patientId}/threads/{threadId}/messages/{messageId}`: a reply
/// - `GET /v1/patients/{patientId}/threads[?unread=true]`: the patient's threads (a consultant sees theirs alone),
///   most recent first, each with the caller's unread count and whether it is still open
/// - `GET /v1/patients/{patientId}/threads/{threadId}/messages`: its messages, oldest first, each with its read receipt
/// - `POST /v1/patients/{patientId}/threads/{threadId}/read`: the other side's messages marked read
/// - `GET /v1/threads[?unread=true]`: the caller's own threads across patients (a consultant's list to work through)
/// The patient and consultants whose grant is in force; a thread whose consultant's grant has ended is kept, closed to
/// new messages. Each message tells the other side in their inbox (no text on `caretide.alerts`). Urgent words are not
/// looked for: every answer to a message says that messages are not for emergencies, as patient portals do.
struct ThreadRoutes: Sendable {
    let context: ServiceContext

    /// What every compose answer says, in the words patient portals use.
    static let notice =
        "Messages are not for emergencies and may not be read at once. If you need urgent help, call your local emergency number."

    struct Sent: Encodable, Sendable {
        let threadId: UUID
        let messageId: UUID
        /// created or duplicate.
        let status: String
        let notice: String
    }

    struct Read: Encodable, Sendable {
        let threadId: UUID
        let markedRead: Int
    }

    struct ThreadBody: SchemaBody {
        static let schema: RequestSchema = .careThread
        /// The consultant a patient writes to; a consultant starting a thread may leave it out.
        let consultantId: String?
        let subject: String
        let text: String
    }

    struct MessageBody: SchemaBody {
        static let schema: RequestSchema = .careMessage
        let text: String
    }

    func register(on routes: APIRoutes) {
        let base = "v1/patients/:patientId/threads"
        let unread = QueryParameter("unread", "true: only threads with messages from the other side not yet read")
        routes.put(
            "\(base)/:threadId", access: .patientData(.converse),
            summary: "Start a thread with one consultant of the patient's care team, with its first message (not for emergencies)",
            body: [ThreadBody.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let threadID = try requestContext.uuidParameter("threadId", label: "thread id")
            let sender = try Self.viewer(requestContext)
            let body = try await request.decode(as: ThreadBody.self, context: requestContext)
            let consultantID = try Self.consultant(named: body.consultantId, sender: sender)
            let (subject, text) = (body.subject, body.text)
            // The first message's id is made from the thread's, so the same request again is the same message.
            let messageID = UUID.named("care-thread/\(threadID.uuidString.lowercased())/first")
            let origin = requestContext.origin
            let stored = try await context.transaction(auditing: origin, status: Self.status) { handler in
                guard
                    try await CareTeamStore(handler).activeConsultants(patientID: patientID).contains(
                        consultantID)
                else { return Outcome.closed }
                let stored = try await ThreadStore(handler).start(
                    threadID: threadID, messageID: messageID, patientID: patientID, consultantID: consultantID, subject: subject, text: text,
                    sender: sender)
                if stored == .created {
                    try await Self.tell(
                        threadID: threadID, messageID: messageID, patientID: patientID, consultantID: consultantID, sender: sender,
                        traceID: origin.traceID, handler: handler)
                }
                return .stored(stored)
            }
            return try Self.answer(stored, threadID: threadID, messageID: messageID)
        }
        routes.put(
            "\(base)/:threadId/messages/:messageId", access: .patientData(.converse),
            summary: "Reply in a thread (not for emergencies); refused once the consultant's grant has ended", body: [MessageBody.schema]
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let threadID = try requestContext.uuidParameter("threadId", label: "thread id")
            let messageID = try requestContext.uuidParameter("messageId", label: "message id")
            let sender = try Self.viewer(requestContext)
            let text = try await request.decode(as: MessageBody.self, context: requestContext).text
            let origin = requestContext.origin
            let stored = try await context.transaction(auditing: origin, status: Self.status) { handler in
                let store = ThreadStore(handler)
                guard let thread = try await store.thread(threadID, patientID: patientID, viewer: sender) else { return Outcome.notFound }
                guard thread.open else { return .closed }
                let stored = try await store.add(messageID: messageID, threadID: threadID, text: text, sender: sender)
                if stored == .created {
                    try await Self.tell(
                        threadID: threadID, messageID: messageID, patientID: patientID, consultantID: thread.consultantId, sender: sender,
                        traceID: origin.traceID, handler: handler)
                }
                return .stored(stored)
            }
            return try Self.answer(stored, threadID: threadID, messageID: messageID)
        }
        routes.get(
            base, access: .patientData(.converse),
            summary: "The patient's threads with the care team (a consultant sees theirs), most recent first, with unread counts",
            query: [unread], paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            return try jsonResponse(
                try await ThreadStore(context).threads(
                    patientID: patientID, viewer: try Self.viewer(requestContext), unreadOnly: request.uri.queryParameters.get("unread") == "true",
                    page: .from(request)))
        }
        routes.get(
            "v1/threads", access: .ownInbox,
            summary: "The caller's own threads across patients (a consultant's), most recent first, with unread counts", query: [unread],
            paged: true
        ) { request, requestContext in
            // An institution's shared inbox takes part in no conversation: its list is empty.
            if requestContext.identity?.role == .institution {
                return try jsonResponse(
                    Page(rows: [ThreadStore.Thread](), request: try .from(request), cursor: { .init(date: $0.lastMessageAt, id: $0.threadId) }))
            }
            return try jsonResponse(
                try await ThreadStore(context).threads(
                    patientID: nil, viewer: try Self.viewer(requestContext), unreadOnly: request.uri.queryParameters.get("unread") == "true",
                    page: .from(request)))
        }
        routes.get(
            "\(base)/:threadId/messages", access: .patientData(.converse),
            summary: "A thread's messages, oldest first, each with its read receipt", paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let threadID = try requestContext.uuidParameter("threadId", label: "thread id")
            let viewer = try Self.viewer(requestContext)
            let page = try PageRequest.from(request)
            guard try await ThreadStore(context).isVisible(threadID, patientID: patientID, viewer: viewer)
            else { throw HTTPProblem(status: .notFound, error: "no such thread") }
            return try jsonResponse(try await ThreadStore(context).messages(threadID, page: page))
        }
        routes.post(
            "\(base)/:threadId/read", access: .patientData(.converse),
            summary: "Mark the other side's messages in a thread read (their read receipts)", body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let threadID = try requestContext.uuidParameter("threadId", label: "thread id")
            let viewer = try Self.viewer(requestContext)
            let marked = try await context.transaction(auditing: requestContext.origin, status: { $0 == nil ? 404 : 200 }) { handler in
                let store = ThreadStore(handler)
                guard try await store.thread(threadID, patientID: patientID, viewer: viewer) != nil else { return Int?.none }
                return try await store.markRead(threadID, by: viewer)
            }
            guard let marked else { throw HTTPProblem(status: .notFound, error: "no such thread") }
            return try jsonResponse(Read(threadId: threadID, markedRead: marked))
        }
    }

    enum Outcome: Sendable {
        case stored(ThreadStore.Stored)
        case notFound
        /// No grant in force between the patient and the consultant.
        case closed
    }

    static func status(_ outcome: Outcome) -> Int {
        switch outcome {
        case .stored(.created): 201
        case .stored(.duplicate): 200
        case .stored(.idTaken): 409
        case .notFound: 404
        case .closed: 409
        }
    }

    static func answer(_ outcome: Outcome, threadID: UUID, messageID: UUID) throws -> Response {
        switch outcome {
        case .stored(.created):
            return try jsonResponse(Sent(threadId: threadID, messageId: messageID, status: "created", notice: notice), status: .created)
        case .stored(.duplicate):
            return try jsonResponse(Sent(threadId: threadID, messageId: messageID, status: "duplicate", notice: notice))
        case .stored(.idTaken):
            throw HTTPProblem(status: .conflict, error: "the id is already taken by another message or thread")
        case .notFound:
            throw HTTPProblem(status: .notFound, error: "no such thread")
        case .closed:
            throw HTTPProblem(
                status: .conflict, error: "the thread is closed: the consultant is not in the patient's care team (no grant in force)")
        }
    }

    /// The caller as a side of a conversation: a patient or a consultant.
    static func viewer(_ context: CaretideRequestContext) throws -> ThreadStore.Viewer {
        switch context.identity?.role {
        case .patient?: return .init(side: .patient, id: context.identity!.subject)
        case .consultant?: return .init(side: .consultant, id: context.identity!.subject)
        default: throw HTTPProblem(status: .forbidden, error: "only patients and consultants take part in threads")
        }
    }

    /// The thread's consultant: the one the patient names, or the consultant starting it (who may not name another).
    static func consultant(named: String?, sender: ThreadStore.Viewer) throws -> String {
        switch sender.side {
        case .patient:
            guard let named else {
                throw HTTPProblem.invalidBody([SchemaViolation(pointer: JSONPointer(tokens: ["consultantId"]), message: "is required from a patient")]
                )
            }
            return named
        case .consultant:
            guard named == nil || named == sender.id else {
                throw HTTPProblem.invalidBody([
                    SchemaViolation(pointer: JSONPointer(tokens: ["consultantId"]), message: "must be the caller's own id, or left out")
                ])
            }
            return sender.id
        }
    }

    /// The other side hears of the message in their inbox (and on `caretide.alerts`, without its text).
    static func tell(
        threadID: UUID, messageID: UUID, patientID: String, consultantID: String, sender: ThreadStore.Viewer, traceID: String,
        handler: HandlerContext
    ) async throws {
        let row = messageNotice(
            threadID: threadID, messageID: messageID, patientID: patientID, consultantID: consultantID, sender: sender, now: Date())
        try await NotificationDelivery.deliver([row], traceID: traceID, context: handler)
    }

    /// The notification `tell` delivers, apart from the database so it can be checked alone: for the side that did not
    /// send, caused by the message, about the thread, grouped under the sender, and without the message's text.
    static func messageNotice(
        threadID: UUID, messageID: UUID, patientID: String, consultantID: String, sender: ThreadStore.Viewer, now: Date
    ) -> NotificationStore.Row {
        let toPatient = sender.side == .consultant
        return NotificationStore.Row(
            .message(fromConsultant: toPatient), severity: .normal, source: messageID, about: threadID,
            to: toPatient ? .init(id: patientID, role: .patient) : .init(id: consultantID, role: .consultant), patientID: patientID, raisedAt: now,
            subjectID: sender.id)
    }
}
