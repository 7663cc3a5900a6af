@testable import CaretideKafka
import Foundation
import Logging
import Testing

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
        let (broker, topic) = try TestSupport.brokerWithTopic("oversized", partitions: 1)
        let producer = try KafkaProducer(configuration: TestSupport.configuration(broker), logger: TestSupport.logger)
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
        let (broker, topic) = try TestSupport.brokerWithTopic("closed", partitions: 1)
        let producer = try KafkaProducer(configuration: TestSupport.configuration(broker), logger: TestSupport.logger)
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
