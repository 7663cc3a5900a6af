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

/// A plain-text message, with at most one attachment, ready for SMTP's DATA (RFC 5322, MIME RFC 2045–2046): CRLF line
/// endings, the headers a receiver needs (Date, From, To, Subject, Message-ID, MIME), and lines that begin with a full
/// stop doubled (RFC 5321 §4.5.2). Header values come from code and the addresses above; a subject with a line break
/// is refused, so nothing a caller writes can add a header.
struct MailMessage: Sendable, Equatable {
    let from: MailAddress
    let to: MailAddress
    let subject: String
    let body: String
    let date: Date
    /// `<id@domain>`: the same on every attempt, so a receiver can tell a retry from a new message.
    let messageID: String
    var attachment: Attachment?

    /// A file sent with the text (the report's PDF, when the operator chose to attach it).
    struct Attachment: Sendable, Equatable {
        /// Letters, digits, `.`, `-` and `_` only: it goes into a header as it is.
        let filename: String
        let contentType: String
        let data: Data
    }

    struct HeaderInjection: Error, Equatable {}

    init(
        from: MailAddress, to: MailAddress, subject: String, body: String, date: Date, messageID: String, attachment: Attachment? = nil
    ) throws(HeaderInjection) {
        let safeName = attachment.map { $0.filename.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) } } ?? true
        guard !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }), !messageID.contains(where: \.isNewline),
            safeName
        else { throw HeaderInjection() }
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.date = date
        self.messageID = messageID
        self.attachment = attachment
    }

    /// Separates the parts of a message with an attachment: `=_` never occurs in base64 or in the text Caretide
    /// writes, and the message id makes it the same on every attempt.
    var boundary: String { "=_caretide_\(messageID.filter { $0.isLetter || $0.isNumber })" }

    /// The message as DATA sends it, ending with the line that holds only a full stop (without its CRLF, which the
    /// command adds). A body that is not all ASCII is sent as base64 so no relay has to understand 8-bit text.
    var transmitted: String {
        let headers = [
            "Date: \(Self.rfc5322Date(date))", "From: \(from)", "To: \(to)", "Subject: \(Self.encodedHeader(subject))", "Message-ID: \(messageID)",
            "MIME-Version: 1.0", "Auto-Submitted: auto-generated",
        ]
        var lines = headers
        if let attachment {
            lines +=
                ["Content-Type: multipart/mixed; boundary=\"\(boundary)\"", "", "--\(boundary)"] + textPart + [
                    "--\(boundary)", "Content-Type: \(attachment.contentType); name=\"\(attachment.filename)\"",
                    "Content-Disposition: attachment; filename=\"\(attachment.filename)\"", "Content-Transfer-Encoding: base64", "",
                ] + Self.base64Lines(attachment.data) + ["--\(boundary)--"]
        } else {
            lines += textPart
        }
        return (lines + ["."]).joined(separator: "\r\n")
    }

    /// The text's own headers, a blank line, and the text.
    private var textPart: [String] {
        let ascii = body.unicodeScalars.allSatisfy(\.isASCII)
        let headers = ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: \(ascii ? "7bit" : "base64")", ""]
        guard ascii else { return headers + Self.base64Lines(Data(body.utf8)) }
        return headers
            + body.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                let line = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
                return line.hasPrefix(".") ? "." + line : line
            }
    }

    /// A header value as it may travel: ASCII as it is; anything else as RFC 2047 encoded words (`=?utf-8?B?…?=`), each
    /// of whole characters and at most 75 characters long, on folded lines (RFC 5322 §2.2.3).
    static func encodedHeader(_ value: String) -> String {
        guard !value.unicodeScalars.allSatisfy(\.isASCII) else { return value }
        var words: [String] = []
        var chunk = Data()
        for character in value {
            let bytes = Data(String(character).utf8)
            // 45 bytes make 60 of base64, which with `=?utf-8?B?` and `?=` stays within 75.
            if chunk.count + bytes.count > 45 {
                words.append("=?utf-8?B?\(chunk.base64EncodedString())?=")
                chunk = Data()
            }
            chunk.append(bytes)
        }
        if !chunk.isEmpty { words.append("=?utf-8?B?\(chunk.base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// Base64 in lines of 76 (RFC 2045 §6.8).
    static func base64Lines(_ data: Data) -> [String] {
        let encoded = Array(data.base64EncodedString().utf8)
        return stride(from: 0, to: encoded.count, by: 76).map { String(decoding: encoded[$0..<min($0 + 76, encoded.count)], as: UTF8.self) }
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
