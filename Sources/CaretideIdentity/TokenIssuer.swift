public import CaretideSchemas
public import Foundation
public import JWTKit

/// Mints tokens with a key of Caretide's own: `caretide dev` makes one in its state directory so a laptop needs no
/// identity provider, `caretide token` signs with it, and the tests use a fresh one. Production services never hold
/// a private key; they only verify against the provider's public keys.
public struct TokenIssuer: Sendable {
    public let key: ES256PrivateKey
    public let keyID: String
    public let issuer: String
    public let audience: String

    public init(key: ES256PrivateKey = ES256PrivateKey(), keyID: String, issuer: String, audience: String) {
        self.key = key
        self.keyID = keyID
        self.issuer = issuer
        self.audience = audience
    }

    /// The public half as a JWK Set (RFC 7517 §4, RFC 7518 §6.2.1: kty, crv, x, y), what services are configured with.
    public var jwks: String {
        let parameters = key.publicKey.parameters!
        return #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(parameters.x)","y":"\#(parameters.y)","kid":"\#(keyID)","alg":"ES256","use":"sig"}]}"#
    }

    /// The rules a service verifying this issuer's tokens applies.
    public var rules: TokenRules { TokenRules(issuer: issuer, audience: audience) }

    /// A signed token for `identity`, valid for `lifetime` from `now`. `extraClaims` overrides or adds claims (tests
    /// use it to make tokens broken in one way).
    public func token(
        for identity: Identity, lifetime: Duration = .seconds(3600), now: Date = Date(), extraClaims: [String: ClaimValue] = [:]
    ) async throws -> String {
        var claims: [String: ClaimValue] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(identity.subject), "role": .string(identity.role.rawValue),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number((now.timeIntervalSince1970 + Double(lifetime.components.seconds)).rounded(.down)),
        ]
        if let institution = identity.institutionID { claims["institution_id"] = .string(institution) }
        if !identity.scopes.isEmpty { claims["scope"] = .string(identity.scopes.sorted().joined(separator: " ")) }
        claims.merge(extraClaims) { $1 }
        let keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        return try await keys.sign(TokenVerifier.Claims(values: claims), kid: JWKIdentifier(string: keyID))
    }
}

extension TokenIssuer {
    /// The development issuer's files in a state directory: `jwt-signing-key.pem` (owner-only) and `jwks.json`.
    /// Made once and reused, so tokens minted earlier stay valid across `caretide dev` restarts.
    public static func development(in directory: URL) throws -> TokenIssuer {
        let keyFile = directory.appendingPathComponent("jwt-signing-key.pem")
        let key: ES256PrivateKey
        if let pem = try? String(contentsOf: keyFile, encoding: .utf8) {
            key = try ES256PrivateKey(pem: pem)
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            key = ES256PrivateKey()
            try Data(key.pemRepresentation.utf8).write(to: keyFile, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        }
        let issuer = TokenIssuer(key: key, keyID: "caretide-dev", issuer: developmentIssuer, audience: developmentAudience)
        try Data(issuer.jwks.utf8).write(to: jwksFile(in: directory), options: .atomic)
        return issuer
    }

    public static func jwksFile(in directory: URL) -> URL { directory.appendingPathComponent("jwks.json") }
    public static let developmentIssuer = "caretide-dev"
    public static let developmentAudience = "caretide"
}
