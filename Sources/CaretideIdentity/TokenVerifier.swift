public import CaretideSchemas
public import Foundation
import JWTKit
import Synchronization

/// Why a bearer token was refused. `description` names the rule, never the token or its claims' values, so it can
/// be logged and returned (RFC 6750 `error_description`).
public struct TokenRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case malformed = "the token is not a signed JWT"
        case algorithmNotAllowed = "the token's algorithm is not allowed (RS256, ES256 or EdDSA only)"
        case badSignature = "the token's signature does not verify with any known key"
        case expired = "the token has expired"
        case notYetValid = "the token is not valid yet"
        case noExpiry = "the token has no expiry"
        case wrongIssuer = "the token was issued by another issuer"
        case wrongAudience = "the token is meant for another audience"
        case noSubject = "the token names no subject"
        case noRole = "the token carries no Caretide role"
        case noInstitution = "an institution token names no institution"
    }

    public let reason: Reason
    public init(_ reason: Reason) { self.reason = reason }
    public var description: String { reason.rawValue }
}

/// Verifies bearer JWTs against the identity provider's public keys (a JWKS, RFC 7517) and the rules, and turns
/// the claims into an `Identity`. The keys can be replaced while requests are verified (a periodic JWKS refresh).
///
/// A client sends the same token with every request until it expires, so tokens whose signature verified and whose
/// claims passed the rules are remembered (by the token's exact text, up to `verifiedTokenCapacity` of them) with the
/// identity they make: the signature and the claims are read once per token, and its times checked on every request.
/// Replacing the keys forgets them all, so a token of a retired key is refused from then on.
public final class TokenVerifier: Sendable {
    private let keySet: Mutex<JWTKeyCollection>
    private let verified = Mutex<[String: Remembered]>([:])
    public let rules: TokenRules
    public static let verifiedTokenCapacity = 4_096

    /// - Parameter jwks: the key set as JSON (`{"keys": [...]}`); every key needs a `kid`.
    public init(jwks: String, rules: TokenRules) async throws {
        keySet = Mutex(try await Self.collection(jwks))
        self.rules = rules
    }

    /// Replaces the keys at once (a refreshed JWKS: the provider rotated its keys). A key set that cannot be read
    /// throws and leaves the current keys in place.
    public func replaceKeys(jwks: String) async throws {
        let collection = try await Self.collection(jwks)
        keySet.withLock { $0 = collection }
        verified.withLock { $0.removeAll() }
    }

    private static func collection(_ jwks: String) async throws -> JWTKeyCollection {
        let collection = JWTKeyCollection()
        try await collection.add(jwksJSON: jwks)
        return collection
    }

    public func verify(_ token: String, now: Date = Date()) async throws(TokenRejection) -> Identity {
        if let remembered = verified.withLock({ $0[token] }) {
            try check(remembered.times, now: now)
            return remembered.identity
        }
        let claims = try await verifySignature(token)
        let identity = try identity(from: claims, now: now)
        let remembered = Remembered(identity: identity, times: try Self.times(claims))
        verified.withLock { verified in
            // Bounded: when full, an arbitrary entry makes room (the next request of its token verifies it again).
            if verified.count >= Self.verifiedTokenCapacity { verified.remove(at: verified.startIndex) }
            verified[token] = remembered
        }
        return identity
    }

    /// A token that verified: the identity its claims make, and when it holds.
    private struct Remembered {
        let identity: Identity
        let times: Times
    }

    /// A token's expiry (`exp`), which it must have, and its start (`nbf`), if it has one.
    private struct Times {
        let expiry: Double
        let notBefore: Double?
    }

