public import CaretideKafka
import Foundation
public import Logging

/// What the Kafka adapter's tests share (CaretideKafkaTests, and the ones in SerialTests that take the embedded broker
/// down): a quiet logger, fresh names, bounded client settings, and bounded reads.
public enum KafkaTestSupport {
    /// Set `CARETIDE_KAFKA_TEST_LOG=debug` (or trace) to see the layer's logs.
    public static let logger: Logger = {
        var logger = Logger(label: "caretide.kafka.tests")
        let level = ProcessInfo.processInfo.environment["CARETIDE_KAFKA_TEST_LOG"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .warning
        return logger
    }()

    /// A topic (or group) name no other test uses.
    public static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    public static func configuration(_ broker: EmbeddedBroker, _ properties: [String: String] = [:]) -> KafkaConfiguration {
        // Bounded delivery so that a broken test fails instead of hanging.
        var all = ["message.timeout.ms": "5000"]
        all.merge(properties) { _, new in new }
        return KafkaConfiguration(bootstrapServers: broker.bootstrapServers, properties: all)
    }

    public static func consumerConfiguration(_ broker: EmbeddedBroker, _ properties: [String: String] = [:]) -> KafkaConfiguration {
        // librdkafka 2.0.2's mock coordinator waits a fixed 3 s on a group's first join and
        // `session.timeout.ms - 1 s` for members to rejoin after the last one left. The session must
        // outlast the 3 s first join (or the member times out while joining); 3.5 s keeps rejoins short.
        var all = ["session.timeout.ms": "3500", "heartbeat.interval.ms": "500"]
        all.merge(properties) { _, new in new }
        return KafkaConfiguration(bootstrapServers: broker.bootstrapServers, properties: all)
    }

    /// A new embedded broker with one fresh topic.
    public static func brokerWithTopic(_ prefix: String, partitions: Int) throws -> (EmbeddedBroker, String) {
        let broker = try EmbeddedBroker(logger: logger)
        let topic = uniqueName(prefix)
        try broker.createTopic(topic, partitions: partitions)
        return (broker, topic)
    }

    /// A consumer of `topic` in a group of its own.
    public static func consumer(of topic: String, on broker: EmbeddedBroker) throws -> KafkaConsumer {
        try KafkaConsumer(configuration: consumerConfiguration(broker), groupID: uniqueName("group"), topics: [topic], logger: logger)
    }

    /// A new embedded broker with one fresh topic, and a consumer of that topic in a fresh group.
    public static func consumerOnNewTopic(_ prefix: String, partitions: Int) throws -> (EmbeddedBroker, String, KafkaConsumer) {
        let (broker, topic) = try brokerWithTopic(prefix, partitions: partitions)
        return (broker, topic, try consumer(of: topic, on: broker))
    }

    public static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    public static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Reads exactly `count` messages, failing after `timeout`: a bound so a lost message fails the test rather than
    /// hanging it, generous because a fresh group's join takes seconds on a loaded machine (8 s timed out once under
    /// the whole suite on two cores).
    public static func receive(
        _ count: Int,
        from consumer: KafkaConsumer,
        timeout: Duration = .seconds(60)
    ) async throws -> [IncomingMessage] {
        try await withTimeout(timeout) {
            var received: [IncomingMessage] = []
            guard count > 0 else { return received }
            while received.count < count {
                received += try await consumer.pollBatch(maxMessages: count - received.count, timeout: .milliseconds(200))
            }
            return received
        }
    }
}

public struct TestTimeout: Error, CustomStringConvertible {
    public var duration: Duration
    public var description: String { "Timed out after \(duration)" }
}

/// Runs `operation`, throwing ``TestTimeout`` (and cancelling it) after `duration`.
public func withTimeout<T: Sendable>(
    _ duration: Duration,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: duration)
            throw TestTimeout(duration: duration)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
