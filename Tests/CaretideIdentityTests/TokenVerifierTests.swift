import CaretideSchemas
import Foundation
import JWTKit
import Testing

@testable import CaretideIdentity

/// Bearer tokens as RFC 7519 and RFC 8725 want them checked: an asymmetric signature by a known key, then issuer,
/// audience, expiry and not-before, then Caretide's role; everything else refused with the rule it broke.
@Suite struct TokenVerifierTests {
    static let rules = TokenRules(issuer: "https://id.example/realms/caretide", audience: "caretide")
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// A key of the test's own, with its public half as a JWKS (RFC 7517 §4: kty, crv, x, y, kid, alg, use).
    struct Signer {
        let key = ES256PrivateKey()
        let kid: String

        var jwks: String {
            let parameters = key.publicKey.parameters!
            return
                #"{"keys": [{"kty": "EC", "crv": "P-256", "x": "\#(parameters.x)", "y": "\#(parameters.y)", "kid": "\#(kid)", "alg": "ES256", "use": "sig"}]}"#
        }

        func token(_ claims: [String: ClaimValue]) async throws -> String {
            let keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: kid))
            return try await keys.sign(TokenVerifier.Claims(claims), kid: JWKIdentifier(string: kid))
        }
    }

    static func claims(_ changes: [String: ClaimValue] = [:]) -> [String: ClaimValue] {
        [
            "iss": .string(rules.issuer), "aud": .string("caretide"), "sub": .string("patient-1"), "role": .string("patient"),
            "exp": .number(now.timeIntervalSince1970 + 3600), "iat": .number(now.timeIntervalSince1970),
        ].merging(changes) { $1 }
    }

    func verifier(_ signer: Signer, rules: TokenRules = Self.rules) async throws -> TokenVerifier {
        try await TokenVerifier(jwks: signer.jwks, rules: rules)
    }

    @Test("a token signed by a known key with the right claims gives its identity")
    func acceptsAValidToken() async throws {
        let signer = Signer(kid: "k1")
        let identity = try await verifier(signer).verify(try await signer.token(Self.claims()), now: Self.now)
        #expect(identity == Identity(subject: "patient-1", role: .patient))
    }

    @Test("a token remembered after its signature verified still expires, and is forgotten when the keys change")
    func rememberedTokens() async throws {
        let signer = Signer(kid: "k1")
        let verifier = try await verifier(signer)
        let token = try await signer.token(Self.claims())
        #expect(try await verifier.verify(token, now: Self.now).subject == "patient-1")
        // Remembered, yet the rules still run: an hour and a minute later it has expired.
        await #expect(throws: TokenRejection(.expired)) { try await verifier.verify(token, now: Self.now.addingTimeInterval(3661)) }
        // A copy with its signature altered is another text: it is verified, and refused.
        var altered = Array(token.utf8)
        altered[altered.count - 2] = altered[altered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        await #expect(throws: TokenRejection(.badSignature)) { try await verifier.verify(String(decoding: altered, as: UTF8.self), now: Self.now) }
        // The provider retires the key: the token that verified a moment ago is refused.
        try await verifier.replaceKeys(jwks: Signer(kid: "k2").jwks)
        await #expect(throws: TokenRejection(.badSignature)) { try await verifier.verify(token, now: Self.now) }
    }

    @Test("institution staff carry their institution; a service its scopes")
    func institutionAndScopes() async throws {
        let signer = Signer(kid: "k1")
        let verifier = try await verifier(signer)
        let staff = try await verifier.verify(
            try await signer.token(Self.claims(["sub": .string("staff-7"), "role": .string("institution"), "institution_id": .string("st-mary")])),
            now: Self.now)
        #expect(staff == Identity(subject: "staff-7", role: .institution, institutionID: "st-mary"))
        let pipeline = try await verifier.verify(
            try await signer.token(
                Self.claims(["sub": .string("lab-feed"), "role": .string("service"), "scope": .string("exam-results:write results:read")])),
            now: Self.now)
        #expect(pipeline.scopes == ["exam-results:write", "results:read"])
        await #expect(throws: TokenRejection(.noInstitution)) {
            try await verifier.verify(try await signer.token(Self.claims(["role": .string("institution")])), now: Self.now)
        }
    }

    @Test("Keycloak's layout: roles under realm_access.roles, the first Caretide role taken")
    func keycloakRoles() async throws {
        let signer = Signer(kid: "k1")
        var rules = Self.rules
        rules.roleClaim = "realm_access.roles"
        let claims = Self.claims([
            "role": .null, "aud": .array([.string("account"), .string("caretide")]),
            "realm_access": .object(["roles": .array([.string("offline_access"), .string("consultant"), .string("uma_authorization")])]),
        ])
        let identity = try await verifier(signer, rules: rules).verify(try await signer.token(claims), now: Self.now)
        #expect(identity.role == .consultant)
    }

    @Test(
        "each broken rule is refused with its reason",
        arguments: [
            (["exp": ClaimValue.number(now.timeIntervalSince1970 - 61)], TokenRejection.Reason.expired),
            (["exp": .null], .noExpiry),
            (["nbf": .number(now.timeIntervalSince1970 + 120)], .notYetValid),
            (["iss": .string("https://evil.example")], .wrongIssuer),
            (["aud": .array([.string("account")])], .wrongAudience),
            (["sub": .string("")], .noSubject),
            (["role": .string("admin")], .noRole),
        ])
    func brokenRules(changes: [String: ClaimValue], reason: TokenRejection.Reason) async throws {
        let signer = Signer(kid: "k1")
        await #expect(throws: TokenRejection(reason)) {
            try await verifier(signer).verify(try await signer.token(Self.claims(changes)), now: Self.now)
        }
    }

    @Test("within the leeway an expired token still passes; a token valid from a moment ago too")
    func leeway() async throws {
        let signer = Signer(kid: "k1")
        let token = try await signer.token(
            Self.claims(["exp": .number(Self.now.timeIntervalSince1970 - 30), "nbf": .number(Self.now.timeIntervalSince1970 + 30)]))
        #expect(try await verifier(signer).verify(token, now: Self.now).subject == "patient-1")
    }

    @Test("a token signed by another key is refused, even with the same kid")
    func otherKey() async throws {
        let trusted = Signer(kid: "k1")
        let forger = Signer(kid: "k1")
        await #expect(throws: TokenRejection(.badSignature)) {
            try await verifier(trusted).verify(try await forger.token(Self.claims()), now: Self.now)
        }
    }

    @Test("alg none and HS256 signed with the public key as secret are refused before any key is used (RFC 8725 §2.1)")
    func algorithmConfusion() async throws {
        let signer = Signer(kid: "k1")
        let verifier = try await verifier(signer)
        let payload = Data(try JSONEncoder().encode(ClaimValue.object(Self.claims()))).base64URL
        let none = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URL + "." + payload + "."
        await #expect(throws: TokenRejection(.malformed)) { try await verifier.verify(none, now: Self.now) }
        let noneSigned = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URL + "." + payload + ".c2ln"
        await #expect(throws: TokenRejection(.algorithmNotAllowed)) { try await verifier.verify(noneSigned, now: Self.now) }
        let hmacKeys = await JWTKeyCollection().add(hmac: HMACKey(from: signer.key.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "k1")
        let confused = try await hmacKeys.sign(TokenVerifier.Claims(Self.claims()), kid: "k1")
        await #expect(throws: TokenRejection(.algorithmNotAllowed)) { try await verifier.verify(confused, now: Self.now) }
    }

    @Test("garbage is malformed, not a crash")
    func malformed() async throws {
        let verifier = try await verifier(Signer(kid: "k1"))
        for garbage in ["", "abc", "a.b", "a.b.c.d", "!!!.???.***", "eyJhbGciOiJFUzI1NiJ9..sig"] {
            await #expect(throws: TokenRejection.self) { try await verifier.verify(garbage, now: Self.now) }
        }
    }

    @Test("RFC 7515 appendix A.3: its ES256 example verifies with its key, then is refused for its claims")
    func rfc7515Example() async throws {
        // The key and the JWS of RFC 7515 A.3, given a kid (the token has none, so every key is tried).
        let jwks =
            #"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "rfc7515", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#
        let token =
            "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        var rules = TokenRules(issuer: "joe", audience: "caretide")
        rules.leeway = 0
        let verifier = try await TokenVerifier(jwks: jwks, rules: rules)
        // Signature and issuer pass; the example has no audience.
        await #expect(throws: TokenRejection(.wrongAudience)) {
            try await verifier.verify(token, now: Date(timeIntervalSince1970: 1_300_819_379))
        }
        await #expect(throws: TokenRejection(.expired)) { try await verifier.verify(token, now: Date(timeIntervalSince1970: 1_300_819_380)) }
        let tampered = token.replacingOccurrences(of: "DtEhU3", with: "DtEhU4")
        await #expect(throws: TokenRejection(.badSignature)) { try await verifier.verify(tampered, now: Date(timeIntervalSince1970: 1_300_819_379)) }
    }
}

extension TokenVerifier.Claims {
    init(_ values: [String: ClaimValue]) { self.init(values: values) }
}

extension Data {
    var base64URL: String { Base64URL.encode(self) }
}
