import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of conversations with the care team: a thread between a patient and one consultant, its messages in the
/// order sent, each read (a receipt) when the other side marked the thread read. Every read names the patient, and a
/// consultant's reads their own id too, so nobody reaches a thread that is not theirs by its id alone.
struct ThreadStore: ServiceStore {
    let session: StoreSession

    /// Who takes part: the patient, or one consultant.
    enum Side: String, Codable, Sendable {
        case patient, consultant
    }

    /// Whose view of the threads: a patient sees all of theirs, a consultant those with them.
    struct Viewer: Sendable {
        let side: Side
        let id: String

        /// The consultant a view is limited to, if any.
        var consultantID: String? { side == .consultant ? id : nil }
    }

    struct Thread: Encodable, Sendable {
        let threadId: UUID
        let patientId: String
        let consultantId: String
        let subject: String
        let startedBy: Side
        let startedAt: Date
        let lastMessageAt: Date
        /// Messages from the other side the viewer has not marked read.
        let unread: Int
        /// False once the consultant's grant has ended: the thread is kept, and takes no new message.
        var open: Bool
    }

    struct Message: Encodable, Sendable {
        let messageId: UUID
        let from: Side
        let senderId: String
        let text: String
        let sentAt: Date
        /// When the other side marked it read (a read receipt); absent until then.
        let readAt: Date?
    }

    enum Stored: Sendable, Equatable {
        case created
        /// The same id with the same thread, sender and text again: nothing new.
        case duplicate
        /// The id names another message, or another patient's thread.
        case idTaken
    }

    /// A new thread with its first message.
    func start(
        threadID: UUID, messageID: UUID, patientID: String, consultantID: String, subject: String, text: String, sender: Viewer
    ) async throws -> Stored {
        let inserted = try await session.fetchAll(
            """
            INSERT INTO care_threads (thread_id, patient_id, consultant_id, subject, started_by)
            VALUES (\(threadID), \(patientID), \(consultantID), \(subject), \(sender.side.rawValue))
            ON CONFLICT (thread_id) DO NOTHING RETURNING 1
            """, as: Int.self)
        guard !inserted.isEmpty else {
            let same = try await session.fetchAll(
                """
                SELECT 1 FROM care_threads t JOIN care_messages m ON m.message_id = \(messageID) AND m.thread_id = t.thread_id
                WHERE t.thread_id = \(threadID) AND t.patient_id = \(patientID) AND t.consultant_id = \(consultantID)
                  AND t.subject = \(subject) AND m.text = \(text)
                """, as: Int.self)
            return same.isEmpty ? .idTaken : .duplicate
        }
        return try await add(messageID: messageID, threadID: threadID, text: text, sender: sender)
    }

    /// A message in a thread already found to be the sender's.
    func add(messageID: UUID, threadID: UUID, text: String, sender: Viewer) async throws -> Stored {
        let inserted = try await session.fetchAll(
            """
            INSERT INTO care_messages (message_id, thread_id, sender_role, sender_id, text)
            VALUES (\(messageID), \(threadID), \(sender.side.rawValue), \(sender.id), \(text))
            ON CONFLICT (message_id) DO NOTHING RETURNING sent_at
            """, as: Date.self)
        guard let sentAt = inserted.first else {
            let same = try await session.fetchAll(
                """
                SELECT 1 FROM care_messages WHERE message_id = \(messageID) AND thread_id = \(threadID) AND sender_id = \(sender.id) AND text = \(text)
                """, as: Int.self)
            return same.isEmpty ? .idTaken : .duplicate
        }
        try await session.query("UPDATE care_threads SET last_message_at = \(sentAt) WHERE thread_id = \(threadID)")
        return .created
    }

    /// The thread, if it is the patient's and the viewer takes part in it (locked for the rest of the transaction).
    func thread(_ threadID: UUID, patientID: String, viewer: Viewer) async throws -> Thread? {
        try await session.fetchAll(
            Self.threads(patientID: patientID, viewer: viewer, threadID: threadID, after: nil, unreadOnly: false, limit: 1, lock: true),
            as: Self.Row.self
        ).first.map(Self.thread)
    }

