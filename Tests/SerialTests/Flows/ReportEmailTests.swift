import CaretideIdentity
import CaretideLocalStack
import CaretideRuntime
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// A report e-mail with the printed report attached (from ReportSharingTests). Runs alone (SerialTests): scoring prints
/// the report with headless Chromium beside Exim and two stacks, and beside the rest that starved timed waits elsewhere.
@Suite(.serialized, .stoppingStacks) struct ReportEmailTests {
    @Test("an operator who chooses to attach the PDF gets it read from scoring with the service token, attached to the e-mail")
    func emailWithAttachedReport() async throws {
        try await SMTPServer.withRelay { relay in
            // scoring in a stack of its own, so its address is known before notification is configured with it.
            let scoringStack = try await TestStack.start([IngestService.definition, ScoringService.definition])
            let ingest = scoringStack.baseURL(IngestService.name)
            let reading = #"{"measurementId": "\#(UUID())", "systolic": 187, "diastolic": 112, "takenAt": "2026-10-05T07:30:00Z"}"#
            #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-pdf/measurements/blood-pressure", json: reading).status == 201)
            let scoring = scoringStack.baseURL(ScoringService.name)
            try await eventually("the reading is assessed") {
                try await HTTP.get("\(scoring)/v1/patients/p-pdf/report?from=2026-10-01&to=2026-10-31").text.contains("187/112 mmHg")
            }
            let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-mail-token-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: tokenFile) }
            let mailer = Identity(subject: "notification-mailer", role: .service, scopes: [ServiceScope.patientsRead])
            try Data(try await TestIdentity.shared.token(for: mailer).utf8).write(to: tokenFile)
            let settings = try #require(
                try MailSettings.configured([
                    "SMTP_HOST": "127.0.0.1", "SMTP_PORT": "\(relay.port)", "SMTP_USERNAME": SMTPServer.username,
                    "SMTP_PASSWORD": SMTPServer.password, "SMTP_CA_FILE": relay.certificate, "MAIL_FROM": "reports@caretide.test",
                    "MAIL_LINK_BASE_URL": "https://caretide.example.org", "MAIL_ATTACH_REPORT_PDF": "true", "MAIL_REPORT_SERVICE_URL": scoring,
                    "MAIL_SERVICE_TOKEN_FILE": tokenFile.path,
                ]))
            let stack = try await TestStack.start([NotificationService.definition(mail: settings)])
            let notification = stack.baseURL(NotificationService.name)
            #expect(
                try await HTTP.send(method: "PUT", "\(notification)/v1/patients/p-pdf/doctor-contact", json: #"{"email": "dr@clinic.example.org"}"#)
                    .status == 200)
            let emails = "\(notification)/v1/patients/p-pdf/report-emails"
            let id = try #require(
                (try await HTTP.post(emails, json: #"{"from": "2026-10-01", "to": "2026-10-31", "attachPdf": true}"#).json() as? [String: Any])?[
                    "emailId"] as? String)
            try await eventually("the e-mail with its report leaves") {
                (try await HTTP.get("\(emails)/\(id)").json() as? [String: Any])?["status"] as? String == "sent"
            }
            try await eventually("the relay delivers it") { relay.messages().count == 1 }
            let message = try #require(relay.messages().first)
            #expect(message.contains("Content-Type: multipart/mixed") && message.contains("Content-Disposition: attachment; filename=\"report.pdf\""))
            // The attachment is the report printed: its text holds the reading.
            let part = try #require(message.components(separatedBy: "Content-Transfer-Encoding: base64").last)
            let encoded = part.components(separatedBy: "--=_caretide_")[0].split(whereSeparator: \.isNewline).joined()
            let pdf = try #require(Data(base64Encoded: encoded))
            #expect(pdf.starts(with: Array("%PDF".utf8)))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-mailed-\(UUID().uuidString).pdf")
            defer { try? FileManager.default.removeItem(at: file) }
            try pdf.write(to: file)
            #expect(try await Subprocess.run("/usr/bin/pdftotext", ["-layout", file.path, "-"]).output.contains("187/112 mmHg"))
            // The service's read is in the patient's access log.
            let log = try await HTTP.get("\(scoring)/v1/patients/p-pdf/access-log").items()
            #expect(
                log.contains {
                    $0["subject"] as? String == "notification-mailer" && $0["operation"] as? String == "GET /v1/patients/:patientId/report.pdf"
                })
            try await stack.shutdown()
            try await scoringStack.shutdown()
        }
    }
}
