import CaretideIdentity
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import Testing

/// The operator commands, run as an operator would run them.
@Suite(.serialized) struct CLITests {
    @Test("caretide token mints a token the development JWKS verifies, reusing the key; bad arguments are named")
    func tokenCommand() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-token-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: state) }
        let caretide = Paths.executable("caretide").path
        let first = try await Subprocess.run(
            caretide,
            [
                "token", "--role", "institution", "--subject", "staff-1", "--institution", "st-mary",
                "--ttl", "10m", "--state-dir", state.path,
            ], environment: ProcessInfo.processInfo.environment)
        #expect(first.status == 0, "\(first.output)")
        let second = try await Subprocess.run(
            caretide,
            [
                "token", "--role", "service", "--subject", "lab-feed", "--scope", "patients:read",
                "--state-dir", state.path,
            ], environment: ProcessInfo.processInfo.environment)
        #expect(second.status == 0)
        let jwks = try String(contentsOf: TokenIssuer.jwksFile(in: state), encoding: .utf8)
        let verifier = try await TokenVerifier(
            jwks: jwks, rules: TokenRules(issuer: TokenIssuer.developmentIssuer, audience: TokenIssuer.developmentAudience))
        // Both tokens verify against the one key the directory holds.
        let staff = try await verifier.verify(first.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(staff == Identity(subject: "staff-1", role: .institution, institutionID: "st-mary"))
        let service = try await verifier.verify(second.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(service.scopes == ["patients:read"])
        let mode =
            try FileManager.default.attributesOfItem(atPath: state.appendingPathComponent("jwt-signing-key.pem").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let bad = try await Subprocess.run(
            caretide, ["token", "--role", "institution", "--subject", "x", "--state-dir", state.path],
            environment: ProcessInfo.processInfo.environment)
        #expect(bad.status != 0)
        #expect(bad.output.contains("--institution"))
    }

    @Test("caretide migrate brings every service schema up to date, and is idempotent")
    func migrateCommand() async throws {
        let database = try await TestPostgres.freshDatabase()
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = database.url
        let first = try await Subprocess.run(Paths.executable("caretide").path, ["migrate"], environment: environment)
        #expect(first.status == 0, "\(first.output)")
        #expect(
            first.output.contains(
                "scoring: applied caretide/1 outbox and processed events, caretide/2 parked messages and outbox rows, identity/1 care-team grants and access audit, identity/2 idempotency keys, identity/3 inbound messages applied, identity/4 the media type of kept answers, identity/5 erased patients, scoring/1 blood pressure assessments, scoring/2 assessments of every kind, care-tracking flags"
            ), "\(first.output)")
        let second = try await Subprocess.run(Paths.executable("caretide").path, ["migrate"], environment: environment)
        #expect(second.output.components(separatedBy: "up to date").count - 1 == 4)

        environment["DATABASE_URL"] = nil
        let missing = try await Subprocess.run(Paths.executable("caretide").path, ["migrate"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.output.contains("DATABASE_URL is missing"))
    }

    @Test("caretide hpo import stores full and minimum releases as new versions and keeps the newest ones")
    func hpoImportCommand() async throws {
        let database = try await TestPostgres.freshDatabase()
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = database.url
        let fixtures = Paths.packageRoot.appendingPathComponent("Tests/PhenotypeRankingTests/Fixtures").path
        let caretide = Paths.executable("caretide").path
        let full = try await Subprocess.run(
            caretide, ["hpo", "import", "--directory", fixtures, "--samples", "500", "--symmetric-samples", "200", "--json"], environment: environment
        )
        #expect(full.status == 0, "\(full.output)")
        let report = try #require(
            full.output.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])
        #expect((report["release"] as? [String: Any])?["releaseId"] as? Int == 1)
        #expect(report["diseaseCount"] as? Int == 12 && report["termCount"] as? Int == 59)

        let minimum = try await Subprocess.run(
            caretide, ["hpo", "import", "--ontology", fixtures + "/hp.obo", "--minimum", "--keep", "1"], environment: environment)
        #expect(minimum.status == 0, "\(minimum.output)")
        #expect(minimum.output.contains("release 2 (minimum)") && minimum.output.contains("59 terms, 0 diseases"))
        let diagnosis = Database(configuration: database, schema: "diagnosis", logger: TestLogging.logger("sql"))
        let kept = try await diagnosis.whileRunning {
            try await diagnosis.client.fetchAll("SELECT release_id FROM releases", as: Int.self, logger: TestLogging.logger("sql"))
        }
        #expect(kept == [2])

        let missing = try await Subprocess.run(caretide, ["hpo", "import", "--directory", "/nonexistent"], environment: environment)
        #expect(missing.status != 0 && missing.output.contains("cannot read /nonexistent/hp.obo"))
    }
}