    /// Whether the thread is the patient's and the viewer takes part in it (a read: nothing locked).
    func isVisible(_ threadID: UUID, patientID: String, viewer: Viewer) async throws -> Bool {
        try await !session.fetchAll(
            Self.threads(patientID: patientID, viewer: viewer, threadID: threadID, after: nil, unreadOnly: false, limit: 1, lock: false), as: Row.self
        ).isEmpty
    }

    /// Marks the other side's messages in the thread read now; answers how many were newly read.
    func markRead(_ threadID: UUID, by viewer: Viewer) async throws -> Int {
        try await session.fetchAll(
            """
            UPDATE care_messages SET read_at = now()
            WHERE thread_id = \(threadID) AND sender_role <> \(viewer.side.rawValue) AND read_at IS NULL RETURNING 1
            """, as: Int.self
        ).count
    }

    /// A page of threads, most recent activity first: the patient's (`patientID`), or every patient's of the viewer
    /// (`patientID` nil, the viewer's own list).
    func threads(
        patientID: String?, viewer: Viewer, unreadOnly: Bool, page: PageRequest
    ) async throws -> Page<Thread> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            Self.threads(
                patientID: patientID, viewer: viewer, threadID: nil, after: after, unreadOnly: unreadOnly, limit: page.limit + 1, lock: false),
            as: Row.self)
        return Page(rows: rows, request: page, cursor: { .init(date: $0.6, id: $0.0) }, item: Self.thread)
    }

    /// A page of a thread's messages, oldest first.
    func messages(_ threadID: UUID, page: PageRequest) async throws -> Page<Message> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT message_id, sender_role, sender_id, text, sent_at, read_at FROM care_messages
            WHERE thread_id = \(threadID) AND (sent_at, message_id) > (\(after?.0 ?? .distantPast), \(after?.1 ?? Self.zero))
            ORDER BY sent_at, message_id LIMIT \(page.limit + 1)
            """, as: (UUID, String, String, String, Date, Date?).self)
        return Page(rows: rows, request: page, cursor: { .init(date: $0.4, id: $0.0) }) { row in
            Message(messageId: row.0, from: Side(rawValue: row.1) ?? .patient, senderId: row.2, text: row.3, sentAt: row.4, readAt: row.5)
        }
    }

    private typealias Row = (UUID, String, String, String, String, Date, Date, Int, Bool)
    private static let zero = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!

    /// Threads with the viewer's unread count and whether the consultant's grant is in force.
    private static func threads(
        patientID: String?, viewer: Viewer, threadID: UUID?, after: (Date, UUID)?, unreadOnly: Bool, limit: Int, lock: Bool
    ) -> PostgresQuery {
        let maximum = Date(timeIntervalSince1970: 253_402_300_799)  // 9999-12-31: the first page starts after every row
        return """
            SELECT t.thread_id, t.patient_id, t.consultant_id, t.subject, t.started_by, t.started_at, t.last_message_at, u.unread,
                   grant_in_force(t.patient_id, t.consultant_id)
            FROM care_threads t
            CROSS JOIN LATERAL (SELECT count(*)::int AS unread FROM care_messages m
                                WHERE m.thread_id = t.thread_id AND m.sender_role <> \(viewer.side.rawValue) AND m.read_at IS NULL) u
            WHERE (\(patientID)::text IS NULL OR t.patient_id = \(patientID))
              AND (\(viewer.side.rawValue) <> 'patient' OR t.patient_id = \(viewer.id))
              AND (\(viewer.consultantID)::text IS NULL OR t.consultant_id = \(viewer.consultantID))
              AND (\(threadID)::uuid IS NULL OR t.thread_id = \(threadID))
              AND (t.last_message_at, t.thread_id) < (\(after?.0 ?? maximum), \(after?.1 ?? Self.zero))
              AND (NOT \(unreadOnly) OR u.unread > 0)
            ORDER BY t.last_message_at DESC, t.thread_id DESC LIMIT \(limit)
            \(unescaped: lock ? "FOR UPDATE OF t" : "")
            """
    }

    private static func thread(_ row: Row) -> Thread {
        Thread(
            threadId: row.0, patientId: row.1, consultantId: row.2, subject: row.3, startedBy: Side(rawValue: row.4) ?? .patient, startedAt: row.5,
            lastMessageAt: row.6, unread: row.7, open: row.8)
    }
}
