import CaretideIdentity
import CaretideKafka
import CaretideStore
import Foundation
import Logging
import Testing

@testable import CaretideRuntime

@Suite struct ServiceConfigurationTests {
    @Test func readsACompleteEnvironment() throws {
        let configuration = try ServiceConfiguration.fromEnvironment(
            [
                "DATABASE_URL": "postgres://caretide:pw@db:5432/caretide", "KAFKA_BROKERS": "k1:9092,k2:9092",
                "KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISMS": "SCRAM-SHA-512", "HTTP_PORT": "9000", "LOG_LEVEL": "DEBUG",
                "AUTH_JWKS_URL": "https://id.example/realms/caretide/protocol/openid-connect/certs",
                "AUTH_ISSUER": "https://id.example/realms/caretide",
                "AUTH_AUDIENCE": "caretide", "AUTH_ROLE_CLAIM": "realm_access.roles",
            ], serviceName: "scoring-service", defaultPort: 8081)
        #expect(configuration.httpPort == 9000)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.database.host == "db")
        #expect(configuration.kafka.bootstrapServers == "k1:9092,k2:9092")
        #expect(configuration.kafka.properties["security.protocol"] == "SASL_SSL")
        #expect(configuration.kafka.properties["sasl.mechanisms"] == "SCRAM-SHA-512")
        #expect(configuration.exitWithParent == false)
        guard case .tokens(.url(let url, _), let rules) = configuration.auth else {
            Issue.record("no token configuration")
            return
        }
        #expect(url.host == "id.example")
        #expect(rules.roleClaim == "realm_access.roles")
    }

    @Test func defaultsApply() throws {
        let configuration = try ServiceConfiguration.fromEnvironment(
            ["DATABASE_URL": "postgres://u@h/db", "KAFKA_BROKERS": "k:9092", "AUTH_DISABLED": "1"], serviceName: "ingest-service", defaultPort: 8080)
        #expect(configuration.httpPort == 8080)
        #expect(configuration.httpHost == "0.0.0.0")
        #expect(configuration.logLevel == .info)
        #expect(configuration.auth == .disabled)
        #expect(configuration.metricsPort == nil)
    }

    @Test("the producer's client id, message timeout and linger are defaults a deployment's KAFKA_* variables override")
    func producerDefaults() throws {
        let plain = ServiceParts.producerConfiguration(KafkaConfiguration(bootstrapServers: "k:9092"), name: "scoring-service")
        #expect(plain.properties == ["client.id": "scoring-service", "message.timeout.ms": "60000", "linger.ms": "10"])
        let chosen = try KafkaConfiguration.fromEnvironment(["KAFKA_BROKERS": "k:9092", "KAFKA_LINGER_MS": "0", "KAFKA_CLIENT_ID": "blue"])
        let configured = ServiceParts.producerConfiguration(chosen, name: "scoring-service")
        #expect(configured.properties == ["client.id": "blue", "message.timeout.ms": "60000", "linger.ms": "0"])
        #expect(configured.bootstrapServers == "k:9092")
        let aliased = try KafkaConfiguration.fromEnvironment(
            ["KAFKA_BROKERS": "k:9092", "KAFKA_QUEUE_BUFFERING_MAX_MS": "1", "KAFKA_DELIVERY_TIMEOUT_MS": "30000"])
        #expect(
            ServiceParts.producerConfiguration(aliased, name: "scoring-service").properties == [
                "client.id": "scoring-service", "queue.buffering.max.ms": "1", "delivery.timeout.ms": "30000",
            ])
    }

    @Test("METRICS_PORT moves /metrics to a port of its own; the API's port is refused")
    func metricsPort() throws {
        let base = ["DATABASE_URL": "postgres://u@h/db", "KAFKA_BROKERS": "k:9092", "AUTH_DISABLED": "1", "HTTP_PORT": "8080"]
        #expect(
            try ServiceConfiguration.fromEnvironment(base.merging(["METRICS_PORT": "9464"]) { $1 }, serviceName: "s", defaultPort: 1).metricsPort
                == 9464)
        #expect(throws: InvalidConfiguration.self) {
            try ServiceConfiguration.fromEnvironment(base.merging(["METRICS_PORT": "8080"]) { $1 }, serviceName: "s", defaultPort: 1)
        }
    }

    @Test("one error names every missing or invalid variable")
    func reportsEveryProblemAtOnce() {
        do {
            _ = try ServiceConfiguration.fromEnvironment(["HTTP_PORT": "70000", "LOG_LEVEL": "loud"], serviceName: "x", defaultPort: 1)
            Issue.record("accepted an empty environment")
        } catch {
            // Three of them about authentication: where the keys are, the issuer, the audience.
            #expect(error.problems.count == 7)
            for variable in [
                "DATABASE_URL", "KAFKA_BROKERS", "HTTP_PORT", "LOG_LEVEL", "AUTH_JWKS_FILE or AUTH_JWKS_URL", "AUTH_ISSUER", "AUTH_AUDIENCE",
                "AUTH_DISABLED=1",
            ] {
                #expect(error.description.contains(variable))
            }
        }
    }

    @Test func invalidDatabaseURLIsNamedWithoutItsPassword() {
        do {
            _ = try ServiceConfiguration.fromEnvironment(
                ["DATABASE_URL": "postgres://user:hunter2@/db", "KAFKA_BROKERS": "k:9092"], serviceName: "x", defaultPort: 1)
            Issue.record("accepted a URL without host")
        } catch {
            #expect(error.description.contains("DATABASE_URL"))
            #expect(!error.description.contains("hunter2"))
        }
    }
}

