public import CaretideKafka
import Foundation

/// Reads a topic from the beginning with a consumer group of its own, as a downstream consumer would.
public final class KafkaProbe: Sendable {
    let consumer: KafkaConsumer

    public init(_ configuration: KafkaConfiguration, topic: String) throws {
        consumer = try KafkaConsumer(
            configuration: configuration, groupID: "probe-\(UUID().uuidString.prefix(8))", topics: [topic], logger: TestLogging.logger("probe"))
    }

    /// Collects messages until `count` have arrived (or fails after `timeout`).
    public func receive(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [IncomingMessage] {
        var received: [IncomingMessage] = []
        let deadline = ContinuousClock.now + timeout
        while received.count < count {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: "\(count) messages (got \(received.count))") }
            if let message = try await consumer.poll(timeout: .milliseconds(200)) { received.append(message) }
        }
        return received
    }

    /// Whatever arrives within `window` (to check that nothing more comes).
    public func drain(for window: Duration) async throws -> [IncomingMessage] {
        var received: [IncomingMessage] = []
        let deadline = ContinuousClock.now + window
        while ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(100)) { received.append(message) }
        }
        return received
    }

    public func close() async { await consumer.close() }
}
