public import CaretideIdentity
public import CaretideKafka
public import CaretideStore
import Foundation
public import Logging

/// Everything a service reads from its environment, parsed once at start-up.
///
/// | Variable | Meaning | Default |
/// |---|---|---|
/// | `DATABASE_URL` | `postgres://user:password@host:port/database?sslmode=disable` | required |
/// | `KAFKA_BROKERS` | bootstrap servers, `host:port[,host:port]` | required |
/// | `KAFKA_*` | any other librdkafka property: `KAFKA_SECURITY_PROTOCOL` → `security.protocol` | none; the producer's `KAFKA_LINGER_MS` 10, `KAFKA_MESSAGE_TIMEOUT_MS` 60000 |
/// | `HTTP_HOST` | address the HTTP server binds | `0.0.0.0` |
/// | `HTTP_PORT` | port of the API, `/healthz`, `/readyz`, `/metrics` | per service |
/// | `METRICS_PORT` | a port of its own for `/metrics` | unset: `HTTP_PORT` |
/// | `LOG_LEVEL` | trace, debug, info, notice, warning, error, critical | `info` |
/// | `AUTH_*` | the identity provider's keys and token rules (`AuthConfiguration`); `AUTH_DISABLED=1` turns authentication off | required |
/// | `TRUSTED_PROXIES` | the proxies whose `X-Forwarded-For` names the client: addresses and networks, `10.0.0.0/8, fd00::/8` (`TrustedProxies`) | none: the peer is the client |
/// | `CARETIDE_EXIT_WITH_PARENT` | `1`: stop when the parent process goes (set by `caretide dev`) | off |
/// | `STALL_THRESHOLD_SECONDS`, `DATABASE_TRANSACTION_TIMEOUT_SECONDS`, `DATABASE_STATEMENT_TIMEOUT_SECONDS`, `DEAD_LETTER_PUBLISH_DEADLINE_SECONDS`, `HTTP_IDLE_TIMEOUT_SECONDS`, `CONSUMER_LANES`, `CONSUMER_BATCH_WINDOW_MS`, `GROUP_COMMIT_WINDOW_MS`, `PROCESSED_EVENTS_RETENTION_DAYS` | see `RuntimeLimits` | 60, 30, 120, 30, 30, 2, 50, 3, 60 |
public struct ServiceConfiguration: Sendable {
    public var serviceName: String
    public var httpHost: String
    public var httpPort: Int
    /// A port of its own for `/metrics` (nil: served on `httpPort` with the API).
    public var metricsPort: Int?
    public var database: DatabaseConfiguration
    public var kafka: KafkaConfiguration
    public var logLevel: Logger.Level
    public var exitWithParent: Bool
    public var limits: RuntimeLimits = RuntimeLimits()
    /// The proxies in front of the service, whose `X-Forwarded-For` names the client.
    public var trustedProxies: TrustedProxies = .none
    /// Who may call: there is no default, so a deployment says so even to turn it off.
    public var auth: AuthConfiguration

    public init(
        serviceName: String, httpHost: String = "127.0.0.1", httpPort: Int, database: DatabaseConfiguration,
        kafka: KafkaConfiguration, auth: AuthConfiguration, logLevel: Logger.Level = .info, exitWithParent: Bool = false
    ) {
        self.auth = auth
        self.serviceName = serviceName
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.database = database
        self.kafka = kafka
        self.logLevel = logLevel
        self.exitWithParent = exitWithParent
    }

