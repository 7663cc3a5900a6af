import AsyncHTTPClient
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle

/// Sends queued report e-mails through the operator's relay: takes the due ones with a lease (so replicas share them
/// and one that dies mid-send leaves its e-mails to be sent again once the lease ends), hands each to the relay
/// outside any transaction, and records what followed (`MailRetryPolicy`). Delivery is at least once: an e-mail the
/// relay accepted just before its sender died is sent again, with the same Message-ID.
///
/// The e-mail says that a report is waiting and links to it; by default it carries no clinical value, no name and no
/// free text, and the recipient opens the report only by signing in as a member of the patient's care team. An
/// operator may choose to attach the report's PDF (`MAIL_ATTACH_REPORT_PDF`): it is then read from scoring-service
/// with the deployment's service token, a read the patient's access log shows like any other.
struct ReportMailer: Service {
    let context: ServiceContext
    let settings: MailSettings
    let interval: Duration

    /// E-mails taken per round; they are sent one after another (a relay throttles a burst anyway).
    static let batch = 20
    /// Longer than a round's sends (each bounded by the client's timeout).
    static let lease: Duration = .seconds(30 * 60)

    func run() async throws {
        // The PDF takes up to the printer's 30 s, so its read waits a little longer.
        try await withDeliveryHTTPClient(readTimeout: .seconds(45), logger: context.logger) { client in
            try await PeriodicJob(name: "report e-mail", interval: interval, fullBatch: Self.batch, context: context) {
                try await round(client: client)
            }.run()
        }
    }

    typealias Taken = ReportMailStore.Taken

    func round(client http: HTTPClient) async throws -> Int {
        let taken = try await ReportMailStore(context).takeDue(limit: Self.batch, lease: Self.lease)
        let client = SMTPClient(relay: settings.relay)
        for email in taken {
            let failure: MailFailure?
            do {
                var message = try message(for: email)
                if email.attachPdf, let attachment = settings.attachment {
                    message.attachment = MailMessage.Attachment(
                        filename: "report.pdf", contentType: "application/pdf", data: try await Self.report(of: email, from: attachment, client: http)
                    )
                }
                try await client.send(message)
                failure = nil
            } catch let error as MailFailure {
                failure = error
            } catch {
                // A recipient that no longer makes a valid message, or a relay CA that no longer loads.
                failure = .refused("the message could not be made or the relay's TLS could not be set up")
            }
            try await record(email, failure: failure, next: settings.retry.next(after: failure, attempt: email.attempt))
        }
        return taken.count
    }

    /// The notice: the patient's subject and message if they wrote them, the period, and a link: to the outside share's
    /// page (opened with the code the patient gives apart), or to the report behind a care-team sign-in. Nothing
    /// clinical.
    func message(for email: Taken) throws -> MailMessage {
        guard let recipient = MailAddress(email.recipient) else { throw MailFailure.refused("the recipient's address is not valid") }
        let from = Timestamp.formatDay(email.from)
        let to = Timestamp.formatDay(email.to.addingTimeInterval(-1))
        // Patient ids are path-safe already; escaping keeps a hostile one from bending the link.
        let patient = email.patientID.addingPercentEncoding(withAllowedCharacters: .urlUnreservedCharacters) ?? email.patientID
        let opening: String
        if let share = email.shareID {
            opening = """
                To read it, open this page in any browser; no account is needed:
                \(settings.linkBase)/v1/outside-shares/\(share.uuidString.lowercased())

                The page asks your name and an access code, which the patient gives you separately (not in this e-mail). \
                The patient sees when the report is opened and by whom.
                """
        } else {
            opening = """
                To read it, open this link and sign in to Caretide as a member of the patient's care team:
                \(settings.linkBase)/v1/patients/\(patient)/report?from=\(from)&to=\(to)
                """
        }
        let words = email.message.map { "\($0)\n\n---\n\n" } ?? ""
        let body = """
            \(words)Hello,

            A patient who uses Caretide has sent you their health report\(email.shareID == nil ? " for \(from) to \(to)" : "").

            \(opening)

            \(email.attachPdf && settings.attachment != nil ? "The report is attached as a PDF." : "This e-mail holds no health information.") \
            If you did not expect it, you can ignore it.

            Reference: \(email.emailID.uuidString.lowercased())
            """
        return try MailMessage(
            from: settings.sender, to: recipient, subject: email.subject ?? "A patient has shared a health report with you", body: body, date: Date(),
            messageID: "<report-email.\(email.emailID.uuidString.lowercased())@caretide>")
    }

    /// The report's PDF for the e-mail's patient and period, read from scoring-service as the deployment's service. A
    /// refusal (4xx: a token without `patients:read`, an unknown patient) fails the e-mail; no answer or a 5xx (the
    /// printer busy or down) is tried again with the e-mail.
    static func report(of email: Taken, from source: MailSettings.ReportAttachment, client: HTTPClient) async throws -> Data {
        guard let token = try? String(contentsOfFile: source.tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !token.isEmpty
        else { throw MailFailure.refused("the service token file cannot be read") }
        let patient = email.patientID.addingPercentEncoding(withAllowedCharacters: .urlUnreservedCharacters) ?? email.patientID
        let period = "from=\(Timestamp.format(email.from))&to=\(Timestamp.format(email.to))"
        var request = HTTPClientRequest(url: "\(source.reportServiceURL)/v1/patients/\(patient)/report.pdf?\(period)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/pdf")
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .seconds(60))
            body = try await response.body.collect(upTo: maximumReportBytes)
        } catch is NIOTooManyBytesError {
            // The same report is as large next time: failed now, with the reason, rather than retried for hours.
            throw MailFailure.refused("the report's PDF is larger than \(maximumReportBytes / 1024 / 1024) MB, too large to mail")
        } catch {
            throw MailFailure.unreachable("the report service did not answer")
        }
        switch response.status.code {
        case 200: return Data(body.readableBytesView)
        case 400..<500: throw MailFailure.refused("the report service refused the report: \(response.status.code)")
        default: throw MailFailure.unreachable("the report service answered \(response.status.code)")
        }
    }

    /// A report's PDF larger than this is not mailed (relays commonly refuse messages over 10–25 MB).
    static let maximumReportBytes = 8 * 1024 * 1024

    func record(_ email: Taken, failure: MailFailure?, next: MailRetryPolicy.Next) async throws {
        let status: String
        var delay = 0.0
        switch next {
        case .sent: status = "sent"
        case .retry(let after):
            status = "queued"
            delay = after.seconds
        case .failed: status = "failed"
        }
        context.metrics.reportEmailAttempt(outcome: status == "queued" ? "retry" : status)
        if next == .failed {
            // Ids only: the address is the doctor's personal data.
            context.logger.warning(
                "report e-mail given up",
                metadata: [LogKey.emailID: "\(email.emailID)", LogKey.attempts: "\(email.attempt)", LogKey.reason: "\(failure?.description ?? "")"])
        }
        try await ReportMailStore(context).record(email.emailID, status: status, delay: delay, error: failure?.description)
    }
}
