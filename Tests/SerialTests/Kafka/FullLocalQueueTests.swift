import CaretideKafka
import CaretideTestSupport
import Testing

/// A producer's local queue filled while the broker is down (from ProducerConsumerTests). Runs alone (SerialTests): it
/// takes its embedded broker down, which re-binds the librdkafka mock broker's port at once, and the mock aborts the
/// whole test process if another test's socket took the port in between.
@Suite struct FullLocalQueueTests {
    @Test func fullLocalQueueMakesSendWithoutWaitingThrowARetriableError() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("queue-full-nowait", partitions: 1)
        broker.setAllBrokersDown()
        let producer = try KafkaProducer(
            configuration: KafkaTestSupport.configuration(broker, ["queue.buffering.max.messages": "4"]),
            logger: KafkaTestSupport.logger
        )
        for index in 0..<4 {
            try producer.sendWithoutWaiting(OutgoingMessage(topic: topic, value: KafkaTestSupport.bytes("\(index)")))
        }
        #expect {
            try producer.sendWithoutWaiting(OutgoingMessage(topic: topic, value: KafkaTestSupport.bytes("4")))
        } throws: { error in
            guard let error = error as? KafkaError else { return false }
            return error.code == .producer && error.isRetriable && error.librdkafkaErrorName == "_QUEUE_FULL"
        }
        // Queued messages that cannot be delivered are purged after the flush timeout.
        await producer.shutdown(timeout: .milliseconds(200))
    }
}
