import Foundation
import Testing

@testable import CaretideIdentity

/// The activation code an institution hands its patient: its form, and the digest it is found by.
@Suite struct ActivationCodeTests {
    @Test("fifteen characters of Crockford's base32 in three groups, different each time")
    func form() {
        let code = ActivationCode.random()
        #expect(code.text.count == 17 && code.text.split(separator: "-").map(\.count) == [5, 5, 5])
        #expect(code.text.allSatisfy { $0 == "-" || "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains($0) })
        #expect(ActivationCode.random() != code)
    }

    @Test("what a person types finds the same digest: case, spaces, dashes and the letters read as digits do not matter")
    func typed() throws {
        let digest = try #require(ActivationCode.digest(of: "7KQ2M-HX4PR-9WD30"))
        #expect(ActivationCode.digest(of: "7kq2m hx4pr 9wd3o") == digest)
        #expect(ActivationCode.digest(of: "7KQ2MHX4PR9WD30") == digest)
        #expect(ActivationCode.digest(of: "7KQ2M-HX4PR-9WD31") != digest)
        #expect(digest.count == 32)
    }

    @Test("what cannot be a code has no digest: too short, too long, a character outside the alphabet, or a huge text")
    func notACode() {
        #expect(ActivationCode.digest(of: "7KQ2M-HX4PR-9WD3") == nil)
        #expect(ActivationCode.digest(of: "7KQ2M-HX4PR-9WD300") == nil)
        #expect(ActivationCode.digest(of: "7KQ2M-HX4PR-9WD3U") == nil)
        #expect(ActivationCode.digest(of: String(repeating: "-", count: 100) + "7KQ2MHX4PR9WD30") == nil)
    }
}
