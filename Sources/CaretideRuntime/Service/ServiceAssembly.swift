import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization
import UnixSignals

/// Builds the one `ServiceGroup` a Caretide service runs, in dependency order (shutdown runs in reverse):
/// database pool → Kafka producer → migrations → outbox relay → consumer → HTTP server.
public struct ServiceAssembly: Sendable {
    public let group: ServiceGroup
    /// The port the HTTP server bound, known once it runs (useful with port 0).
    public let boundPort: BoundPort
    /// The API routes the service registered, with the access each declares.
    public let routes: RouteTable
    /// The port `/metrics` bound when it has one of its own (`METRICS_PORT`).
    public let boundMetricsPort: BoundPort

    /// - Throws: `InvalidConfiguration` when the authentication keys cannot be read.
    public init(definition: ServiceDefinition, configuration: ServiceConfiguration, logger baseLogger: Logger, signals: Bool = true) async throws {
        var logger = baseLogger
        logger.logLevel = configuration.logLevel
        logger[metadataKey: "service"] = "\(definition.name)"

        let metrics = ServiceMetrics()
        let codec = EventCodec()
        let readiness = ReadinessState()
        let database = Database(configuration: configuration.database, schema: definition.schema, logger: logger)
        var producerConfiguration = configuration.kafka
        producerConfiguration.properties["client.id"] = producerConfiguration.properties["client.id"] ?? definition.name
        // A message the broker has not acknowledged within a minute fails (librdkafka's default is five) and is sent
        // again by whoever sent it; the relay's transaction, which waits for the acknowledgements, is bounded by it.
        producerConfiguration.properties["message.timeout.ms"] = producerConfiguration.properties["message.timeout.ms"] ?? "60000"
        let messageTimeout = Duration.milliseconds(Int64(producerConfiguration.properties["message.timeout.ms"] ?? "") ?? 300_000)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let limits = configuration.limits
        let progress = ProgressMonitor(threshold: limits.stallThreshold)
        let relay = OutboxRelay(
            database: database, producer: producer, readiness: readiness, metrics: metrics, logger: logger,
            transactionTimeout: limits.transactionTimeout + messageTimeout, progress: progress)
        let migrations = MigrationService(
            migrator: Migrator(tracks: definition.migrationTracks), database: database, readiness: readiness, logger: logger)

        var context = ServiceContext(
            name: definition.name, database: database, codec: codec, relay: relay, readiness: readiness, logger: logger, limits: limits,
            metrics: metrics)
        if let directory = configuration.tipTranslations { context.tips = try TipCatalog.load(directory: directory) }

        let consumed = definition.topicsConsumed
        var consumedMessages = definition.handler.map(ConsumedMessages.events)
        if definition.careTeam == .projection, let handler = definition.handler {
            consumedMessages = .events(CareTeamProjectingHandler(service: handler))
        }
        if let inbound = definition.inbound {
            precondition(consumedMessages == nil, "\(definition.name): a service consumes Caretide events or inbound topics, not both")
            consumedMessages = .inbound(inbound.handler(context))
        }
        metrics.prepare(consumedTopics: consumed.map(\.name))
        var consumer: EventConsumerService?
        if let consumedMessages, !consumed.isEmpty {
            consumer = EventConsumerService(
                name: definition.name, topics: consumed, messages: consumedMessages, kafka: configuration.kafka,
                database: database, producer: producer, relay: relay, readiness: readiness, metrics: metrics, codec: codec,
                logger: logger, limits: limits, progress: progress)
        }

        let (authenticator, keyRefresh) = try await Authenticator.make(configuration.auth)
        if case .disabled = configuration.auth {
            logger.warning("authentication is disabled (AUTH_DISABLED=1): every caller may read and write every patient's data")
        }
        let router = Router(context: CaretideRequestContext.self)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: RequestLogMiddleware(metrics: metrics, logger: logger))
        router.add(middleware: ServerErrorMiddleware(logger: logger))
        // Open to every caller: probes and scrapers carry no token.
        let operational = OperationalRoutes(
            database: database, producer: producer, readiness: readiness, consumer: consumer, metrics: metrics, progress: progress,
            authenticator: authenticator)
        operational.register(on: router, metrics: configuration.metricsPort == nil)
        let api = router.group().add(middleware: AuthenticationMiddleware(authenticator: authenticator))
        let routes = RouteTable()
        let audit = AuditTrail(database: database, codec: codec, producer: definition.name, logger: logger, timeout: limits.transactionTimeout)
        let idempotency = IdempotencyKeys(database: database, logger: logger)
        let apiRoutes = APIRoutes(
            group: api, table: routes,
            access: AccessGuard(
                enabled: configuration.auth != .disabled, grants: DatabaseCareTeamGrants(database: database, logger: logger), audit: audit,
                logger: logger),
            idempotency: idempotency)
        definition.routes(apiRoutes, context)
        if definition.careTeam != .none { AccessLogRoutes(context: context).register(on: apiRoutes) }
        precondition(
            definition.careTeam != .none || !routes.routes.contains { $0.access == .patientData(.read) },
            "\(definition.name) serves patient data, so it must know care-team grants (ServiceDefinition.careTeam)")
        DocumentRoutes(document: OpenAPIDocument.build(service: definition.name, routes: routes.routes)).register(on: router)

