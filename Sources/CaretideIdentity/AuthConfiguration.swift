public import Foundation

/// How a service learns who calls, read from its environment once at start-up:
///
/// | Variable | Meaning |
/// |---|---|
/// | `AUTH_JWKS_FILE` or `AUTH_JWKS_URL` | the identity provider's public keys (a JWKS file, or its certs endpoint, e.g. Keycloak's `…/protocol/openid-connect/certs`) |
/// | `AUTH_ISSUER`, `AUTH_AUDIENCE` | what `iss` must be and `aud` must contain |
/// | `AUTH_ROLE_CLAIM`, `AUTH_INSTITUTION_CLAIM`, `AUTH_SCOPE_CLAIM` | where the claims are (defaults `role`, `institution_id`, `scope`; Keycloak: `AUTH_ROLE_CLAIM=realm_access.roles`) |
/// | `AUTH_JWKS_REFRESH_SECONDS` | how often a JWKS URL is fetched again (default 300) |
/// | `AUTH_DISABLED=1` | no authentication at all, said explicitly (development only) |
public enum AuthConfiguration: Sendable, Equatable {
    case disabled
    case tokens(keys: KeySource, rules: TokenRules)

    public enum KeySource: Sendable, Equatable {
        case file(String)
        case url(URL, refresh: Duration)
    }

    /// The variables every deployment must set unless it sets `AUTH_DISABLED=1`.
    public static let requiredVariables = "AUTH_JWKS_FILE or AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE"

    /// The configuration, or the problems, each naming its variable (never a value).
    public static func fromEnvironment(_ environment: [String: String]) -> Result<AuthConfiguration, Problems> {
        if environment["AUTH_DISABLED"] == "1" { return .success(.disabled) }
        var problems: [String] = []
        var keys: KeySource?
        switch (environment["AUTH_JWKS_FILE"].flatMap(nonEmpty), environment["AUTH_JWKS_URL"].flatMap(nonEmpty)) {
        case (let file?, nil): keys = .file(file)
        case (nil, let text?):
            var refresh = Duration.seconds(300)
            if let seconds = environment["AUTH_JWKS_REFRESH_SECONDS"] {
                if let value = Int(seconds), value >= 10 {
                    refresh = .seconds(value)
                } else {
                    problems.append("AUTH_JWKS_REFRESH_SECONDS must be a whole number of seconds, at least 10")
                }
            }
            if let url = URL(string: text), ["https", "http"].contains(url.scheme ?? ""), url.host != nil {
                keys = .url(url, refresh: refresh)
            } else {
                problems.append("AUTH_JWKS_URL must be an http(s) URL")
            }
        case (_?, _?): problems.append("set only one of AUTH_JWKS_FILE and AUTH_JWKS_URL")
        case (nil, nil): problems.append("AUTH_JWKS_FILE or AUTH_JWKS_URL is missing")
        }
        let issuer = environment["AUTH_ISSUER"].flatMap(nonEmpty)
        if issuer == nil { problems.append("AUTH_ISSUER is missing") }
        let audience = environment["AUTH_AUDIENCE"].flatMap(nonEmpty)
        if audience == nil { problems.append("AUTH_AUDIENCE is missing") }
        guard problems.isEmpty, let keys, let issuer, let audience else {
            return .failure(Problems(problems: problems.map { $0 + " (or set AUTH_DISABLED=1 to run without authentication)" }))
        }
        var rules = TokenRules(issuer: issuer, audience: audience)
        if let claim = environment["AUTH_ROLE_CLAIM"].flatMap(nonEmpty) { rules.roleClaim = claim }
        if let claim = environment["AUTH_INSTITUTION_CLAIM"].flatMap(nonEmpty) { rules.institutionClaim = claim }
        if let claim = environment["AUTH_SCOPE_CLAIM"].flatMap(nonEmpty) { rules.scopeClaim = claim }
        return .success(.tokens(keys: keys, rules: rules))
    }

    public struct Problems: Error, Sendable, Equatable {
        public let problems: [String]
    }

    private static func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
}
