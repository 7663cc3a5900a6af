import CaretideIdentity
import CaretideLocalStack
import CaretideRuntime
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// Sending a report to the doctor: a signed, expiring link in a consultant's inbox that only that consultant opens
/// while the grant is in force, and an e-mail through a real SMTP relay (Debian's Exim) that carries no clinical value.
@Suite(.serialized, .stoppingStacks) struct ReportSharingTests {
    static let secret = "a-share-key-for-the-tests-only-0123456789"
    static let key = ShareKey(secret: secret)!

    static func stack(mail: MailSettings? = nil) async throws -> TestStack {
        try await TestStack.start([
            IngestService.definition, ScoringService.definition(tips: TipCatalog(), printer: PDFPrinter(browser: nil), shareKey: key),
            NotificationService.definition(mail: mail, shareKey: key),
        ])
    }

    @Test("a shared report opens for its consultant alone, until the link expires or the grant is revoked; every view is audited")
    func shareWithConsultant() async throws {
        let stack = try await Self.stack()
        let ingest = stack.baseURL(IngestService.name)
        let scoring = stack.baseURL(ScoringService.name)
        let notification = stack.baseURL(NotificationService.name)
        let drLee = Caller.identity(Identity(subject: "dr-lee", role: .consultant))
        let drKim = Caller.identity(Identity(subject: "dr-kim", role: .consultant))
        let reading = #"{"measurementId": "\#(UUID())", "systolic": 187, "diastolic": 112, "takenAt": "2026-10-05T07:30:00Z"}"#
        #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-share/measurements/blood-pressure", json: reading).status == 201)
        for doctor in ["dr-lee", "dr-kim"] {
            #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-share/care-team/\(doctor)", json: "{}").status == 200)
        }
        // scoring serves the link: it has the grant and has assessed the reading before the link is made.
        try await eventually("scoring shows dr-lee the reading") {
            let reply = try await HTTP.get("\(scoring)/v1/patients/p-share/assessments", as: drLee)
            return try reply.status == 200 && reply.items().count == 1
        }
        let shares = "\(notification)/v1/patients/p-share/report-shares"
        // Only the care team: a consultant without a grant is named as the problem.
        let stranger = try await HTTP.post(shares, json: #"{"consultantId": "dr-nobody"}"#)
        #expect(stranger.status == 422 && stranger.text.contains("/consultantId"))
        // The consultant cannot share the patient's report on the patient's behalf.
        #expect(try await HTTP.post(shares, json: #"{"consultantId": "dr-kim"}"#, as: drLee).status == 403)
        var receipt: [String: Any] = [:]
        try await eventually("the grant reaches notification-service") {
            let reply = try await HTTP.post(shares, json: #"{"consultantId": "dr-lee", "from": "2026-10-01", "to": "2026-10-31"}"#)
            receipt = (try? reply.json() as? [String: Any]) ?? [:]
            return reply.status == 201
        }
        #expect(receipt["from"] as? String == "2026-10-01T00:00:00.000Z" && receipt["to"] as? String == "2026-11-01T00:00:00.000Z")

        // The link is in dr-lee's inbox, and only there.
        let inbox = try await HTTP.get("\(notification)/v1/inbox", as: drLee).items()
        let shared = try #require(inbox.first { $0["kind"] as? String == "reportShared" })
        let link = try #require(shared["link"] as? String)
        #expect(shared["patientId"] as? String == "p-share" && link.hasPrefix("/v1/patients/p-share/shared-reports/"))
        #expect(try await HTTP.get("\(notification)/v1/inbox", as: drKim).items().allSatisfy { $0["kind"] as? String != "reportShared" })

        // dr-lee opens it: the report for the shared period, as a page that runs nothing.
        let opened = try await HTTP.get(scoring + link, as: drLee)
        #expect(opened.status == 200 && opened.text.contains("187/112 mmHg"))
        #expect(opened.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true && opened.header("Cache-Control") == "no-store")
        // Nobody else opens it: another consultant of the care team, the patient, an altered link.
        #expect(try await HTTP.get(scoring + link, as: drKim).status == 403)
        #expect(try await HTTP.get(scoring + link, as: .identity(Identity(subject: "p-share", role: .patient))).status == 403)
        let stretched = link.replacingOccurrences(of: "&to=", with: "&to=1")
        #expect(try await HTTP.get(scoring + stretched, as: drLee).status == 403)
        let otherPatient = link.replacingOccurrences(of: "/p-share/", with: "/p-other/")
        #expect(try await HTTP.get(scoring + otherPatient, as: .identity(Identity(subject: "dr-lee", role: .consultant))).status == 403)
        let forged = String(link.dropLast(2)) + (link.hasSuffix("AA") ? "BB" : "AA")
        #expect(try await HTTP.get(scoring + forged, as: drLee).status == 403)
        let unsigned = link.components(separatedBy: "&signature=")[0]
        #expect(try await HTTP.get(scoring + unsigned, as: drLee).status == 403)
        // A link past its expiry, signed with the right key, says it expired.
        let expired = ReportShareLink(
            patientID: "p-share", shareID: UUID(), consultantID: "dr-lee", from: Date(timeIntervalSinceNow: -86_400 * 30),
            to: Date(timeIntervalSinceNow: -86_400), expiresAt: Date(timeIntervalSinceNow: -60))
        #expect(try await HTTP.get(scoring + expired.relativeURL(signedWith: Self.key), as: drLee).status == 410)

        // Every view is in the patient's access log, with who looked.
        let log = try await HTTP.get("\(scoring)/v1/patients/p-share/access-log?limit=100").items()
        let views = log.filter { $0["operation"] as? String == "GET /v1/patients/:patientId/shared-reports/:shareId" }
        #expect(views.contains { $0["subject"] as? String == "dr-lee" && $0["outcome"] as? String == "allowed" })
        #expect(views.contains { $0["subject"] as? String == "dr-kim" })

        // Revoking the grant revokes the link.
        #expect(try await HTTP.send(method: "DELETE", "\(ingest)/v1/patients/p-share/care-team/dr-lee").status == 204)
        try await eventually("the revocation reaches scoring-service") {
            try await HTTP.get(scoring + link, as: drLee).status == 403
        }
        try await stack.shutdown()
    }

    @Test("the report e-mail goes through the relay over STARTTLS with AUTH, says no clinical value, and reports its delivery")
    func emailToDoctor() async throws {
        try await SMTPServer.withRelay { relay in
            let settings = try #require(
                try MailSettings.configured(
                    [
                        "SMTP_HOST": "127.0.0.1", "SMTP_PORT": "\(relay.port)", "SMTP_SECURITY": "starttls", "SMTP_USERNAME": SMTPServer.username,
                        "SMTP_PASSWORD": SMTPServer.password, "SMTP_CA_FILE": relay.certificate, "MAIL_FROM": "reports@caretide.test",
                        "MAIL_LINK_BASE_URL": "https://caretide.example.org",
                    ], retry: MailRetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(200), maximumDelay: .milliseconds(200))))
            let stack = try await Self.stack(mail: settings)
            let ingest = stack.baseURL(IngestService.name)
            let notification = stack.baseURL(NotificationService.name)
            let reading = #"{"measurementId": "\#(UUID())", "systolic": 187, "diastolic": 112, "takenAt": "2026-10-05T07:30:00Z"}"#
            #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-mail/measurements/blood-pressure", json: reading).status == 201)
            let contact = "\(notification)/v1/patients/p-mail/doctor-contact"
            let emails = "\(notification)/v1/patients/p-mail/report-emails"

            // No address yet: nothing to send to.
            #expect(try await HTTP.post(emails, json: "{}").status == 409)
            // An address with a line break (a header injection) or without a domain is refused, naming the field.
            for hostile in [
                #"dr@clinic.example.org\r\nBcc: all@example.org"#, "dr@clinic.example.org\\nX-Evil: 1", "dr-at-clinic", "dr <x>@clinic.org",
            ] {
                let refused = try await HTTP.send(method: "PUT", contact, json: #"{"email": "\#(hostile)"}"#)
                #expect(refused.status == 400 && refused.text.contains("/email"), "\(hostile): \(refused.status)")
            }
            #expect(try await HTTP.send(method: "PUT", contact, json: #"{"email": "dr.lee@clinic.example.org"}"#).status == 200)
            #expect(try await HTTP.get(contact).json() as? [String: Any] != nil)
            #expect(try await HTTP.get(contact, as: .identity(Identity(subject: "dr-lee", role: .consultant))).status == 403)

            let queued = try await HTTP.post(emails, json: #"{"from": "2026-10-01", "to": "2026-10-31"}"#)
            #expect(queued.status == 202)
            let emailID = try #require((try queued.json() as? [String: Any])?["emailId"] as? String)
            try await eventually("the relay accepts the e-mail") {
                (try await HTTP.get("\(emails)/\(emailID)").json() as? [String: Any])?["status"] as? String == "sent"
            }
            try await eventually("the relay delivers it to the maildir") { relay.messages().count == 1 }
            let message = try #require(relay.messages().first)
            #expect(message.contains("From: reports@caretide.test") && message.contains("To: dr.lee@clinic.example.org"))
            #expect(message.contains("Subject: A patient has shared a health report with you"))
            #expect(message.contains("Message-ID: <report-email.\(emailID)@caretide>"))
            #expect(message.contains("https://caretide.example.org/v1/patients/p-mail/report?from=2026-10-01&to=2026-10-31"))
            // No clinical value: not the reading, not its category. As whole numbers: the relay's ids and the e-mail's own
            // id are random, and may hold the same digits.
            #expect(message.range(of: #"\b(187|112)\b"#, options: .regularExpression) == nil && !message.lowercased().contains("hypertens"))
            // It went over TLS, authenticated (Exim logs the cipher as X= and the authenticator as A=).
            #expect(relay.log.contains("X=TLS") && relay.log.contains("A=plain:\(SMTPServer.username)"))

            // A recipient the relay refuses (550) fails at once and says why; the patient reads that.
            #expect(try await HTTP.send(method: "PUT", contact, json: #"{"email": "dr@\#(SMTPServer.refusedDomain)"}"#).status == 200)
            let doomed = try #require((try await HTTP.post(emails, json: "{}").json() as? [String: Any])?["emailId"] as? String)
            try await eventually("the refusal is recorded") {
                let status = try await HTTP.get("\(emails)/\(doomed)").json() as? [String: Any]
                return status?["status"] as? String == "failed" && (status?["lastError"] as? String)?.contains("550") == true
            }
            let listed = try await HTTP.get(emails).items()
            #expect(listed.map { $0["status"] as? String } == ["failed", "sent"])

            // To a doctor outside Caretide, in the patient's words, linking to an outside share's page; the code is
            // not in the e-mail. A subject that would add a header, or a PDF this deployment does not attach, is refused.
            let scoring = stack.baseURL(ScoringService.name)
            let share = try #require(
                try await HTTP.post("\(scoring)/v1/patients/p-mail/outside-shares", json: #"{"sections": ["measurements"]}"#).json() as? [String: Any]
            )
            let (shareID, code) = (try #require(share["shareId"] as? String), try #require(share["accessCode"] as? String))
            let outside =
                #"{"email": "ana.reis@outside.example.org", "subject": "Relatório da tensão — outubro", "message": "Dear Dr Reis,\nmy readings before Tuesday.\nAda", "shareId": "\#(shareID)"}"#
            #expect(try await HTTP.post(emails, json: #"{"subject": "Hi\r\nBcc: all@example.org"}"#).status == 400)
            #expect(try await HTTP.post(emails, json: #"{"attachPdf": true}"#).status == 422)
            #expect(try await HTTP.post(emails, json: #"{"email": "not an address"}"#).status == 400)
            let sent = try #require((try await HTTP.post(emails, json: outside).json() as? [String: Any])?["emailId"] as? String)
            try await eventually("the outside doctor's e-mail is delivered") { relay.messages().count == 2 }
            let letter = try #require(relay.messages().first { $0.contains("report-email.\(sent)") })
            #expect(letter.contains("To: ana.reis@outside.example.org"))
            // The subject as RFC 2047 encoded words; the patient's message first, as written.
            #expect(letter.contains("Subject: =?utf-8?B?UmVsYXTDs3JpbyBkYSB0ZW5zw6NvIOKAlCBvdXR1YnJv?="))
            let words = letter.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(words.contains("\n\nDear Dr Reis,\nmy readings before Tuesday.\nAda\n\n---\n"))
            #expect(words.contains("https://caretide.example.org/v1/outside-shares/\(shareID)") && !words.contains(code))
            #expect(letter.range(of: #"\b(187|112)\b"#, options: .regularExpression) == nil)
            try await stack.shutdown()
        }
    }

    @Test("a relay that does not answer is retried, then given up with the reason")
    func relayUnreachable() async throws {
        let settings = try #require(
            try MailSettings.configured(
                [
                    "SMTP_HOST": "127.0.0.1", "SMTP_PORT": "\(try FreePort.find())", "MAIL_FROM": "reports@caretide.test",
                    "MAIL_LINK_BASE_URL": "https://caretide.example.org",
                ], retry: MailRetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(200), maximumDelay: .milliseconds(200))))
        let stack = try await Self.stack(mail: settings)
        let notification = stack.baseURL(NotificationService.name)
        #expect(
            try await HTTP.send(method: "PUT", "\(notification)/v1/patients/p-down/doctor-contact", json: #"{"email": "dr@clinic.example.org"}"#)
                .status == 200)
        let emails = "\(notification)/v1/patients/p-down/report-emails"
        let id = try #require((try await HTTP.post(emails, json: "{}").json() as? [String: Any])?["emailId"] as? String)
        try await eventually("both attempts are made") {
            let status = try await HTTP.get("\(emails)/\(id)").json() as? [String: Any]
            return status?["status"] as? String == "failed" && status?["attempts"] as? Int == 2
        }
        let status = try #require(try await HTTP.get("\(emails)/\(id)").json() as? [String: Any])
        #expect((status["lastError"] as? String)?.contains("could not connect") == true)
        try await stack.shutdown()
    }
}