@Suite struct BackoffTests {
    @Test func doublesUpToTheCeilingAndResets() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(700))
        #expect(
            (0..<5).map { _ in backoff.next() } == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(700), .milliseconds(700),
            ])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(100))
    }

    @Test func retriesTransientFailuresOnly() async throws {
        struct Transient: Error {}
        struct Permanent: Error {}
        var attempts = 0
        let value = try await retrying(backoff: Backoff(initial: .milliseconds(1)), isTransient: { $0 is Transient }, onRetry: { _, _ in }) {
            attempts += 1
            if attempts < 3 { throw Transient() }
            return attempts
        }
        #expect(value == 3)
        await #expect(throws: Permanent.self) {
            try await retrying(isTransient: { $0 is Transient }, onRetry: { _, _ in }) { () async throws -> Int in throw Permanent() }
        }
    }

    @Test("the limits that bound waits and stalls are read (in seconds, the batch window in milliseconds), and a bad one is named")
    func readsTheLimits() throws {
        let base = ["DATABASE_URL": "postgres://caretide@db/caretide", "KAFKA_BROKERS": "k:9092", "AUTH_DISABLED": "1"]
        let configuration = try ServiceConfiguration.fromEnvironment(
            base.merging([
                "STALL_THRESHOLD_SECONDS": "5", "DATABASE_TRANSACTION_TIMEOUT_SECONDS": "2.5", "HTTP_IDLE_TIMEOUT_SECONDS": "1",
                "DEAD_LETTER_PUBLISH_DEADLINE_SECONDS": "3", "DATABASE_STATEMENT_TIMEOUT_SECONDS": "7", "CONSUMER_LANES": "3",
                "CONSUMER_BATCH_WINDOW_MS": "20", "GROUP_COMMIT_WINDOW_MS": "7", "PROCESSED_EVENTS_RETENTION_DAYS": "45",
            ]) { $1 }, serviceName: "scoring-service", defaultPort: 8081)
        #expect(configuration.limits.stallThreshold == .seconds(5))
        #expect(configuration.limits.transactionTimeout == .milliseconds(2500))
        #expect(configuration.limits.httpIdleTimeout == .seconds(1))
        #expect(configuration.limits.deadLetterPublishDeadline == .seconds(3))
        #expect(configuration.database.statementTimeout == .seconds(7))
        #expect(configuration.limits.consumerLanes == 3)
        #expect(configuration.limits.consumerBatchWindow == .milliseconds(20))
        #expect(configuration.limits.groupCommitWindow == .milliseconds(7))
        #expect(configuration.limits.processedEventRetention == .seconds(45 * 86_400))
        let withoutWindow = try ServiceConfiguration.fromEnvironment(
            base.merging(["CONSUMER_BATCH_WINDOW_MS": "0"]) { $1 }, serviceName: "s", defaultPort: 1)
        #expect(withoutWindow.limits.consumerBatchWindow == .zero)
        #expect(try ServiceConfiguration.fromEnvironment(base, serviceName: "s", defaultPort: 1).limits == RuntimeLimits())
        #expect(throws: InvalidConfiguration.self) {
            try ServiceConfiguration.fromEnvironment(base.merging(["STALL_THRESHOLD_SECONDS": "-1"]) { $1 }, serviceName: "s", defaultPort: 1)
        }
        for window in ["-1", "1001", "2.5", "soon"] {
            #expect(throws: InvalidConfiguration.self) {
                try ServiceConfiguration.fromEnvironment(
                    base.merging(["CONSUMER_BATCH_WINDOW_MS": window]) { $1 }, serviceName: "s", defaultPort: 1)
            }
        }
        for window in ["-1", "101", "0.5"] {
            #expect(throws: InvalidConfiguration.self) {
                try ServiceConfiguration.fromEnvironment(base.merging(["GROUP_COMMIT_WINDOW_MS": window]) { $1 }, serviceName: "s", defaultPort: 1)
            }
        }
        for days in ["0", "36501", "1.5", "month"] {
            #expect(throws: InvalidConfiguration.self) {
                try ServiceConfiguration.fromEnvironment(
                    base.merging(["PROCESSED_EVENTS_RETENTION_DAYS": days]) { $1 }, serviceName: "s", defaultPort: 1)
            }
        }
        for lanes in ["0", "65", "two"] {
            #expect(throws: InvalidConfiguration.self) {
                try ServiceConfiguration.fromEnvironment(base.merging(["CONSUMER_LANES": lanes]) { $1 }, serviceName: "s", defaultPort: 1)
            }
        }
    }

    @Test func trustedProxiesAreNoneUnlessNamedAndMustParse() throws {
        let base = ["DATABASE_URL": "postgres://u@h/db", "KAFKA_BROKERS": "k:9092", "AUTH_DISABLED": "1"]
        #expect(try ServiceConfiguration.fromEnvironment(base, serviceName: "s", defaultPort: 1).trustedProxies.isEmpty)
        #expect(
            try ServiceConfiguration.fromEnvironment(base.merging(["TRUSTED_PROXIES": " "]) { $1 }, serviceName: "s", defaultPort: 1).trustedProxies
                .isEmpty)
        let named = try ServiceConfiguration.fromEnvironment(
            base.merging(["TRUSTED_PROXIES": "10.0.0.0/8"]) { $1 }, serviceName: "s", defaultPort: 1)
        #expect(named.trustedProxies.trusts("10.4.0.1") && !named.trustedProxies.trusts("11.4.0.1"))
        #expect(throws: InvalidConfiguration.self) {
            try ServiceConfiguration.fromEnvironment(base.merging(["TRUSTED_PROXIES": "ingress"]) { $1 }, serviceName: "s", defaultPort: 1)
        }
    }
}
