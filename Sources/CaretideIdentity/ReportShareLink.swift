import Crypto
public import Foundation

/// A patient's report shared with one consultant of their care team: the link notification-service puts in the
/// consultant's inbox and scoring-service opens (`GET /v1/patients/{patientId}/shared-reports/{shareId}?…`).
///
/// The link is not a credential on its own: opening it also takes the consultant's own sign-in, and the care-team grant
/// in force (revoking the grant revokes every link). What the signature adds is that nothing in the link can be
/// changed: it is HMAC-SHA256 (RFC 2104) under the deployment's share key of the purpose and every field (patient,
/// share, consultant, period, expiry), so a link cannot be stretched to another period, replayed for another patient
/// or consultant, kept past its expiry, or taken for any other signed thing the key might one day sign.
public struct ReportShareLink: Sendable, Equatable {
    /// Signed first, so a signature made for another purpose under the same key never verifies as a share link.
    static let purpose = "caretide.report-share.v1"

    public let patientID: String
    public let shareID: UUID
    public let consultantID: String
    /// The report's period, to the second.
    public let from: Date
    public let to: Date
    public let expiresAt: Date

    public init(patientID: String, shareID: UUID, consultantID: String, from: Date, to: Date, expiresAt: Date) {
        self.patientID = patientID
        self.shareID = shareID
        self.consultantID = consultantID
        // Whole seconds, as the link carries them, so a link read back equals the one signed.
        self.from = Self.second(from)
        self.to = Self.second(to)
        self.expiresAt = Self.second(expiresAt)
    }

    /// The path and query a consultant opens, signed under `key`.
    public func relativeURL(signedWith key: ShareKey) -> String {
        "/v1/patients/\(Self.escaped(patientID))/shared-reports/\(shareID.uuidString.lowercased())?"
            + "consultant=\(Self.escaped(consultantID))&from=\(Self.seconds(from))&to=\(Self.seconds(to))"
            + "&expires=\(Self.seconds(expiresAt))&signature=\(signature(key))"
    }

    /// The link named by a request's path and query, once its signature is checked (in constant time); nil when a
    /// field is missing or malformed, or the signature does not match. Expiry is the caller's to check.
    public static func verified(patientID: String, shareID: UUID, query: [String: String], key: ShareKey) -> ReportShareLink? {
        guard let consultant = query["consultant"], !consultant.isEmpty,
            let from = query["from"].flatMap(Self.seconds(text:)), let to = query["to"].flatMap(Self.seconds(text:)),
            let expires = query["expires"].flatMap(Self.seconds(text:)),
            let signature = query["signature"].flatMap(Self.bytes(base64URL:))
        else { return nil }
        let link = ReportShareLink(
            patientID: patientID, shareID: shareID, consultantID: consultant, from: Date(timeIntervalSince1970: TimeInterval(from)),
            to: Date(timeIntervalSince1970: TimeInterval(to)), expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)))
        return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: link.message, using: key.key) ? link : nil
    }

    /// What is signed: the purpose and each field on a line of its own (no field can hold a line break: ids are
    /// path-safe and the rest are numbers).
    var message: [UInt8] {
        Array(
            [
                Self.purpose, patientID, shareID.uuidString.lowercased(), consultantID, "\(Self.seconds(from))", "\(Self.seconds(to))",
                "\(Self.seconds(expiresAt))",
            ].joined(separator: "\n").utf8)
    }

    func signature(_ key: ShareKey) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: message, using: key.key)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// The latest second a link's times may name (9999-12-31T23:59:59Z, the last an RFC 3339 timestamp can write):
    /// anyone can put a number in a query, and 2^63 − 1 seconds made a date whose second traps on the way back.
    static let latestSecond: Int64 = 253_402_300_799

    static func seconds(text: String) -> Int64? {
        Int64(text).flatMap { (0...latestSecond).contains($0) ? $0 : nil }
    }

    private static func seconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return Int64(exactly: seconds) ?? (seconds > 0 ? .max : 0)
    }
    private static func second(_ date: Date) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds(date))) }
    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlUnreservedCharacters) ?? text
    }
}

/// The deployment's secret for signing share links (`REPORT_SHARE_KEY`), the same in scoring-service, which opens
/// links, and notification-service, which sends them.
public struct ShareKey: Sendable {
    let key: SymmetricKey

    /// Refuses a secret shorter than 32 bytes (HMAC-SHA256's own strength; RFC 2104 §3).
    public init?(secret: String) {
        guard secret.utf8.count >= 32 else { return nil }
        key = SymmetricKey(data: Array(secret.utf8))
    }

    public static let variable = "REPORT_SHARE_KEY"
}

extension CharacterSet {
    /// RFC 3986's unreserved characters: what a query value or path segment keeps unescaped (links Caretide writes:
    /// share links, the report e-mail's).
    public static let urlUnreservedCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
