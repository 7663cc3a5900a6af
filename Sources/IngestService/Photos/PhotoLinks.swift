import Crypto
import Foundation

/// The short-lived links to a photo's file that `lesion-photo.recorded` carries for an outside classifier:
/// `/v1/patients/{patientId}/photos/{photoId}/file?expires=<unix seconds>&signature=<hex>`, the signature an
/// HMAC-SHA256 (RFC 2104) under the operator's key of the purpose and each field on a line of its own, as
/// `ReportShareLink` signs (so a signature made for another purpose never verifies here). The route checks the
/// signature and the time as well as the caller's `photos:classify` scope: a link alone is not enough, nor a token
/// alone.
struct PhotoLinks: Sendable {
    let key: SymmetricKey
    /// Prefixed to the path when set (`PHOTO_LINK_BASE_URL`): ingest's address as the classifier reaches it.
    let baseURL: String?
    let lifetime: TimeInterval

    init(settings: PhotoSettings) {
        // Without a configured key each replica signs with its own: a link then works only on the replica that made it.
        key = settings.linkKey.map { SymmetricKey(data: $0) } ?? SymmetricKey(size: .bits256)
        baseURL = settings.linkBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        lifetime = TimeInterval(settings.linkLifetimeSeconds)
    }

    /// The link to a photo's file and when it expires.
    func link(patientID: String, photoID: UUID, now: Date) -> (url: String, expiresAt: Date) {
        // bounded: now plus the configured lifetime.
        let expires = Int64(now.timeIntervalSince1970 + lifetime)
        let id = photoID.uuidString.lowercased()
        let signature = Data(HMAC<SHA256>.authenticationCode(for: Data(Self.message(patientID, id, expires).utf8), using: key))
            .map { String(format: "%02x", $0) }.joined()
        let path = "/v1/patients/\(patientID)/photos/\(id)/file?expires=\(expires)&signature=\(signature)"
        return ((baseURL ?? "") + path, Date(timeIntervalSince1970: TimeInterval(expires)))
    }

    /// Whether the link's signature is this key's for the patient, photo and expiry, and the expiry is still ahead.
    func isValid(patientID: String, photoID: UUID, expires: String?, signature: String?, now: Date) -> Bool {
        guard let expires, let seconds = Int64(expires), TimeInterval(seconds) > now.timeIntervalSince1970,
            let signature, let code = Self.bytes(hex: signature), code.count == SHA256.byteCount
        else { return false }
        let message = Data(Self.message(patientID, photoID.uuidString.lowercased(), seconds).utf8)
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: key)
    }

    /// Signed first, so a signature made for another purpose under the same key never verifies as a photo link.
    static let purpose = "caretide.photo-file.v1"

    static func message(_ patientID: String, _ photoID: String, _ expires: Int64) -> String {
        [Self.purpose, patientID, photoID, "\(expires)"].joined(separator: "\n")
    }

    static func bytes(hex: String) -> Data? {
        guard hex.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: hex.count / 2)
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
