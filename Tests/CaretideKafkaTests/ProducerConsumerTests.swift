import CaretideKafka
import CaretideTestSupport
import Foundation
import Testing

@Suite struct ProducerConsumerTests {
    @Test func sendAwaitsAckAndConsumerReceivesKeyValueAndHeaders() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("roundtrip", partitions: 1)

        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        let value: [UInt8] = [0, 1, 2, 0xFF, 0x7F, 0]
        try await producer.send(
            OutgoingMessage(
                topic: topic,
                key: "patient-42",
                value: value,
                headers: ["event-type": "vital.recorded", "schema-version": "1", "empty": ""]
            ))
        await producer.shutdown()

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        let received = try await KafkaTestSupport.receive(1, from: consumer)
        await consumer.close()

        let message = try #require(received.first)
        #expect(message.topic == topic)
        #expect(message.partition == 0)
        #expect(message.offset == 0)
        #expect(message.key == "patient-42")
        #expect(message.value == value)
        #expect(message.headers == ["event-type": "vital.recorded", "schema-version": "1", "empty": ""])
        #expect(message.timestamp != nil)
    }

    @Test func messagesWithoutKeyOrHeadersAndEmptyValue() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("bare", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        try await producer.send([
            OutgoingMessage(topic: topic, value: KafkaTestSupport.bytes("no key")),
            OutgoingMessage(topic: topic, key: "k", value: []),
        ])
        await producer.shutdown()

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        let received = try await KafkaTestSupport.receive(2, from: consumer)
        await consumer.close()
        #expect(received.map(\.key) == [nil, "k"])
        #expect(received.map(\.value) == [KafkaTestSupport.bytes("no key"), []])
        #expect(received.allSatisfy { $0.headers.isEmpty })
    }

    @Test func messagesWithTheSameKeyKeepTheirOrderInOnePartition() async throws {
        let broker = try EmbeddedBroker(brokerCount: 3, logger: KafkaTestSupport.logger)
        let topic = KafkaTestSupport.uniqueName("ordering")
        try broker.createTopic(topic, partitions: 4)
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.configuration(broker, ["linger.ms": "5"]),
            logger: KafkaTestSupport.logger
        )
        let keys = ["patient-a", "patient-b", "patient-c", "patient-d", "patient-e"]
        var outgoing: [OutgoingMessage] = []
        for sequence in 0..<20 {
            for key in keys {
                outgoing.append(OutgoingMessage(topic: topic, key: key, value: KafkaTestSupport.bytes("\(sequence)")))
            }
        }
        try await producer.send(outgoing)
        await producer.shutdown()

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        let received = try await KafkaTestSupport.receive(outgoing.count, from: consumer)
        await consumer.close()

        for key in keys {
            let forKey = received.filter { $0.key == key }
            #expect(forKey.map { KafkaTestSupport.text($0.value) } == (0..<20).map(String.init))
            #expect(Set(forKey.map(\.partition)).count == 1)
            #expect(forKey.map(\.offset) == forKey.map(\.offset).sorted())
        }
        // Five keys over four partitions: at least two partitions are used.
        #expect(Set(received.map(\.partition)).count >= 2)
    }

    @Test func sendWithoutWaitingIsDeliveredByShutdownFlush() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("fire-and-forget", partitions: 2)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        for index in 0..<50 {
            try producer.sendWithoutWaiting(OutgoingMessage(topic: topic, key: "k\(index % 7)", value: KafkaTestSupport.bytes("\(index)")))
        }
        await producer.shutdown()

        // A producer dropped without shutdown() flushes in the background before it is destroyed.
        do {
            let dropped = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
            try dropped.sendWithoutWaiting(OutgoingMessage(topic: topic, key: "dropped", value: KafkaTestSupport.bytes("50")))
        }

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        let received = try await KafkaTestSupport.receive(51, from: consumer)
        await consumer.close()
        #expect(Set(received.map { KafkaTestSupport.text($0.value) }) == Set((0...50).map(String.init)))
    }

    /// Forty messages through a local queue of four: `send` waits for room instead of failing, and every message
    /// reaches the broker once, in order.
    @Test func fullLocalQueueIsRetriedByAwaitingSends() async throws {
        let (broker, topic, consumer) = try KafkaTestSupport.consumerOnNewTopic("queue-full", partitions: 1)
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.configuration(broker, ["queue.buffering.max.messages": "4"]),
            logger: KafkaTestSupport.logger
        )
        let sent = (0..<40).map { "\($0)" }
        try await producer.send(sent.map { OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes($0)) })
        await producer.shutdown()
        let received = try await KafkaTestSupport.receive(sent.count, from: consumer)
        #expect(received.map { KafkaTestSupport.text($0.valueBytes ?? []) } == sent)
        await consumer.close()
    }

    @Test func committedMessagesAreNotRedeliveredUncommittedOnesAre() async throws {
        let broker = try EmbeddedBroker(logger: KafkaTestSupport.logger)
        let topic = KafkaTestSupport.uniqueName("commit")
        let group = KafkaTestSupport.uniqueName("group")
        try broker.createTopic(topic, partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        try await producer.send((0..<6).map { OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("m\($0)")) })
        await producer.shutdown()

        let first = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(broker),
            groupID: group,
            topics: [topic],
            logger: KafkaTestSupport.logger
        )
        let all = try await KafkaTestSupport.receive(6, from: first)
        #expect(all.map(\.offset) == Array(0..<6))
        // Commit m0...m2 (in any order: only the highest per partition counts).
        try await first.commit([all[2], all[0], all[1]], wait: true)
        await first.close()

        let second = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(broker),
            groupID: group,
            topics: [topic],
            logger: KafkaTestSupport.logger
        )
        let redelivered = try await KafkaTestSupport.receive(3, from: second)
        #expect(redelivered.map(\.offset) == [3, 4, 5])
        #expect(redelivered.map { KafkaTestSupport.text($0.value) } == ["m3", "m4", "m5"])
        await second.close()
    }

    @Test func asynchronousCommitIsCompletedByClose() async throws {
        let broker = try EmbeddedBroker(logger: KafkaTestSupport.logger)
        let topic = KafkaTestSupport.uniqueName("commit-async")
        let group = KafkaTestSupport.uniqueName("group")
        try broker.createTopic(topic, partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        try await producer.send((0..<3).map { OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("m\($0)")) })

        let first = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(broker),
            groupID: group,
            topics: [topic],
            logger: KafkaTestSupport.logger
        )
        let received = try await KafkaTestSupport.receive(3, from: first)
        try await first.commit(received, wait: false)
        await first.close()

        try await producer.send(OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("m3")))
        await producer.shutdown()
        let second = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(broker),
            groupID: group,
            topics: [topic],
            logger: KafkaTestSupport.logger
        )
        let next = try await KafkaTestSupport.receive(1, from: second)
        await second.close()
        #expect(next.map(\.offset) == [3])
        #expect(next.map { KafkaTestSupport.text($0.value) } == ["m3"])
    }

    @Test func lagReportsPendingMessages() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("lag", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        try await producer.send((0..<10).map { OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("\($0)")) })
        await producer.shutdown()

        let consumer = try KafkaTestSupport.consumer(of: topic, on: broker)
        _ = try await KafkaTestSupport.receive(4, from: consumer)
        let lag = consumer.lag()
        #expect(lag == [KafkaPartitionLag(topic: topic, partition: 0, highWatermark: 10, position: 4)])
        #expect(lag.totalLag == 6)

        _ = try await KafkaTestSupport.receive(6, from: consumer)
        #expect(consumer.lag().totalLag == 0)
        await consumer.close()
        #expect(consumer.lag().isEmpty)
    }

    @Test func closeEndsAWaitingPollAndLaterCallsFailAsClosed() async throws {
        let (broker, topic, consumer) = try KafkaTestSupport.consumerOnNewTopic("close", partitions: 1)
        // An idle poll, with an hour to wait, is waiting when close() arrives.
        let waiting = Task { try await consumer.poll(timeout: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(300))
        await consumer.close()
        await consumer.close()  // idempotent
        #expect(try await withTimeout(.seconds(30)) { try await waiting.value } == nil)

        let message = IncomingMessage(topic: topic, partition: 0, offset: 0, value: [])
        await #expect(throws: KafkaError.self) { try await consumer.commit([message], wait: true) }
        #expect(try await consumer.pollBatch(maxMessages: 10, timeout: .seconds(3600)).isEmpty)

        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        await producer.shutdown()
        await producer.shutdown()  // idempotent
        await #expect {
            try await producer.send(OutgoingMessage(topic: topic, value: []))
        } throws: { error in
            (error as? KafkaError)?.code == .closed
        }
        #expect(throws: KafkaError.self) { try producer.sendWithoutWaiting(OutgoingMessage(topic: topic, value: [])) }
    }

    @Test func cancellingAWaitingPollEndsIt() async throws {
        let (broker, _, consumer) = try KafkaTestSupport.consumerOnNewTopic("cancel", partitions: 1)
        let waiting = Task { try await consumer.poll(timeout: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(200))
        waiting.cancel()
        // It ends with no message or with the cancellation, within one ~100-ms poll step of the consumer's queue;
        // never by its own hour-long timeout. The 30-s guard only keeps a broken cancellation from hanging the run:
        // a full parallel run on two cores once took over 3 s to schedule the step.
        do {
            #expect(try await withTimeout(.seconds(30)) { try await waiting.value } == nil)
        } catch {
            #expect(error is CancellationError, "\(error)")
        }
        await consumer.close()
        withExtendedLifetime(broker) {}  // the cluster must outlive the consumer
    }
}
