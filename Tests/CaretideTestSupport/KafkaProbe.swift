public import CaretideKafka
import Foundation
import Testing

/// Reads a topic from the beginning with a consumer group of its own, as a downstream consumer would. Every wait is
/// bounded from outside (`bounded`), so a consumer whose poll or close never returns fails the test naming the topic.
public final class KafkaProbe: Sendable {
    let consumer: KafkaConsumer
    let topic: String

    public init(_ configuration: KafkaConfiguration, topic: String) throws {
        self.topic = topic
        consumer = try KafkaConsumer(
            configuration: configuration, groupID: "probe-\(UUID().uuidString.prefix(8))", topics: [topic], logger: TestLogging.logger("probe"))
    }

    /// Collects messages until `count` have arrived (or fails after `timeout`).
    public func receive(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [IncomingMessage] {
        let (consumer, topic) = (self.consumer, self.topic)
        let received = Recorder<IncomingMessage>()
        return try await bounded(within: timeout, waitingFor: { "\(count) messages on \(topic) (got \(received.values.count))" }) {
            while received.values.count < count {
                try Task.checkCancellation()
                if let message = try await consumer.poll(timeout: .milliseconds(200)) { received.append(message) }
            }
            return received.values
        }
    }

    /// Whatever arrives within `window` (to check that nothing more comes).
    public func drain(for window: Duration) async throws -> [IncomingMessage] {
        let (consumer, topic) = (self.consumer, self.topic)
        return try await bounded(within: window + .seconds(60), waitingFor: { "a drain of \(topic) for \(window) to end" }) {
            var received: [IncomingMessage] = []
            let deadline = ContinuousClock.now + window
            while ContinuousClock.now < deadline {
                if let message = try await consumer.poll(timeout: .milliseconds(100)) { received.append(message) }
            }
            return received
        }
    }

    /// Closes the consumer. The consumer gives closing up by itself a little after its session timeout; should even
    /// that not return, the test gets an issue naming the topic instead of waiting for ever.
    public func close() async {
        let (consumer, topic) = (self.consumer, self.topic)
        do {
            try await bounded(within: .seconds(60), waitingFor: { "the probe of \(topic) to close" }) { await consumer.close() }
        } catch {
            Issue.record(error)
        }
    }
}
