import ArgumentParser
import CaretideIdentity
import CaretideLocalStack
import Foundation

/// The cost of authenticating one request against keys already loaded, as every API request does: the first request
/// with a token verifies its ES256 signature, then issuer, audience, expiry and role; later requests with the same
/// token check the claims again but not the signature. One core, one verification at a time.
struct AuthBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "auth", abstract: "Time to verify one bearer token, keys loaded, one core.")

    @Option(help: "Verifications timed.") var count = 20_000
    @Option(help: "Distinct tokens cycled through (distinct subjects, as many callers).") var tokens = 1_000

    func run() async throws {
        let issuer = TokenIssuer(keyID: "bench", issuer: "https://id.example/realms/caretide", audience: "caretide")
        let verifier = try await TokenVerifier(jwks: issuer.jwks, rules: issuer.rules)
        var minted: [String] = []
        for index in 0..<tokens {
            minted.append(try await issuer.token(for: Identity(subject: "patient-\(index)", role: .patient)))
        }
        // Warm up on tokens of their own: the first verifications load code.
        for index in 0..<200 {
            _ = try await verifier.verify(try await issuer.token(for: Identity(subject: "warm-\(index)", role: .patient)))
        }

        // First sight of each token: the ES256 signature is verified.
        let clock = ContinuousClock()
        var first: [Duration] = []
        for token in minted {
            let before = clock.now
            _ = try await verifier.verify(token)
            first.append(clock.now - before)
        }
        // Every later request with a token seen before: the rules run again, the signature is not re-verified.
        var again: [Duration] = []
        again.reserveCapacity(count)
        for index in 0..<count {
            let before = clock.now
            _ = try await verifier.verify(minted[index % minted.count])
            again.append(clock.now - before)
        }
        let (cold, warm) = (LatencySummary(first), LatencySummary(again))
        Console.write(
            """
            first request with a token (\(tokens) tokens; ES256 signature verified): \
            p50 \(cold.microseconds(0.5)), p90 \(cold.microseconds(0.9)), p99 \(cold.microseconds(0.99))
            later requests with the same tokens (\(count); identity remembered, times checked): \
            p50 \(warm.microseconds(0.5)), p90 \(warm.microseconds(0.9)), p99 \(warm.microseconds(0.99))

            """)
    }
}
