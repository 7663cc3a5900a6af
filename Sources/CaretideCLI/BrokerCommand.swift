import ArgumentParser
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import Foundation
import Logging

/// `caretide broker`: the embedded Kafka-protocol broker (librdkafka's mock cluster) for development and tests.
struct BrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Run an in-memory Kafka-protocol broker for development and tests (not for production).",
        discussion: """
            Built on librdkafka's mock cluster: in memory only, about 5 MB retained per partition, no authentication.
            It creates Caretide's topics, prints its bootstrap address and writes it to --address-file.
            Fault injection: SIGUSR1 takes every broker down, SIGUSR2 brings them back up.
            Production uses Apache Kafka (see compose.yaml).
            """)

    @Option(help: "Partitions per topic.") var partitions = 3
    @Option(help: "Number of brokers in the cluster.") var brokers = 1
    @Option(help: "File that receives the bootstrap address.") var addressFile = ".caretide/broker-address"

    func run() async throws {
        let logger = CommandLogging.logger("caretide.broker")
        let signals = SignalWaiter([SIGINT, SIGTERM, SIGUSR1, SIGUSR2])
        let broker = try EmbeddedBroker(brokerCount: brokers, logger: logger)
        for topic in Topic.allCases { try broker.createTopic(topic.name, partitions: partitions) }
        let file = URL(fileURLWithPath: addressFile)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((broker.bootstrapServers + "\n").utf8).write(to: file, options: .atomic)
        Console.write("KAFKA_BROKERS=\(broker.bootstrapServers)\n")
        while true {
            switch try await signals.next() {
            case SIGUSR1:
                broker.setAllBrokersDown()
                logger.notice("fault injection: brokers down")
            case SIGUSR2:
                broker.setAllBrokersUp()
                logger.notice("fault injection: brokers up")
            default:
                logger.info("stopping the broker")
                return
            }
        }
    }
}
