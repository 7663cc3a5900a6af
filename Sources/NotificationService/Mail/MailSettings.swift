public import CaretideRuntime
import Foundation

/// How notification-service sends e-mail: the operator's SMTP relay, the sender, and the address links point to.
/// Without `SMTP_HOST` no e-mail leaves and `POST …/report-emails` answers 503 naming the variable.
public struct MailSettings: Sendable {
    let relay: SMTPRelay
    let sender: MailAddress
    /// Where the API is reached from outside (`MAIL_LINK_BASE_URL`, e.g. `https://caretide.example.org`): links in
    /// e-mails are this and a path.
    let linkBase: String
    let retry: MailRetryPolicy
    /// Where the report's PDF is fetched from when the operator chose to attach it (`MAIL_ATTACH_REPORT_PDF`); nil
    /// (the default) sends the notice alone, with no clinical content.
    let attachment: ReportAttachment?

    /// scoring-service's address inside the deployment and the service token it is read with (role `service`,
    /// scope `patients:read`), from a file the platform keeps fresh and that is read again for every e-mail.
    struct ReportAttachment: Sendable {
        let reportServiceURL: String
        let tokenFile: String
    }

    init(relay: SMTPRelay, sender: MailAddress, linkBase: String, retry: MailRetryPolicy = .standard, attachment: ReportAttachment? = nil) {
        self.relay = relay
        self.sender = sender
        // Paths are appended to both addresses, so neither keeps a trailing slash.
        func base(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
        self.linkBase = base(linkBase)
        self.retry = retry
        self.attachment = attachment.map { ReportAttachment(reportServiceURL: base($0.reportServiceURL), tokenFile: $0.tokenFile) }
    }

    /// Read from `SMTP_HOST`, `SMTP_PORT`, `SMTP_SECURITY`, `SMTP_USERNAME`, `SMTP_PASSWORD`, `SMTP_CA_FILE`,
    /// `MAIL_FROM`, `MAIL_LINK_BASE_URL`, and `MAIL_ATTACH_REPORT_PDF` with `MAIL_REPORT_SERVICE_URL` and
    /// `MAIL_SERVICE_TOKEN_FILE`; nil without `SMTP_HOST`; an error naming every variable that is wrong.
    public static func configured(_ environment: [String: String], retry: MailRetryPolicy = .standard) throws(InvalidConfiguration) -> MailSettings? {
        // An empty value is an unset one: compose and Kubernetes pass every variable, set or not.
        let set = environment.filter { !$0.value.isEmpty }
        guard let host = set["SMTP_HOST"] else { return nil }
        var problems: [String] = []
        let security = SMTPRelay.Security(rawValue: set["SMTP_SECURITY"] ?? "starttls")
        if security == nil { problems.append("SMTP_SECURITY must be starttls, tls or none") }
        let port = set["SMTP_PORT"].map { Int($0) ?? 0 } ?? (security == .tls ? 465 : 587)
        if !(1...65535).contains(port) { problems.append("SMTP_PORT must be a port number (1-65535)") }
        var credentials: SMTPRelay.Credentials?
        switch (set["SMTP_USERNAME"], set["SMTP_PASSWORD"]) {
        case (nil, nil): credentials = nil
        case (let username?, let password?): credentials = .init(username: username, password: password)
        default: problems.append("SMTP_USERNAME and SMTP_PASSWORD go together")
        }
        if security == SMTPRelay.Security.none, credentials != nil {
            problems.append("SMTP_SECURITY=none would send SMTP_PASSWORD in clear: use starttls or tls")
        }
        let caFile = set["SMTP_CA_FILE"]
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) { problems.append("SMTP_CA_FILE is not a readable file: \(caFile)") }
        let sender = set["MAIL_FROM"].flatMap(MailAddress.init)
        if sender == nil { problems.append("MAIL_FROM must be the sender's address (local@domain) when SMTP_HOST is set") }
        let linkBase = set["MAIL_LINK_BASE_URL"] ?? ""
        let base = URL(string: linkBase)
        if base?.host == nil || !["https", "http"].contains(base?.scheme ?? "") {
            problems.append("MAIL_LINK_BASE_URL must be the API's public http(s) address when SMTP_HOST is set")
        }
        var attachment: ReportAttachment?
        switch set["MAIL_ATTACH_REPORT_PDF"] ?? "false" {
        case "false": attachment = nil
        case "true":
            let service = set["MAIL_REPORT_SERVICE_URL"] ?? ""
            if URL(string: service)?.host == nil || !["https", "http"].contains(URL(string: service)?.scheme ?? "") {
                problems.append("MAIL_REPORT_SERVICE_URL must be scoring-service's http(s) address when MAIL_ATTACH_REPORT_PDF=true")
            }
            let tokenFile = set["MAIL_SERVICE_TOKEN_FILE"] ?? ""
            if !FileManager.default.isReadableFile(atPath: tokenFile) {
                problems.append("MAIL_SERVICE_TOKEN_FILE must be a readable file holding a service token when MAIL_ATTACH_REPORT_PDF=true")
            }
            attachment = ReportAttachment(reportServiceURL: service, tokenFile: tokenFile)
        default: problems.append("MAIL_ATTACH_REPORT_PDF must be true or false")
        }
        guard problems.isEmpty, let security, let sender else { throw InvalidConfiguration(problems: problems) }
        return MailSettings(
            relay: SMTPRelay(host: host, port: port, security: security, credentials: credentials, trustedCertificates: caFile), sender: sender,
            linkBase: linkBase, retry: retry, attachment: attachment)
    }
}
