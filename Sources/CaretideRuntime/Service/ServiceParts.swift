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
        let timeoutSetting = producerConfiguration.properties["message.timeout.ms"] ?? producerConfiguration.properties["delivery.timeout.ms"]
        let messageTimeout = Duration.milliseconds(Int64(timeoutSetting ?? "") ?? 300_000)
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
        // librdkafka's other names for two of them: a deployment that sets one keeps its value (both set, the one
        // applied last would win).
        let aliases = ["message.timeout.ms": "delivery.timeout.ms", "linger.ms": "queue.buffering.max.ms"]
        for (property, value) in defaults where configuration.properties[property] == nil {
            if let alias = aliases[property], configuration.properties[alias] != nil { continue }
            configuration.properties[property] = value
        }
        return configuration
    }

    func context(name: String) -> ServiceContext {
        ServiceContext(
            name: name, database: database, codec: codec, relay: relay, readiness: readiness, logger: logger, limits: limits,
            metrics: metrics)
    }
}
