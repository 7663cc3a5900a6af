internal import Foundation

/// Connection settings shared by ``KafkaProducer`` and ``KafkaConsumer``.
///
/// Parsed once at start-up, usually with ``fromEnvironment(_:)``. Secrets (SASL passwords, keys)
/// belong in the environment, never in code.
public struct KafkaConfiguration: Sendable {
    /// Comma-separated `host:port` list (librdkafka's `bootstrap.servers`). Always wins over a
    /// `bootstrap.servers` entry in ``properties``.
    public var bootstrapServers: String
    /// Extra librdkafka properties passed through verbatim (security.protocol, sasl.*, ssl.*, client.id, ...).
    public var properties: [String: String]

    public init(bootstrapServers: String, properties: [String: String] = [:]) {
        self.bootstrapServers = bootstrapServers
        self.properties = properties
    }

    /// The environment variable that holds ``bootstrapServers``.
    public static let brokersVariable = "KAFKA_BROKERS"

    /// `KAFKA_BROKERS` becomes ``bootstrapServers``; every other variable starting with `KAFKA_` becomes a
    /// librdkafka property: the prefix is stripped, the rest lowercased and `_` replaced by `.`
    /// (`KAFKA_SECURITY_PROTOCOL` -> `security.protocol`, `KAFKA_SASL_MECHANISMS` -> `sasl.mechanisms`,
    /// `KAFKA_SSL_CA_LOCATION` -> `ssl.ca.location`).
    ///
    /// - Throws: one ``KafkaError`` with code ``KafkaError/Code/configuration`` naming every bad key
    ///   (a missing or empty `KAFKA_BROKERS`, a bare `KAFKA_`).
    public static func fromEnvironment(_ env: [String: String]) throws -> KafkaConfiguration {
        let prefix = "KAFKA_"
        var problems: [String] = []
        var properties: [String: String] = [:]

        let brokers = env[brokersVariable]?.trimmingWhitespace() ?? ""
        if brokers.isEmpty {
            problems.append("\(brokersVariable) is missing or empty")
        }

        for (name, value) in env where name.hasPrefix(prefix) && name != brokersVariable {
            let suffix = name.dropFirst(prefix.count)
            guard !suffix.isEmpty else {
                problems.append("\(name) does not name a property")
                continue
            }
            properties[propertyName(forEnvironmentSuffix: suffix)] = value
        }

        guard problems.isEmpty else {
            throw KafkaError(
                code: .configuration,
                message: "Invalid Kafka environment: " + problems.sorted().joined(separator: "; ")
            )
        }
        return KafkaConfiguration(bootstrapServers: brokers, properties: properties)
    }

    static func propertyName(forEnvironmentSuffix suffix: Substring) -> String {
        String(suffix.lowercased().map { $0 == "_" ? "." : $0 })
    }

    /// The `KAFKA_*` variable that `fromEnvironment` reads as `property` (the reverse of `propertyName`).
    public static func environmentVariable(forProperty property: String) -> String {
        "KAFKA_" + property.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// The properties handed to librdkafka: caller properties, then `bootstrap.servers`.
    var librdkafkaProperties: [String: String] {
        var all = properties
        all["bootstrap.servers"] = bootstrapServers
        return all
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
