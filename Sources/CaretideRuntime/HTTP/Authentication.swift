public import CaretideIdentity
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a service verifies its callers: the identity provider's keys and rules, or nothing at all when the deployment
/// said `AUTH_DISABLED=1`.
public struct Authenticator: Sendable {
    enum Mode: Sendable {
        case disabled
        case verifying(TokenVerifier, keys: KeyAvailability)
    }

    let mode: Mode

    public static let disabled = Authenticator(mode: .disabled)

    /// Verifies against a key set given as JSON (tests, and a JWKS file once read).
    public static func verifying(jwks: String, rules: TokenRules) async throws -> Authenticator {
        let availability = KeyAvailability()
        availability.markLoaded()
        return Authenticator(mode: .verifying(try await TokenVerifier(jwks: jwks, rules: rules), keys: availability))
    }

    /// Reads a JWKS file (a configuration error when unreadable), or prepares a JWKS URL, whose keys are fetched by
    /// the `JWKSRefresh` service the assembly runs.
    static func make(_ configuration: AuthConfiguration) async throws -> (Authenticator, refresh: JWKSRefresh?) {
        switch configuration {
        case .disabled:
            return (.disabled, nil)
        case .tokens(keys: .file(let path), let rules):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw InvalidConfiguration(problems: ["AUTH_JWKS_FILE names a file that cannot be read"])
            }
            do {
                return (try await verifying(jwks: String(decoding: data, as: UTF8.self), rules: rules), nil)
            } catch {
                throw InvalidConfiguration(problems: ["AUTH_JWKS_FILE is not a JWK Set with usable keys"])
            }
        case .tokens(keys: .url(let url, let refresh), let rules):
            let verifier = try await TokenVerifier(jwks: #"{"keys":[]}"#, rules: rules)
            let availability = KeyAvailability()
            return (
                Authenticator(mode: .verifying(verifier, keys: availability)),
                JWKSRefresh(url: url, period: refresh, verifier: verifier, availability: availability)
            )
        }
    }

    /// Whether requests can be verified (keys from a URL may not have arrived yet).
    var isReady: Bool {
        switch mode {
        case .disabled: true
        case .verifying(_, let keys): keys.isLoaded
        }
    }
}

/// Whether a key set has been loaded at least once.
final class KeyAvailability: Sendable {
    private let loaded = Atomic<Bool>(false)
    func markLoaded() { loaded.store(true, ordering: .releasing) }
    var isLoaded: Bool { loaded.load(ordering: .acquiring) }
}

/// Fetches the identity provider's JWKS (`AUTH_JWKS_URL`, e.g. Keycloak's `…/protocol/openid-connect/certs`) at
/// start and every refresh period, so rotated keys are picked up without a restart. A failed fetch keeps the keys
/// already held and is tried again within ten seconds; until the first succeeds, `/readyz` says so and API requests
/// get a 503 rather than a misleading 401.
struct JWKSRefresh: Service {
    let url: URL
    let period: Duration
    let verifier: TokenVerifier
    let availability: KeyAvailability
    var logger = Logger(label: "caretide.auth")

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let succeeded = await refresh()
                try await Task.sleep(for: succeeded ? period : .seconds(10))
            }
        }
    }

    func refresh() async -> Bool {
        do {
            var request = URLRequest(url: url)
            request.timeoutInterval = 10
            let (data, response) = try await URLSession.shared.data(for: request)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw JWKSUnavailable() }
            try await verifier.replaceKeys(jwks: String(decoding: data, as: UTF8.self))
            availability.markLoaded()
            return true
        } catch {
            // The URL is configuration, not a secret, but the host is all an operator needs.
            logger.warning(
                "could not fetch the identity provider's keys; keeping the current ones",
                metadata: [
                    LogKey.host: "\(url.host ?? "")", LogKey.errorType: "\(type(of: error))",
                ])
            return false
        }
    }

    struct JWKSUnavailable: Error {}
}

/// Verifies the bearer token of every API request (RFC 6750) and puts the caller's identity on the context. A
/// missing, malformed, expired or wrongly signed token gets a 401 with `WWW-Authenticate: Bearer error="invalid_token"`
/// and the rule it broke; the token itself is never logged.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = CaretideRequestContext
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard case .verifying(let verifier, let keys) = authenticator.mode else { return try await next(request, context) }
        guard keys.isLoaded else {
            throw HTTPProblem(status: .serviceUnavailable, error: "the identity provider's keys are not loaded yet; send the request again")
        }
        guard let header = request.headers[.authorization], let token = Self.bearerToken(header) else {
            // RFC 6750 §3.1: a request without credentials gets the challenge without an error code.
            throw Unauthenticated(challenge: #"Bearer realm="caretide""#, description: "a bearer token is required")
        }
        do {
            var context = context
            context.identity = try await verifier.verify(token)
            return try await next(request, context)
        } catch let rejection as TokenRejection {
            throw Unauthenticated(
                challenge: #"Bearer realm="caretide", error="invalid_token", error_description="\#(rejection.description)""#,
                description: rejection.description)
        }
    }

    /// `Authorization: Bearer <token>`, the scheme case-insensitive (RFC 7235 §2.1).
    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingBlanks()
        return token.isEmpty ? nil : token
    }
}

/// A 401 with its RFC 6750 challenge.
struct Unauthenticated: HTTPResponseError {
    let challenge: String
    let description: String
    var status: HTTPResponse.Status { .unauthorized }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try HTTPProblem(status: .unauthorized, error: description).response(from: request, context: context)
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
