public import CaretideIdentity
import Foundation

/// The tests' identity provider: one signing key per test process, its public half in a JWKS file every test stack
/// is configured with (the same path production takes: `AUTH_JWKS_FILE`), and tokens minted from it.
public actor TestIdentity {
    public static let shared = TestIdentity()

    public let issuer = TokenIssuer(keyID: "test-key", issuer: "https://id.caretide.test", audience: "caretide")
    private var jwksPath: String?
    private var tokens: [Identity: String] = [:]

    /// `AUTH_JWKS_FILE` and rules for the test issuer.
    public func configuration() throws -> AuthConfiguration {
        .tokens(keys: .file(try jwksFile()), rules: issuer.rules)
    }

    /// The environment a service process needs to trust the test issuer.
    public func environment() throws -> [String: String] {
        ["AUTH_JWKS_FILE": try jwksFile(), "AUTH_ISSUER": issuer.issuer, "AUTH_AUDIENCE": issuer.audience]
    }

    public func jwksFile() throws -> String {
        if let jwksPath { return jwksPath }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-test-jwks-\(getpid()).json")
        try Data(issuer.jwks.utf8).write(to: url, options: .atomic)
        jwksPath = url.path
        return url.path
    }

    /// A valid token for `identity` (one per identity, valid for the hour).
    public func token(for identity: Identity) async throws -> String {
        if let token = tokens[identity] { return token }
        let token = try await issuer.token(for: identity)
        tokens[identity] = token
        return token
    }
}

/// Who a test request is sent as.
public enum Caller: Sendable {
    /// Whoever owns what the path names: the patient of `/v1/patients/{id}/…`, staff of the institution of
    /// `/v1/institutions/{id}/…`, the consultant of `/v1/doctors/{id}/…`; a consultant for anything else.
    case owner
    /// No `Authorization` header.
    case anonymous
    case identity(Identity)
    /// A token as given, broken ones included.
    case token(String)

    /// The identity `.owner` stands for on `url`.
    public static func owner(of url: String) -> Identity {
        let parts = (URL(string: url)?.path ?? "").split(separator: "/").map(String.init)
        if parts.count >= 3, parts[0] == "v1" {
            switch parts[1] {
            case "patients": return Identity(subject: parts[2], role: .patient)
            case "institutions": return Identity(subject: "staff-of-\(parts[2])", role: .institution, institutionID: parts[2])
            case "doctors": return Identity(subject: parts[2], role: .consultant)
            default: break
            }
        }
        return Identity(subject: "consultant-of-tests", role: .consultant)
    }

    /// The `Authorization` header value for a request to `url`, if any.
    func authorization(for url: String) async throws -> String? {
        switch self {
        case .anonymous: nil
        case .token(let token): "Bearer \(token)"
        case .identity(let identity): "Bearer \(try await TestIdentity.shared.token(for: identity))"
        case .owner: "Bearer \(try await TestIdentity.shared.token(for: Self.owner(of: url)))"
        }
    }
}
