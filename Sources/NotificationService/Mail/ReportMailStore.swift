import CaretideRuntime
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of the report e-mail: `doctor_contacts` (each patient's doctor's address, PHI kept here only) and
/// `report_emails` (one row per e-mail asked for, its delivery status and attempts).
struct ReportMailStore: ServiceStore {
    let session: StoreSession

    func setDoctorContact(patientID: String, email: MailAddress) async throws {
        try await session.query(
            """
            INSERT INTO doctor_contacts (patient_id, email, updated_at) VALUES (\(patientID), \(email.description), now())
            ON CONFLICT (patient_id) DO UPDATE SET email = excluded.email, updated_at = excluded.updated_at
            """)
    }

    /// Whether there was an address to forget.
    func removeDoctorContact(patientID: String) async throws -> Bool {
        try await !session.fetchAll(
            "DELETE FROM doctor_contacts WHERE patient_id = \(patientID) RETURNING 1", as: Int.self
        ).isEmpty
    }

    /// Queues an e-mail to the patient's doctor; nil when the patient has kept no address.
    /// What the patient wrote and chose for one e-mail.
    struct Wording: Sendable {
        var recipient: MailAddress?
        var subject: String?
        var message: String?
        var shareID: UUID?
        var attachPdf = false
    }

    /// Queues an e-mail to `wording.recipient`, or else to the doctor's kept address; nil when there is neither.
    func queue(_ id: UUID, patientID: String, period: Period, wording: Wording = Wording()) async throws -> ReportEmail? {
        try await session.fetchAll(
            """
            INSERT INTO report_emails (email_id, patient_id, recipient, period_from, period_to, subject, message, share_id, attach_pdf)
            SELECT \(id), \(patientID), r.email, \(period.start), \(period.end), \(wording.subject), \(wording.message), \(wording.shareID),
                   \(wording.attachPdf)
            FROM (SELECT \(wording.recipient?.description) AS email WHERE \(wording.recipient != nil)
                  UNION ALL SELECT email FROM doctor_contacts WHERE patient_id = \(patientID) AND \(wording.recipient == nil)) r
            RETURNING \(unescaped: ReportEmail.columns)
            """, as: ReportEmail.Row.self
        ).first.map(ReportEmail.init)
    }

    struct DoctorContact: Encodable, Sendable {
        let email: String
        let updatedAt: Date
    }

    func doctorContact(patientID: String) async throws -> DoctorContact? {
        try await session.fetchAll(
            "SELECT email, updated_at FROM doctor_contacts WHERE patient_id = \(patientID)", as: (String, Date).self
        ).first.map { DoctorContact(email: $0.0, updatedAt: $0.1) }
    }

    func email(_ id: UUID, patientID: String) async throws -> ReportEmail? {
        try await session.fetchAll(
            "SELECT \(unescaped: ReportEmail.columns) FROM report_emails WHERE email_id = \(id) AND patient_id = \(patientID)",
            as: ReportEmail.Row.self
        ).first.map(ReportEmail.init)
    }

    /// A page of the patient's report e-mails, newest first.
    func emails(patientID: String, page: PageRequest) async throws -> Page<ReportEmail> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT \(unescaped: ReportEmail.columns) FROM report_emails
            WHERE patient_id = \(patientID) AND (\(after == nil) OR (created_at, email_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY created_at DESC, email_id DESC LIMIT \(page.limit + 1)
            """, as: ReportEmail.Row.self)
        return Page(rows: rows.map(ReportEmail.init), request: page) { .init(date: $0.createdAt, id: $0.emailId) }
    }

    /// A queued e-mail taken for sending.
    struct Taken: Sendable {
        let emailID: UUID
        let patientID: String
        let recipient: String
        let from: Date
        let to: Date
        let attempt: Int
        var subject: String? = nil
        var message: String? = nil
        var shareID: UUID? = nil
        var attachPdf = false
    }

    /// Takes up to `limit` due e-mails for `lease` (`ReportMailer`): each counts an attempt and waits out the lease
    /// before another round (or replica) may take it again.
    func takeDue(limit: Int, lease: Duration) async throws -> [Taken] {
        try await session.fetchAll(
            """
            UPDATE report_emails SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => \(lease.seconds))
            WHERE email_id IN (SELECT email_id FROM report_emails WHERE status = 'queued' AND next_attempt_at <= now()
                               ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING email_id, patient_id, recipient, period_from, period_to, attempts, subject, message, share_id, attach_pdf
            """, as: (UUID, String, String, Date, Date, Int, String?, String?, UUID?, Bool).self
        ).map {
            Taken(
                emailID: $0.0, patientID: $0.1, recipient: $0.2, from: $0.3, to: $0.4, attempt: $0.5, subject: $0.6, message: $0.7, shareID: $0.8,
                attachPdf: $0.9)
        }
    }

    /// What an attempt left: `sent`, `failed`, or `queued` again after `delay` seconds.
    func record(_ id: UUID, status: String, delay: Double, error: String?) async throws {
        try await session.query(
            """
            UPDATE report_emails SET status = \(status), next_attempt_at = now() + make_interval(secs => \(delay)),
                   last_error = \(error), finished_at = CASE WHEN \(status) = 'queued' THEN NULL ELSE now() END
            WHERE email_id = \(id) AND status = 'queued'
            """)
    }
}

/// A report e-mail as the patient reads it: to whom, for which period, and how its delivery stands.
struct ReportEmail: Encodable, Sendable {
    enum Status: String, Encodable, Sendable {
        /// Waiting for its first attempt.
        case queued
        /// An attempt failed for a reason that may pass; `nextAttemptAt` says when it is tried again.
        case retrying
        /// The relay accepted it.
        case sent
        /// Given up: the relay refused it, or every attempt failed; `lastError` says why.
        case failed
    }

    let emailId: UUID
    let recipient: String
    let from: Date
    let to: Date
    let status: Status
    let attempts: Int
    let nextAttemptAt: Date?
    let lastError: String?
    let createdAt: Date
    let finishedAt: Date?

    static let columns =
        "email_id, recipient, period_from, period_to, status, attempts, next_attempt_at, last_error, created_at, finished_at"
    typealias Row = (UUID, String, Date, Date, String, Int, Date, String?, Date, Date?)

    init(_ row: Row) {
        emailId = row.0
        recipient = row.1
        from = row.2
        to = row.3
        // Stored as queued, sent or failed; a queued e-mail already tried is retrying.
        let stored = Status(rawValue: row.4) ?? .queued
        status = stored == .queued && row.5 > 0 ? .retrying : stored
        attempts = row.5
        nextAttemptAt = stored == .queued ? row.6 : nil
        lastError = row.7
        createdAt = row.8
        finishedAt = row.9
    }
}