    /// The claims of a token whose signature verifies with one of the keys.
    private func verifySignature(_ token: String) async throws(TokenRejection) -> [String: ClaimValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[2].isEmpty,
            let headerBytes = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes)
        else { throw TokenRejection(.malformed) }
        // Checked before any key is touched: `none` and HMAC never reach a verifier.
        guard TokenRules.allowedAlgorithms.contains(header.alg) else { throw TokenRejection(.algorithmNotAllowed) }
        let claims: Claims
        do {
            let keys = keySet.withLock { $0 }
            claims = try await keys.verify(token, as: Claims.self, iteratingKeys: header.kid == nil)
        } catch {
            throw TokenRejection(.badSignature)
        }
        return claims.values
    }

    /// The rules applied to verified claims (pure, so every rule is tested on its own).
    func identity(from claims: [String: ClaimValue], now: Date) throws(TokenRejection) -> Identity {
        try check(try Self.times(claims), now: now)
        guard case .string(rules.issuer)? = claims["iss"] else { throw TokenRejection(.wrongIssuer) }
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let audience)?: [audience]
            case .array(let values)?: values.compactMap(\.stringValue)
            default: []
            }
        guard audiences.contains(rules.audience) else { throw TokenRejection(.wrongAudience) }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw TokenRejection(.noSubject) }
        let roleValue = ClaimValue.object(claims).at(path: rules.roleClaim)
        let candidates: [String] =
            switch roleValue {
            case .string(let role)?: [role]
            case .array(let values)?: values.compactMap(\.stringValue)
            default: []
            }
        guard let role = candidates.lazy.compactMap(Role.init(rawValue:)).first else { throw TokenRejection(.noRole) }
        let institution = ClaimValue.object(claims).at(path: rules.institutionClaim)?.stringValue
        if role == .institution, institution?.isEmpty ?? true { throw TokenRejection(.noInstitution) }
        let scopes = ClaimValue.object(claims).at(path: rules.scopeClaim)?.stringValue.map { Set($0.split(separator: " ").map(String.init)) } ?? []
        return Identity(subject: subject, role: role, institutionID: role == .institution ? institution : nil, scopes: scopes)
    }

    private static func times(_ claims: [String: ClaimValue]) throws(TokenRejection) -> Times {
        guard case .number(let expiry)? = claims["exp"] else { throw TokenRejection(.noExpiry) }
        guard case .number(let notBefore)? = claims["nbf"] else { return Times(expiry: expiry, notBefore: nil) }
        return Times(expiry: expiry, notBefore: notBefore)
    }

    /// Whether a token's times hold at `now`, within the rules' leeway.
    private func check(_ times: Times, now: Date) throws(TokenRejection) {
        guard now.timeIntervalSince1970 < times.expiry + rules.leeway else { throw TokenRejection(.expired) }
        if let notBefore = times.notBefore, now.timeIntervalSince1970 + rules.leeway < notBefore { throw TokenRejection(.notYetValid) }
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String?
    }

    /// Every claim of a token whose signature jwt-kit verified; the claims themselves are checked by `identity`.
    struct Claims: JWTPayload {
        let values: [String: ClaimValue]

        init(values: [String: ClaimValue]) { self.values = values }

        init(from decoder: any Decoder) throws {
            guard case .object(let values) = try ClaimValue(from: decoder) else {
                throw DecodingError.typeMismatch([String: ClaimValue].self, .init(codingPath: [], debugDescription: "claims are no object"))
            }
            self.values = values
        }

        func encode(to encoder: any Encoder) throws { try ClaimValue.object(values).encode(to: encoder) }

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}

/// A claim's JSON value: a JSON document's, decoded as any other.
public typealias ClaimValue = JSONValue

extension JSONValue {
    /// The value at a dotted path (`realm_access.roles`).
    func at(path: String) -> JSONValue? {
        var current: JSONValue? = self
        for key in path.split(separator: ".") {
            guard case .object(let members)? = current else { return nil }
            current = members[String(key)]
        }
        return current
    }
}

/// base64url without padding (RFC 7515 §2): JWT segments, and anything else that travels in a URL (page cursors).
public enum Base64URL {
    public static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
