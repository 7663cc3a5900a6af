import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideStore
import CaretideTestSupport
import Foundation
import ScoringService
import ServiceLifecycle
import Testing

@Suite(.serialized) struct StartupTests {
    @Test("with the database unreachable the service stays up, healthy but not ready, and stops cleanly")
    func databaseUnreachableAtStart() async throws {
        let broker = try EmbeddedBroker(logger: TestLogging.logger("broker"))
        let nowhere = DatabaseConfiguration(host: "127.0.0.1", port: try FreePort.find(), username: "caretide", database: "caretide")
        let configuration = ServiceConfiguration(
            serviceName: ScoringService.name, httpPort: 0, database: nowhere,
            kafka: KafkaConfiguration(bootstrapServers: broker.bootstrapServers, properties: TestStack.consumerProperties),
            auth: try await TestIdentity.shared.configuration())
        let assembly = try await ServiceAssembly(
            definition: ScoringService.definition, configuration: configuration, logger: TestLogging.logger("scoring"), signals: false)
        try await withRunning(assembly) {
            let base = "http://127.0.0.1:\(try await assembly.boundPort.wait())"

            #expect(try await HTTP.get(base + "/healthz").status == 200)
            let ready = try await HTTP.get(base + "/readyz")
            #expect(ready.status == 503)
            let checks = try #require((try ready.json() as? [String: Any])?["checks"] as? [String: Bool])
            #expect(checks["database"] == false)
            #expect(checks["migrated"] == false)
            #expect(checks["broker"] == true)
            // Still retrying, not crash-looping: a listener on the database's port sees the service's next attempts (it
            // closes each at once, so the database stays unusable), and the service is still healthy after them.
            let database = try ConnectionCounter(port: nowhere.port)
            #expect(try await database.waitForConnections(2), "the service tries the database again")
            #expect(try await HTTP.get(base + "/healthz").status == 200)
            #expect(try await HTTP.get(base + "/readyz").status == 503)
        }
    }

    @Test("a service with missing configuration names every bad variable and exits 78")
    func configurationErrorsAreReportedTogether() async throws {
        let result = try await Subprocess.run(
            Paths.executable("ingest-service").path, [], environment: ["HTTP_PORT": "eighty", "LOG_LEVEL": "loud", "PATH": "/usr/bin:/bin"])
        #expect(result.status == 78)
        for variable in [
            "DATABASE_URL", "KAFKA_BROKERS", "HTTP_PORT", "LOG_LEVEL", "AUTH_JWKS_FILE or AUTH_JWKS_URL", "AUTH_ISSUER", "AUTH_AUDIENCE",
        ] {
            #expect(result.output.contains(variable), "the error should name \(variable)")
        }
        #expect(!result.output.contains("Fatal error"))
    }

    @Test("a service's own variables are checked with the runtime's: every problem named at once, exit 78")
    func serviceVariablesAreReportedWithTheRest() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-tips-\(UUID())")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try Data("[1]".utf8).write(to: empty.appendingPathComponent("pt-BR.json"))
        defer { try? FileManager.default.removeItem(at: empty) }
        let scoring = try await Subprocess.run(
            Paths.executable("scoring-service").path, [], environment: ["TIP_TRANSLATIONS_DIR": empty.path, "PATH": "/usr/bin:/bin"])
        #expect(scoring.status == 78)
        for named in ["TIP_TRANSLATIONS_DIR: pt-BR.json is not a JSON object", "DATABASE_URL", "KAFKA_BROKERS"] {
            #expect(scoring.output.contains(named), "\(named): \(scoring.output)")
        }
        let notification = try await Subprocess.run(
            Paths.executable("notification-service").path, [], environment: ["REMINDER_CHECK_INTERVAL_SECONDS": "0", "PATH": "/usr/bin:/bin"])
        #expect(notification.status == 78)
        for named in ["REMINDER_CHECK_INTERVAL_SECONDS", "DATABASE_URL"] {
            #expect(notification.output.contains(named), "\(named): \(notification.output)")
        }
    }

    @Test("a JWKS file that cannot be read or holds no usable key stops the service with 78, naming the variable")
    func unreadableKeysAreAConfigurationError() async throws {
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("caretide-garbage-jwks-\(UUID()).json")
        try Data(#"{"keys": [{"kty": "EC"}]}"#.utf8).write(to: garbage)
        defer { try? FileManager.default.removeItem(at: garbage) }
        for file in ["/nonexistent/jwks.json", garbage.path] {
            let result = try await Subprocess.run(
                Paths.executable("ingest-service").path, [],
                environment: [
                    "DATABASE_URL": "postgres://caretide@127.0.0.1:1/caretide", "KAFKA_BROKERS": "127.0.0.1:1", "PATH": "/usr/bin:/bin",
                    "AUTH_JWKS_FILE": file, "AUTH_ISSUER": "https://id.example", "AUTH_AUDIENCE": "caretide",
                ])
            #expect(result.status == 78, "\(file): \(result.output)")
            #expect(result.output.contains("AUTH_JWKS_FILE"))
        }
    }

    @Test("a migration the database refuses stops the service with the error instead of leaving it unready forever")
    func failedMigrationStopsTheService() async throws {
        let broker = try EmbeddedBroker(logger: TestLogging.logger("broker"))
        let broken = ServiceDefinition(
            name: "broken-service", schema: "broken",
            migrations: MigrationTrack(
                name: "broken", migrations: [Migration(version: 1, name: "refused", statements: ["SELECT * FROM no_such_table"])]))
        let configuration = ServiceConfiguration(
            serviceName: broken.name, httpPort: 0, database: try await TestPostgres.freshDatabase(),
            kafka: KafkaConfiguration(bootstrapServers: broker.bootstrapServers, properties: TestStack.consumerProperties),
            auth: try await TestIdentity.shared.configuration())
        let assembly = try await ServiceAssembly(
            definition: broken, configuration: configuration, logger: TestLogging.logger("broken"), signals: false)
        await #expect(throws: (any Error).self) { try await assembly.group.run() }
    }
}
