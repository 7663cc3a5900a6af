import CaretideRuntime
import Foundation
import Testing

@testable import NotificationService

@Suite("E-mail addresses and messages")
struct MailMessageTests {
    static let from = MailAddress("reports@caretide.test")!
    static let to = MailAddress("dr.lee@clinic.example.org")!

    @Test("addresses a header or RCPT TO could be bent by are refused")
    func addresses() {
        for good in ["dr.lee@clinic.example.org", "a+b@x.io", "o'neil@example.co.uk"] { #expect(MailAddress(good) != nil, "\(good)") }
        let bad = [
            "dr@clinic.example.org\r\nBcc: all@example.org", "dr@clinic.example.org\nX: 1", "dr lee@clinic.org", "dr<x>@clinic.org",
            "dr@clinic", "@clinic.org", "dr@", "dr@@clinic.org", "dr@.clinic.org", "dr@clinic.org.", "a,b@clinic.org", "dré@clinic.org",
            String(repeating: "a", count: 250) + "@x.io",
        ]
        for address in bad { #expect(MailAddress(address) == nil, "\(address)") }
    }

    @Test("a subject with a line break is refused: nothing a caller writes can add a header")
    func headerInjection() {
        #expect(throws: MailMessage.HeaderInjection.self) {
            try MailMessage(from: Self.from, to: Self.to, subject: "Hi\r\nBcc: x@y.org", body: "", date: Date(), messageID: "<1@c>")
        }
        #expect(throws: MailMessage.HeaderInjection.self) {
            try MailMessage(from: Self.from, to: Self.to, subject: "Hi", body: "", date: Date(), messageID: "<1@c>\nBcc: x@y.org")
        }
    }

    @Test("the message uses CRLF, doubles a leading full stop, and ends with the lone full stop")
    func transmitted() throws {
        let message = try MailMessage(
            from: Self.from, to: Self.to, subject: "Report", body: "Hello\n.\n..dots\nend", date: Date(timeIntervalSince1970: 1_795_517_658),
            messageID: "<r.1@caretide>")
        let text = message.transmitted
        let lines = text.components(separatedBy: "\r\n")
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(lines.contains("Date: Tue, 24 Nov 2026 10:54:18 +0000") && lines.contains("To: dr.lee@clinic.example.org"))
        #expect(lines.contains("Content-Transfer-Encoding: 7bit") && lines.contains("Message-ID: <r.1@caretide>"))
        let body = Array(lines.drop { !$0.isEmpty }.dropFirst())
        #expect(body == ["Hello", "..", "...dots", "end", "."])
    }

    @Test("a subject that is not ASCII travels as RFC 2047 encoded words of whole characters, folded; control characters are refused")
    func encodedSubject() throws {
        let subject = "Relatório da tensão arterial — outubro e novembro de 2026, para a consulta de terça"
        let text = try MailMessage(from: Self.from, to: Self.to, subject: subject, body: "", date: Date(), messageID: "<s.1@c>").transmitted
        let header = try #require(text.components(separatedBy: "\r\nMessage-ID:").first?.components(separatedBy: "Subject: ").last)
        let words = header.components(separatedBy: "\r\n ")
        #expect(words.count > 1 && words.allSatisfy { $0.hasPrefix("=?utf-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 })
        let decoded = words.compactMap { Data(base64Encoded: String($0.dropFirst(10).dropLast(2))) }.reduce(Data(), +)
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
        #expect(MailMessage.encodedHeader("Plain report") == "Plain report")
        #expect(throws: MailMessage.HeaderInjection.self) {
            try MailMessage(from: Self.from, to: Self.to, subject: "Tab\there", body: "", date: Date(), messageID: "<1@c>")
        }
    }

    @Test("a body that is not ASCII is sent as base64 in lines of 76")
    func base64Body() throws {
        let body = String(repeating: "Zürich ", count: 30)
        let text = try MailMessage(from: Self.from, to: Self.to, subject: "Report", body: body, date: Date(), messageID: "<r.2@c>").transmitted
        #expect(text.contains("Content-Transfer-Encoding: base64"))
        let encoded = text.components(separatedBy: "\r\n\r\n")[1].components(separatedBy: "\r\n").dropLast()
        #expect(encoded.allSatisfy { $0.count <= 76 })
        #expect(Data(base64Encoded: encoded.joined()).map { String(decoding: $0, as: UTF8.self) } == body)
    }
}

@Suite("E-mail attachments")
struct MailAttachmentTests {
    @Test("an attachment makes a multipart message: the text, then the file in base64, closed by the boundary")
    func multipart() throws {
        let pdf = Data((0..<200).map { UInt8($0) })
        let message = try MailMessage(
            from: MailMessageTests.from, to: MailMessageTests.to, subject: "Report", body: "See the report.\n.hidden", date: Date(),
            messageID: "<r.3@caretide>", attachment: .init(filename: "report.pdf", contentType: "application/pdf", data: pdf))
        let lines = message.transmitted.components(separatedBy: "\r\n")
        let boundary = message.boundary
        #expect(
            lines.contains("Content-Type: multipart/mixed; boundary=\"\(boundary)\"") && lines.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(lines.filter { $0 == "--\(boundary)" }.count == 2 && lines.suffix(2) == ["--\(boundary)--", "."])
        #expect(lines.contains("..hidden") && lines.contains("Content-Disposition: attachment; filename=\"report.pdf\""))
        let start = try #require(lines.firstIndex(of: "Content-Transfer-Encoding: base64")) + 2
        let encoded = lines[start..<(lines.count - 2)]
        #expect(encoded.allSatisfy { $0.count <= 76 } && Data(base64Encoded: encoded.joined()) == pdf)
    }

