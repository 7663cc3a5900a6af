import CaretideIdentity
import Foundation
import Testing

@Suite struct AuthConfigurationTests {
    @Test("a JWKS file, an issuer and an audience make a token configuration; claim names can be moved")
    func fileConfiguration() throws {
        let configuration = try AuthConfiguration.fromEnvironment([
            "AUTH_JWKS_FILE": "/etc/caretide/jwks.json", "AUTH_ISSUER": "https://id.example/realms/caretide", "AUTH_AUDIENCE": "caretide",
            "AUTH_ROLE_CLAIM": "realm_access.roles",
        ]).get()
        var rules = TokenRules(issuer: "https://id.example/realms/caretide", audience: "caretide")
        rules.roleClaim = "realm_access.roles"
        #expect(configuration == .tokens(keys: .file("/etc/caretide/jwks.json"), rules: rules))
    }

    @Test("a JWKS URL is refreshed every five minutes unless told otherwise")
    func urlConfiguration() throws {
        let base = ["AUTH_JWKS_URL": "https://id.example/realms/caretide/protocol/openid-connect/certs", "AUTH_ISSUER": "i", "AUTH_AUDIENCE": "a"]
        guard case .tokens(.url(_, let refresh), _) = try AuthConfiguration.fromEnvironment(base).get() else {
            Issue.record("expected a URL key source")
            return
        }
        #expect(refresh == .seconds(300))
        guard
            case .tokens(.url(_, let faster), _) = try AuthConfiguration.fromEnvironment(base.merging(["AUTH_JWKS_REFRESH_SECONDS": "60"]) { $1 })
                .get()
        else { return }
        #expect(faster == .seconds(60))
    }

    @Test("nothing configured is refused, naming every variable and how to run without authentication")
    func missingConfiguration() {
        guard case .failure(let problems) = AuthConfiguration.fromEnvironment([:]) else {
            Issue.record("an empty environment must not configure authentication")
            return
        }
        #expect(problems.problems.count == 3)
        #expect(problems.problems.allSatisfy { $0.hasSuffix("(or set AUTH_DISABLED=1 to run without authentication)") })
        #expect(problems.problems.contains { $0.hasPrefix("AUTH_JWKS_FILE or AUTH_JWKS_URL is missing") })
    }

    @Test("AUTH_DISABLED=1 is the only way to run without tokens; both key sources at once are refused")
    func disabledAndAmbiguous() {
        #expect(AuthConfiguration.fromEnvironment(["AUTH_DISABLED": "1"]) == .success(.disabled))
        #expect(AuthConfiguration.fromEnvironment(["AUTH_DISABLED": "yes"]) != .success(.disabled))
        guard
            case .failure(let problems) = AuthConfiguration.fromEnvironment([
                "AUTH_JWKS_FILE": "/k", "AUTH_JWKS_URL": "https://k", "AUTH_ISSUER": "i", "AUTH_AUDIENCE": "a",
            ])
        else { return }
        #expect(problems.problems.first?.hasPrefix("set only one of AUTH_JWKS_FILE and AUTH_JWKS_URL") == true)
        guard case .failure(let bad) = AuthConfiguration.fromEnvironment(["AUTH_JWKS_URL": "ftp://k", "AUTH_ISSUER": "i", "AUTH_AUDIENCE": "a"])
        else { return }
        #expect(bad.problems.first?.hasPrefix("AUTH_JWKS_URL must be an http(s) URL") == true)
    }
}
