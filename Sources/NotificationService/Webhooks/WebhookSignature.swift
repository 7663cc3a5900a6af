import Crypto
import Foundation

/// The signature a webhook receiver checks before trusting a body: `Caretide-Signature: t=<unix seconds>,v1=<hex>`,
/// where `<hex>` is HMAC-SHA256 (RFC 2104) under the webhook's secret of the timestamp, a full stop and the body's
/// exact bytes. Signing the timestamp with the body lets a receiver refuse a captured request replayed later (it
/// should refuse timestamps more than five minutes from its clock); comparing in constant time is the receiver's part.
struct WebhookSignature: Sendable, Equatable {
    static let header = "Caretide-Signature"

    let timestamp: Int
    let digest: String

    init(secret: String, timestamp: Int, body: [UInt8]) {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        self.timestamp = timestamp
        self.digest = mac.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    var headerValue: String { "t=\(timestamp),v1=\(digest)" }

    /// A new secret for a webhook: 32 random bytes, base64url without padding (43 characters).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