        let boundPort = BoundPort()
        let boundMetricsPort = BoundPort()
        let serverLogger = logger
        let application = Application(
            router: router,
            // Closes a connection that sends nothing for the idle timeout, a half-sent request included, so slow or
            // stalled clients cannot hold connections open indefinitely.
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(limits.httpIdleTimeout.nanoseconds))),
            configuration: .init(address: .hostname(configuration.httpHost, port: configuration.httpPort), serverName: definition.name),
            onServerRunning: { channel in
                boundPort.set(channel.localAddress?.port ?? configuration.httpPort)
                serverLogger.info("HTTP server listening", metadata: ["port": "\(channel.localAddress?.port ?? configuration.httpPort)"])
            },
            logger: logger)

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: database),
            .init(service: KafkaProducerService(producer: producer)),
            // Migrations finish and return; the rest of the group keeps running.
            .init(service: migrations, successTerminationBehavior: .ignore),
            .init(service: relay),
        ]
        if let keyRefresh { services.append(.init(service: keyRefresh)) }
        services.append(.init(service: idempotency.expiry(readiness: readiness, metrics: metrics)))
        if definition.inbound != nil {
            services.append(.init(service: InboundMessages.expiry(database: database, readiness: readiness, metrics: metrics, logger: logger)))
        }
        services += definition.backgroundServices(context).map { .init(service: $0) }
        if let consumer { services.append(.init(service: consumer)) }
        services.append(.init(service: application))
        if let metricsPort = configuration.metricsPort {
            // `/metrics` on a port of its own, which a deployment can leave unexposed beside the API.
            let metricsRouter = Router(context: CaretideRequestContext.self)
            operational.registerMetrics(on: metricsRouter)
            services.append(
                .init(
                    service: Application(
                        router: metricsRouter, server: .http1(configuration: .init(idleTimeout: .nanoseconds(limits.httpIdleTimeout.nanoseconds))),
                        configuration: .init(address: .hostname(configuration.httpHost, port: metricsPort), serverName: definition.name + "-metrics"),
                        onServerRunning: { channel in boundMetricsPort.set(channel.localAddress?.port ?? metricsPort) }, logger: logger)))
        }
        if configuration.exitWithParent {
            services.append(.init(service: ParentWatch(logger: logger), successTerminationBehavior: .gracefullyShutdownGroup))
        }

        var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
        if signals { groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint] }
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(30)
        self.group = ServiceGroup(configuration: groupConfiguration)
        self.boundPort = boundPort
        self.boundMetricsPort = boundMetricsPort
        self.routes = routes
    }
}

/// Applies the service's migrations at start-up, retrying with backoff while the database is unreachable
/// (`/readyz` stays false meanwhile), then marks the service migrated and returns. A migration that fails for any
/// other reason (a statement the database refuses, a permission missing) stops the service with an error: it would
/// never become ready, and an orchestrator should see a failed process rather than one unready forever.
struct MigrationService: Service {
    let migrator: Migrator
    let database: Database
    let readiness: ReadinessState
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await retrying(isTransient: { TransientError.isTransient($0) || $0 is PostgresUnavailable }) { _, delay in
                    logger.warning("database unreachable; retrying migrations", metadata: ["retryIn": "\(delay)"])
                } _: {
                    guard await database.isReachable(timeout: .seconds(5)) else { throw PostgresUnavailable() }
                    try await migrator.migrate(database, logger: logger)
                }
                readiness.markMigrated()
                logger.info("database schema ready", metadata: ["schema": "\(database.schema)"])
            }
        } catch  where error is CancellationError || Task.isShuttingDownGracefully {
            // Shutdown before the database ever answered ends the retries quietly; nothing was applied.
        } catch {
            logger.critical("migrations failed; stopping", metadata: ["schema": "\(database.schema)"].merging(error.logMetadata) { $1 })
            throw error
        }
    }
}

struct PostgresUnavailable: Error {}

/// Stops the service when the process that started it goes away (`caretide dev`), so no service outlives it.
struct ParentWatch: Service {
    let logger: Logger

    func run() async throws {
        let parent = getppid()
        try? await cancelWhenGracefulShutdown {
            while getppid() == parent {
                try await Task.sleep(for: .milliseconds(500))
            }
            logger.notice("parent process exited; shutting down")
        }
    }
}

/// The HTTP port, set once the server is listening.
public final class BoundPort: Sendable {
    private let port = Mutex<Int?>(nil)

    public init() {}

    func set(_ value: Int) { port.withLock { $0 = value } }

    public var value: Int? { port.withLock { $0 } }

    /// Waits until the server is listening.
    public func wait() async throws -> Int {
        while true {
            if let value { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