    @Test("a file name that could bend the header is refused")
    func filename() {
        #expect(throws: MailMessage.HeaderInjection.self) {
            try MailMessage(
                from: MailMessageTests.from, to: MailMessageTests.to, subject: "Report", body: "", date: Date(), messageID: "<r.4@c>",
                attachment: .init(filename: "a\"\r\nX-Evil: 1", contentType: "application/pdf", data: Data()))
        }
    }
}

@Suite("Report e-mail retries")
struct MailRetryPolicyTests {
    let policy = MailRetryPolicy(maximumAttempts: 4, initialDelay: .seconds(60), maximumDelay: .seconds(150))

    @Test("accepted is sent; 5xx and an unusable relay fail at once")
    func final() {
        #expect(policy.next(after: nil, attempt: 1) == .sent)
        #expect(policy.next(after: .replied(code: 550, stage: "RCPT TO"), attempt: 1) == .failed)
        #expect(policy.next(after: .replied(code: 535, stage: "AUTH"), attempt: 1) == .failed)
        #expect(policy.next(after: .refused("no STARTTLS"), attempt: 1) == .failed)
    }

    @Test("4xx and no answer are retried, the delay doubling to its ceiling, until the last attempt")
    func transient() {
        for failure in [MailFailure.replied(code: 421, stage: "greeting"), .replied(code: 451, stage: "end of data"), .unreachable("down")] {
            #expect(policy.next(after: failure, attempt: 1) == .retry(after: .seconds(60)))
            #expect(policy.next(after: failure, attempt: 2) == .retry(after: .seconds(120)))
            #expect(policy.next(after: failure, attempt: 3) == .retry(after: .seconds(150)))
            #expect(policy.next(after: failure, attempt: 4) == .failed)
        }
    }

    @Test("the standard policy: eight attempts, an hour apart at most")
    func standard() {
        let standard = MailRetryPolicy.standard
        #expect(standard.next(after: .unreachable("down"), attempt: 7) == .retry(after: .seconds(3600)))
        #expect(standard.next(after: .unreachable("down"), attempt: 8) == .failed)
    }
}

@Suite("Mail configuration")
struct MailSettingsTests {
    static let minimal = ["SMTP_HOST": "smtp.example.org", "MAIL_FROM": "reports@example.org", "MAIL_LINK_BASE_URL": "https://caretide.example.org/"]

    @Test("no relay is no e-mail; the defaults are STARTTLS on 587")
    func defaults() throws {
        #expect(try MailSettings.configured([:]) == nil)
        #expect(try MailSettings.configured(["SMTP_HOST": "", "SMTP_PORT": ""]) == nil)
        let settings = try #require(try MailSettings.configured(Self.minimal))
        #expect(settings.relay.port == 587 && settings.relay.security == .startTLS && settings.relay.credentials == nil)
        #expect(settings.linkBase == "https://caretide.example.org" && settings.relay.serverHostname == "smtp.example.org")
        let tls = try #require(try MailSettings.configured(Self.minimal.merging(["SMTP_SECURITY": "tls"]) { $1 }))
        #expect(tls.relay.port == 465)
        #expect(try MailSettings.configured(Self.minimal.merging(["SMTP_HOST": "127.0.0.1"]) { $1 })?.relay.serverHostname == nil)
    }

    @Test("every wrong variable is named at once")
    func problems() {
        let wrong = [
            "SMTP_HOST": "smtp.example.org", "SMTP_PORT": "70000", "SMTP_SECURITY": "ssl", "SMTP_USERNAME": "caretide",
            "SMTP_CA_FILE": "/nonexistent.pem", "MAIL_FROM": "not an address", "MAIL_LINK_BASE_URL": "caretide.example.org",
        ]
        do {
            _ = try MailSettings.configured(wrong)
            Issue.record("accepted")
        } catch {
            let named = error.problems.joined(separator: "\n")
            for variable in ["SMTP_PORT", "SMTP_SECURITY", "SMTP_USERNAME", "SMTP_CA_FILE", "MAIL_FROM", "MAIL_LINK_BASE_URL"] {
                #expect(named.contains(variable), "\(variable)")
            }
        }
    }

    @Test("attaching the PDF is off by default; turned on it needs scoring's address and a token file")
    func attachment() throws {
        #expect(try MailSettings.configured(Self.minimal)?.attachment == nil)
        do {
            _ = try MailSettings.configured(Self.minimal.merging(["MAIL_ATTACH_REPORT_PDF": "true"]) { $1 })
            Issue.record("accepted")
        } catch {
            let named = error.problems.joined(separator: "\n")
            #expect(named.contains("MAIL_REPORT_SERVICE_URL") && named.contains("MAIL_SERVICE_TOKEN_FILE"))
        }
        #expect(throws: (any Error).self) { try MailSettings.configured(Self.minimal.merging(["MAIL_ATTACH_REPORT_PDF": "yes"]) { $1 }) }
        let on = try MailSettings.configured(
            Self.minimal.merging([
                "MAIL_ATTACH_REPORT_PDF": "true", "MAIL_REPORT_SERVICE_URL": "http://scoring:8080/", "MAIL_SERVICE_TOKEN_FILE": "/etc/hostname",
            ]) { $1 })
        #expect(on?.attachment?.reportServiceURL == "http://scoring:8080" && on?.attachment?.tokenFile == "/etc/hostname")
    }

    @Test("a password is never sent over a connection without TLS")
    func noPasswordInClear() {
        let plain = Self.minimal.merging(["SMTP_SECURITY": "none", "SMTP_USERNAME": "u", "SMTP_PASSWORD": "p"]) { $1 }
        #expect(throws: (any Error).self) { try MailSettings.configured(plain) }
    }
}
