internal import CRdKafka
public import Logging

/// In-process Kafka-protocol broker for development and tests, built on librdkafka's mock cluster
/// (`rdkafka_mock.h`).
///
/// In memory only; the mock keeps roughly 5 MB per partition; not for production. The mock is an
/// experimental librdkafka API: it supports producing (idempotent too), group consumers with offset
/// commits and topic auto-creation, but not the admin API (create topics with ``createTopic(_:partitions:)``).
///
/// `@unchecked Sendable`: the mock cluster functions only post operations to the cluster's own thread
/// (librdkafka serialises them there), and the handles are immutable after `init`.
public final class EmbeddedBroker: @unchecked Sendable {
    /// The `bootstrap.servers` list of the mock brokers, for example `127.0.0.1:39211`.
    public let bootstrapServers: String
    public let brokerCount: Int

    private let host: RDKafkaClient
    private let cluster: OpaquePointer
    private let logger: Logger

    public init(brokerCount: Int = 1, logger: Logger) throws {
        guard brokerCount >= 1, brokerCount <= 64 else {
            throw KafkaError(code: .broker, message: "An embedded broker needs between 1 and 64 brokers")
        }
        // A producer handle created only to host the mock cluster; it is never used to produce.
        let host = try RDKafkaClient(
            kind: .producer,
            properties: ["log_level": "3", "client.id": "caretide-embedded-broker"],
            context: RDKafkaCallbackContext(logger: logger)
        )
        guard let cluster = rd_kafka_mock_cluster_new(host.handle, Int32(brokerCount)) else {
            throw KafkaError(code: .broker, message: "Could not start the embedded Kafka broker")
        }
        self.host = host
        self.cluster = cluster
        self.brokerCount = brokerCount
        self.logger = logger
        self.bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
        logger.debug(
            "Embedded Kafka broker started", metadata: [KafkaLogKey.bootstrap: "\(bootstrapServers)", KafkaLogKey.brokers: "\(brokerCount)"])
    }

    /// Client settings that suit the mock cluster, for `caretide dev`, the tests and the benches:
    /// - it notices a dead group member only after the session timeout, so a restarted consumer waits that long;
    /// - it holds a fetch without data for the whole `fetch.wait.max.ms` (500 ms by default) even when data arrives
    ///   meanwhile, so a short wait keeps each hop fast;
    /// - it answers a second pipelined produce request on a connection only after ~40 ms (its socket keeps Nagle's
    ///   algorithm on), so producers keep one request in flight.
    public static let clientProperties = [
        "session.timeout.ms": "6000", "heartbeat.interval.ms": "1000", "fetch.wait.max.ms": "10",
        "max.in.flight.requests.per.connection": "1",
    ]

    /// The `KAFKA_*` environment variables that set `clientProperties` for a service process.
    public static var clientEnvironment: [String: String] {
        Dictionary(uniqueKeysWithValues: clientProperties.map { (KafkaConfiguration.environmentVariable(forProperty: $0.key), $0.value) })
    }

    deinit {
        // The cluster first, then the handle hosting it. Destroying the cluster waits, without a timeout, for its
        // thread to answer and end: like every librdkafka teardown, it runs on a thread of its own (`Teardown`), never
        // on the thread that dropped the broker (a test's, one of Swift's few cooperative threads).
        let cluster = UncheckedHandle(self.cluster)
        let host = self.host
        Teardown.detach("rd_kafka_mock_cluster_destroy", logger: logger) {
            rd_kafka_mock_cluster_destroy(cluster.pointer)
            withExtendedLifetime(host) {}
        }
    }

    /// Creates a topic with `partitions` partitions (replication factor 1).
    public func createTopic(_ name: String, partitions: Int) throws {
        guard partitions >= 1, let count = Int32(exactly: partitions) else {
            throw KafkaError(code: .broker, message: "A topic needs at least one partition")
        }
        let result = rd_kafka_mock_topic_create(cluster, name, count, 1)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(code: .broker, response: result, context: "Could not create topic \(name)")
        }
        logger.debug("Embedded Kafka topic created", metadata: [KafkaLogKey.topic: "\(name)", KafkaLogKey.partitions: "\(partitions)"])
    }

    /// Fault injection: disconnects broker `id` (ids start at 1) and refuses new connections.
    /// Does not move partition leadership.
    public func setBrokerDown(_ id: Int32) {
        report(rd_kafka_mock_broker_set_down(cluster, id), action: "down", broker: id)
    }

    /// Lets broker `id` accept connections again.
    public func setBrokerUp(_ id: Int32) {
        report(rd_kafka_mock_broker_set_up(cluster, id), action: "up", broker: id)
    }

    public func setAllBrokersDown() {
        report(rd_kafka_mock_broker_set_down(cluster, -1), action: "down", broker: -1)
    }

    public func setAllBrokersUp() {
        report(rd_kafka_mock_broker_set_up(cluster, -1), action: "up", broker: -1)
    }

    private func report(_ result: rd_kafka_resp_err_t, action: String, broker: Int32) {
        var metadata: Logger.Metadata = [KafkaLogKey.broker: "\(broker)", KafkaLogKey.state: "\(action)"]
        if result != RD_KAFKA_RESP_ERR_NO_ERROR {
            metadata["kafka.error"] = "\(String(cString: rd_kafka_err2name(result)))"
            logger.debug("Embedded Kafka broker state change failed", metadata: metadata)
        } else {
            logger.debug("Embedded Kafka broker state changed", metadata: metadata)
        }
    }
}