    /// Reads the configuration, or throws one error naming every missing or invalid variable.
    public static func fromEnvironment(
        _ environment: [String: String], serviceName: String, defaultPort: Int
    ) throws(InvalidConfiguration) -> ServiceConfiguration {
        var problems: [String] = []

        var database: DatabaseConfiguration?
        if let url = environment["DATABASE_URL"], !url.isEmpty {
            do {
                database = try DatabaseConfiguration(url: url)
            } catch {
                problems.append("DATABASE_URL \(error.message)")
            }
        } else {
            problems.append("DATABASE_URL is missing (e.g. postgres://caretide@127.0.0.1:5432/caretide)")
        }

        var kafka: KafkaConfiguration?
        if let brokers = environment["KAFKA_BROKERS"], !brokers.isEmpty {
            kafka = try? KafkaConfiguration.fromEnvironment(environment)
            if kafka == nil { problems.append("KAFKA_* variables do not form a valid Kafka configuration") }
        } else {
            problems.append("KAFKA_BROKERS is missing (e.g. 127.0.0.1:9092)")
        }

        var port = defaultPort
        if let text = environment["HTTP_PORT"] {
            if let value = Int(text), (0...65535).contains(value) {
                port = value
            } else {
                problems.append("HTTP_PORT must be a port number from 0 to 65535")
            }
        }

        var metricsPort: Int?
        if let text = environment["METRICS_PORT"] {
            if let value = Int(text), (0...65535).contains(value), value != port || value == 0 {
                metricsPort = value
            } else {
                problems.append("METRICS_PORT must be a port number from 0 to 65535, other than HTTP_PORT")
            }
        }

        var level = Logger.Level.info
        if let text = environment["LOG_LEVEL"] {
            if let value = Logger.Level(rawValue: text.lowercased()) {
                level = value
            } else {
                problems.append("LOG_LEVEL must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        var limits = RuntimeLimits()
        func seconds(_ name: String, into value: inout Duration) {
            guard let text = environment[name] else { return }
            if let number = Double(text), number > 0, number <= 86_400 {
                value = .milliseconds(Int64(number * 1000))
            } else {
                problems.append("\(name) must be a number of seconds above 0 and at most 86400")
            }
        }
        seconds("STALL_THRESHOLD_SECONDS", into: &limits.stallThreshold)
        seconds("DATABASE_TRANSACTION_TIMEOUT_SECONDS", into: &limits.transactionTimeout)
        seconds("DEAD_LETTER_PUBLISH_DEADLINE_SECONDS", into: &limits.deadLetterPublishDeadline)
        seconds("HTTP_IDLE_TIMEOUT_SECONDS", into: &limits.httpIdleTimeout)
        if let text = environment["CONSUMER_LANES"] {
            if let lanes = Int(text), (1...64).contains(lanes) {
                limits.consumerLanes = lanes
            } else {
                problems.append("CONSUMER_LANES must be a whole number from 1 to 64")
            }
        }
        if let text = environment["CONSUMER_BATCH_WINDOW_MS"] {
            if let milliseconds = Int(text), (0...1000).contains(milliseconds) {
                limits.consumerBatchWindow = .milliseconds(milliseconds)
            } else {
                problems.append("CONSUMER_BATCH_WINDOW_MS must be a whole number from 0 to 1000")
            }
        }
        if let text = environment["GROUP_COMMIT_WINDOW_MS"] {
            if let milliseconds = Int(text), (0...100).contains(milliseconds) {
                limits.groupCommitWindow = .milliseconds(milliseconds)
            } else {
                problems.append("GROUP_COMMIT_WINDOW_MS must be a whole number from 0 to 100")
            }
        }
        if let text = environment["PROCESSED_EVENTS_RETENTION_DAYS"] {
            if let days = Int(text), (1...36_500).contains(days) {
                limits.processedEventRetention = .seconds(days * 86_400)
            } else {
                problems.append("PROCESSED_EVENTS_RETENTION_DAYS must be a whole number of days from 1 to 36500")
            }
        }
        var statementTimeout = Duration.seconds(120)
        seconds("DATABASE_STATEMENT_TIMEOUT_SECONDS", into: &statementTimeout)

        var trustedProxies = TrustedProxies.none
        if let text = environment["TRUSTED_PROXIES"], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            if let parsed = TrustedProxies(parsing: text) {
                trustedProxies = parsed
            } else {
                problems.append("TRUSTED_PROXIES must be addresses or networks separated by commas (e.g. 10.0.0.0/8, 192.168.1.7, fd00::/8)")
            }
        }

        var auth: AuthConfiguration?
        switch AuthConfiguration.fromEnvironment(environment) {
        case .success(let configuration): auth = configuration
        case .failure(let failure): problems += failure.problems
        }

        guard problems.isEmpty, var database, let kafka, let auth else { throw InvalidConfiguration(problems: problems) }
        database.statementTimeout = statementTimeout
        var configuration = ServiceConfiguration(
            serviceName: serviceName, httpHost: environment["HTTP_HOST"] ?? "0.0.0.0", httpPort: port, database: database,
            kafka: kafka, auth: auth, logLevel: level, exitWithParent: environment["CARETIDE_EXIT_WITH_PARENT"] == "1")
        configuration.limits = limits
        configuration.metricsPort = metricsPort
        configuration.trustedProxies = trustedProxies
        return configuration
    }
}

/// The configuration could not be read; `problems` names each variable and what is wrong with it.
public struct InvalidConfiguration: Error, CustomStringConvertible, Sendable {
    public let problems: [String]
    public init(problems: [String]) { self.problems = problems }
    public var description: String { "invalid configuration:\n" + problems.map { "  - \($0)" }.joined(separator: "\n") }
}
