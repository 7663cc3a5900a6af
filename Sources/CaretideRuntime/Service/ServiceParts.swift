import CaretideKafka
import CaretideSchemas
import CaretideStore
import Logging

/// What every part of a service shares: its database pool, its producer, the outbox relay (bounded by the
/// producer's acknowledgement timeout), migrations, readiness, metrics and the workers' progress.
struct ServiceParts {
    let database: Database
    let producer: KafkaProducer
    let relay: OutboxRelay
    let migrations: MigrationService
    let readiness = ReadinessState()
    let metrics = ServiceMetrics()
    let codec = EventCodec()
    let progress: ProgressMonitor
    let limits: RuntimeLimits
    let logger: Logger

    init(definition: ServiceDefinition, configuration: ServiceConfiguration, logger: Logger) throws {
        limits = configuration.limits
        self.logger = logger
        database = Database(configuration: configuration.database, schema: definition.schema, logger: logger)
        let producerConfiguration = Self.producerConfiguration(configuration.kafka, name: definition.name)
        let messageTimeout = Duration.milliseconds(Int64(producerConfiguration.properties["message.timeout.ms"] ?? "") ?? 300_000)
        producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        progress = ProgressMonitor(threshold: limits.stallThreshold)
        relay = OutboxRelay(
            database: database, producer: producer, readiness: readiness, metrics: metrics, logger: logger,
            transactionTimeout: limits.transactionTimeout + messageTimeout, progress: progress)
        migrations = MigrationService(
            migrator: Migrator(tracks: definition.migrationTracks), database: database, readiness: readiness, logger: logger)
    }

    /// The service's producer settings: the deployment's, with these defaults for what it leaves unset.
    static func producerConfiguration(_ kafka: KafkaConfiguration, name: String) -> KafkaConfiguration {
        var configuration = kafka
        let defaults = [
            "client.id": name,
            // A message the broker has not acknowledged within a minute fails (librdkafka's default is five) and is
            // sent again by whoever sent it; the relay's round, which waits for the acknowledgements, is bounded by it.
            "message.timeout.ms": "60000",
            // The relay hands over every waiting event at once and waits for the acknowledgements, so the linger sets
            // how often it goes round: a little longer than librdkafka's default means fewer and larger produce
            // requests and outbox reads under load, for a few milliseconds more a hop (BENCHMARKS.md, "The producers'
            // linger").
            "linger.ms": "10",
        ]
        configuration.properties.merge(defaults) { chosen, _ in chosen }
        return configuration
    }

    func context(name: String) -> ServiceContext {
        ServiceContext(
            name: name, database: database, codec: codec, relay: relay, readiness: readiness, logger: logger, limits: limits,
            metrics: metrics)
    }
}
