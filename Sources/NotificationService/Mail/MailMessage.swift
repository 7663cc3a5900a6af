import Foundation

/// An e-mail address as Caretide accepts one: `local@domain`, at most 254 bytes (RFC 5321 §4.5.3.1.3), with no
/// space, control character (so no line break: no header injection), angle bracket, comma, semicolon, quote or
/// backslash, since it goes into `RCPT TO:<…>` and a `To:` header as it is.
struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    let description: String

    init?(_ text: String) {
        let forbidden = CharacterSet.whitespacesAndNewlines.union(.controlCharacters).union(CharacterSet(charactersIn: "<>,;:\"()[]\\"))
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), text.unicodeScalars.allSatisfy({ !forbidden.contains($0) && $0.isASCII })
        else { return nil }
        description = text
    }
}

/// A plain-text message ready for SMTP's DATA (RFC 5322): CRLF line endings, the headers a receiver needs (Date,
/// From, To, Subject, Message-ID, MIME), and lines that begin with a full stop doubled (RFC 5321 §4.5.2). Header
/// values come from code and the addresses above; a subject with a line break is refused, so nothing a caller
/// writes can add a header.
struct MailMessage: Sendable, Equatable {
    let from: MailAddress
    let to: MailAddress
    let subject: String
    let body: String
    let date: Date
    /// `<id@domain>`: the same on every attempt, so a receiver can tell a retry from a new message.
    let messageID: String

    struct HeaderInjection: Error, Equatable {}

    init(from: MailAddress, to: MailAddress, subject: String, body: String, date: Date, messageID: String) throws(HeaderInjection) {
        guard !subject.contains(where: \.isNewline), !messageID.contains(where: \.isNewline), subject.unicodeScalars.allSatisfy(\.isASCII)
        else { throw HeaderInjection() }
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.date = date
        self.messageID = messageID
    }

    /// The message as DATA sends it, ending with the line that holds only a full stop (without its CRLF, which the
    /// command adds). A body that is not all ASCII is sent as base64 so no relay has to understand 8-bit text.
    var transmitted: String {
        let ascii = body.unicodeScalars.allSatisfy(\.isASCII)
        let headers = [
            "Date: \(Self.rfc5322Date(date))", "From: \(from)", "To: \(to)", "Subject: \(subject)", "Message-ID: \(messageID)",
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: \(ascii ? "7bit" : "base64")", "Auto-Submitted: auto-generated",
        ]
        let bodyLines: [String]
        if ascii {
            bodyLines = body.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let line = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
                return line.hasPrefix(".") ? "." + line : line
            }
        } else {
            let encoded = Data(body.utf8).base64EncodedString()
            bodyLines = stride(from: 0, to: encoded.count, by: 76).map { start in
                let from = encoded.index(encoded.startIndex, offsetBy: start)
                return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
            }
        }
        return (headers + [""] + bodyLines + ["."]).joined(separator: "\r\n")
    }

    /// `Tue, 24 Nov 2026 10:54:18 +0000` (RFC 5322 §3.3), in UTC.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
