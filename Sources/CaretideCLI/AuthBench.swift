import ArgumentParser
import CaretideIdentity
import Foundation

/// The cost of authenticating one request: verifying a bearer token (ES256 signature, then issuer, audience,
/// expiry and role) against keys already loaded, as every API request does. One core, one verification at a time.
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
        // Warm up: the first verifications load code and caches.
        for token in minted.prefix(200) { _ = try await verifier.verify(token) }

        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(count)
        var verified = 0
        let start = clock.now
        for index in 0..<count {
            let before = clock.now
            let identity = try await verifier.verify(minted[index % minted.count])
            samples.append(clock.now - before)
            verified += identity.subject.isEmpty ? 0 : 1
        }
        let elapsed = clock.now - start
        let summary = LatencySummary(samples)
        Console.write("""
            verified \(verified) ES256 tokens (\(tokens) distinct) in \(String(format: "%.2f", elapsed.seconds)) s: \
            \(Int(Double(count) / elapsed.seconds)) per second on one core
            per token: p50 \(summary.microseconds(0.5)), p90 \(summary.microseconds(0.9)), p99 \(summary.microseconds(0.99))

            """)
    }
}
