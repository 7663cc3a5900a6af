import CaretideKafka
import CaretideTestSupport
import Foundation
import Testing

/// Runs alone (SerialTests): each test takes its embedded broker down, which re-binds the librdkafka mock broker's port
/// at once, and the mock aborts the whole test process if another test's socket took the port in between.
@Suite struct BrokerFaultTests {
    /// librdkafka keeps retrying while the leader is unreachable and fails the message only when
    /// `message.timeout.ms` expires (`_MSG_TIMED_OUT`, retriable). Once the broker is back, sends succeed.
    @Test func sendFailsAfterMessageTimeoutWhileBrokerIsDownAndRecovers() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("down", partitions: 1)
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.configuration(broker, ["message.timeout.ms": "1500", "reconnect.backoff.max.ms": "200"]),
            logger: KafkaTestSupport.logger
        )
        try await producer.send(OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("before")))

        broker.setAllBrokersDown()
        await #expect {
            try await withTimeout(.seconds(8)) {
                try await producer.send(OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("while down")))
            }
        } throws: { error in
            guard let error = error as? KafkaError else { return false }
            return error.code == .delivery && error.isRetriable && error.librdkafkaErrorName == "_MSG_TIMED_OUT"
        }

        broker.setAllBrokersUp()
        // The producer reconnects on its own schedule; a send that times out before it has is retried, as a caller would.
        try await eventually("a send succeeds once the broker is back") {
            do {
                try await producer.send(OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("after")))
                return true
            } catch let error as KafkaError where error.isRetriable {
                return false
            }
        }
        await producer.shutdown()
    }

    /// A send issued while the broker is down waits (librdkafka retries) and succeeds when it comes
    /// back within `message.timeout.ms`.
    @Test func sendWaitsWhileBrokerIsDownAndSucceedsWhenItIsBackUp() async throws {
        let broker = try EmbeddedBroker(brokerCount: 1, logger: KafkaTestSupport.logger)
        let topic = KafkaTestSupport.uniqueName("down-up")
        try broker.createTopic(topic, partitions: 1)
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.configuration(broker, ["message.timeout.ms": "8000", "reconnect.backoff.max.ms": "200"]),
            logger: KafkaTestSupport.logger
        )
        try await producer.send(OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("before")))

        broker.setBrokerDown(1)
        let pending = Task {
            try await producer.send(OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("during")))
        }
        try await Task.sleep(for: .milliseconds(700))
        broker.setBrokerUp(1)
        try await withTimeout(.seconds(9)) { try await pending.value }
        await producer.shutdown()

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        let received = try await KafkaTestSupport.receive(2, from: consumer)
        await consumer.close()
        #expect(received.map { KafkaTestSupport.text($0.value) } == ["before", "during"])
    }
}

/// Runs alone (SerialTests) with the broker faults above, as this file always has: kcat, a process of its own, talks to
/// the embedded broker over the wire.
@Suite struct KcatInteroperabilityTests {
    @Test func kcatReadsWhatOurProducerSent() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("to-kcat", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        try await producer.send(
            OutgoingMessage(
                topic: topic,
                key: "patient-7",
                value: KafkaTestSupport.bytes(#"{"systolic":141}"#),
                headers: ["event-type": "vital.recorded"]
            ))
        await producer.shutdown()

        let result = try await runProcess(["kcat", "-C", "-b", broker.bootstrapServers, "-t", topic, "-c", "1", "-e", "-J", "-q"])
        #expect(result.status == 0, "kcat failed: \(result.standardError)")
        let line = try #require(result.standardOutput.split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["topic"] as? String == topic)
        #expect(json["key"] as? String == "patient-7")
        #expect(json["payload"] as? String == #"{"systolic":141}"#)
        #expect(json["headers"] as? [String] == ["event-type", "vital.recorded"])
    }

    @Test func ourConsumerReadsWhatKcatProduced() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("from-kcat", partitions: 1)
        let result = try await runProcess(
            ["kcat", "-P", "-b", broker.bootstrapServers, "-t", topic, "-K", ":", "-H", "source=kcat"],
            input: "patient-1:first\npatient-2:second\n"
        )
        #expect(result.status == 0, "kcat failed: \(result.standardError)")

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        let received = try await KafkaTestSupport.receive(2, from: consumer)
        await consumer.close()
        #expect(received.map(\.key) == ["patient-1", "patient-2"])
        #expect(received.map { KafkaTestSupport.text($0.value) } == ["first", "second"])
        #expect(received.allSatisfy { $0.headers == ["source": "kcat"] })
    }
}
