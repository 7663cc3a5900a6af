import CaretideTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import CaretideKafka

/// What an operator is told when Kafka fails: librdkafka's errors at warning (with its code and name), and one result
/// per message so that a message the broker will never take is told apart from a batch to retry.
@Suite struct ErrorReportingTests {
    @Test("librdkafka errors and warnings are logged at warning; configuration warnings, repeated failures and chatter at debug")
    func logLevels() {
        #expect(RDKafkaClient.logLevel(syslogLevel: 3, facility: "SASL") == .warning)
        #expect(RDKafkaClient.logLevel(syslogLevel: 3, facility: "FAIL") == .debug)  // the error callback reports it with its code
        #expect(RDKafkaClient.logLevel(syslogLevel: 0, facility: "ERROR") == .warning)
        #expect(RDKafkaClient.logLevel(syslogLevel: 4, facility: "REQTMOUT") == .warning)
        #expect(RDKafkaClient.logLevel(syslogLevel: 4, facility: "CONFWARN") == .debug)
        #expect(RDKafkaClient.logLevel(syslogLevel: 6, facility: "CGRPOP") == .debug)
        #expect(RDKafkaClient.logLevel(syslogLevel: 7, facility: "FETCH") == .trace)
    }

    @Test("a message over message.max.bytes fails alone and permanently; the messages around it are delivered")
    func oversizedMessageFailsAlone() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("oversized", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        let results = await producer.sendEach([
            OutgoingMessage(topic: topic, key: "k", value: [1]),
            OutgoingMessage(topic: topic, key: "k", value: [UInt8](repeating: 0, count: 1_100_000)),
            OutgoingMessage(topic: topic, key: "k", value: [3]),
        ])
        await producer.shutdown()
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true])
        guard case .failure(let error as KafkaError) = results[1] else {
            Issue.record("expected a KafkaError, got \(results[1])")
            return
        }
        #expect(error.isRetriable == false && error.librdkafkaErrorName == "MSG_SIZE_TOO_LARGE" && error.refusesMessage)
    }

    @Test("a closed producer refuses every message alike: not a refusal of the message, and the rest are not sent")
    func closedProducerIsNoMessageRefusal() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("closed", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        await producer.shutdown()
        let results = await producer.sendEach([OutgoingMessage(topic: topic, value: [1]), OutgoingMessage(topic: topic, value: [2])])
        for result in results {
            guard case .failure(let error as KafkaError) = result else {
                Issue.record("expected a KafkaError, got \(result)")
                continue
            }
            #expect(error.code == .closed && !error.refusesMessage)
        }
    }
}

/// Messages a consumer group never saw because the broker deleted them first (retention) are reported, not skipped in
/// silence: librdkafka only logs such a reset, so the layer reads its log line.
@Suite struct OffsetResetTests {
    @Test("librdkafka's warning about a committed offset out of range is read as a reset of that topic and partition; other lines are not")
    func parsesTheWarning() {
        let line =
            "[thrd:main]: caretide.measurements [2]: offset reset (at offset 1200 (leader epoch 0), broker 1) to offset BEGINNING (leader epoch -1): fetch failed due to requested offset not available on the broker: Broker: Offset out of range"
        #expect(OffsetReset(syslogLevel: 4, facility: "OFFSET", text: line) == OffsetReset(topic: "caretide.measurements", partition: 2))
        // Without the thread name (`log.thread.name=false`).
        #expect(OffsetReset(syslogLevel: 4, facility: "OFFSET", text: String(line.dropFirst("[thrd:main]: ".count)))?.partition == 2)
        // A first start with no committed position is logged at debug: not a loss.
        #expect(OffsetReset(syslogLevel: 7, facility: "OFFSET", text: line) == nil)
        #expect(OffsetReset(syslogLevel: 4, facility: "FETCH", text: line) == nil)
        #expect(OffsetReset(syslogLevel: 4, facility: "OFFSET", text: "[thrd:main]: caretide.measurements [x]: offset reset") == nil)
    }

    @Test("a group whose committed position the broker has deleted is told, topic and partition, and logs it at error")
    func committedPositionDeletedByRetention() async throws {
        let (broker, topic) = try KafkaTestSupport.brokerWithTopic("retention", partitions: 1)
        let group = KafkaTestSupport.uniqueName("group")
        let producer = try KafkaProducer(configuration: KafkaTestSupport.configuration(broker), logger: KafkaTestSupport.logger)
        try await producer.send([OutgoingMessage(topic: topic, key: "k", value: KafkaTestSupport.bytes("first"))])
        let first = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(broker), groupID: group, topics: [topic], logger: KafkaTestSupport.logger)
        let read = try await KafkaTestSupport.receive(1, from: first)
        try await first.commit(read, wait: true)
        await first.close()

        // More than the embedded broker keeps of a partition (about 5 MB or 100,000 messages, whichever comes
        // first): the committed position, offset 1, is deleted with the oldest messages.
        let filler = [UInt8](repeating: 0x61, count: 1_000)
        for _ in 0..<8 {
            try await producer.send((0..<1_000).map { _ in OutgoingMessage(topic: topic, key: "k", value: filler) })
        }
        await producer.shutdown()

        let resets = Recorded()
        let second = try KafkaConsumer(
            configuration: KafkaTestSupport.consumerConfiguration(broker), groupID: group, topics: [topic], logger: KafkaTestSupport.logger,
            onOffsetReset: { resets.append($0) })
        let resumed = try await KafkaTestSupport.receive(1, from: second)
        #expect((resumed.first?.offset ?? 0) > 1, "the consumer resumed past the deleted messages")
        #expect(resets.values == [OffsetReset(topic: topic, partition: 0)])
        await second.close()
    }

    final class Recorded: Sendable {
        private let storage = Mutex<[OffsetReset]>([])
        func append(_ reset: OffsetReset) { storage.withLock { $0.append(reset) } }
        var values: [OffsetReset] { storage.withLock { $0 } }
    }
}
