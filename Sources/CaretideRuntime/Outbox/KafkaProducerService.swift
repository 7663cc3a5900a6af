public import CaretideKafka
public import ServiceLifecycle

/// Keeps the service's Kafka producer for as long as the service group runs, and flushes it on shutdown, after the
/// relay and consumer that use it have stopped (services shut down in reverse order).
public struct KafkaProducerService: Service {
    public let producer: KafkaProducer

    public init(producer: KafkaProducer) { self.producer = producer }

    public func run() async throws {
        try? await gracefulShutdown()
        await producer.shutdown()
    }
}
