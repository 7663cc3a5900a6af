public import Foundation

/// What a token must say to be accepted, and where it says it. Claim names are configurable so that an identity
/// provider's own layout works without a gateway in front: Keycloak puts roles under `realm_access.roles`.
public struct TokenRules: Sendable, Equatable {
    /// `iss` must equal this.
    public var issuer: String
    /// `aud` (a string or a list) must contain this.
    public var audience: String
    /// A dotted path to the role: a string, or a list whose first Caretide role is taken.
    public var roleClaim: String = "role"
    /// The claim naming the institution of institution staff.
    public var institutionClaim: String = "institution_id"
    /// The space-separated scopes of a machine client (RFC 8693 `scope`).
    public var scopeClaim: String = "scope"
    /// Clock skew allowed on `exp` and `nbf`.
    public var leeway: TimeInterval = 60

    /// Asymmetric algorithms only (RFC 8725 §3.1, §3.2): never `none`, never an HMAC, whose secret could be a public
    /// key an attacker knows.
    public static let allowedAlgorithms: Set<String> = ["RS256", "ES256", "EdDSA"]

    public init(issuer: String, audience: String) {
        self.issuer = issuer
        self.audience = audience
    }
}
