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
        logger[metadataKey: LogKey.service] = "\(definition.name)"

        let parts = try ServiceParts(definition: definition, configuration: configuration, logger: logger)
        let context = parts.context(name: definition.name)
        let consumers = Self.consumers(definition: definition, configuration: configuration, parts: parts, context: context)

        let (authenticator, keyRefresh) = try await Authenticator.make(configuration.auth)
        if case .disabled = configuration.auth {
            logger.warning("authentication is disabled (AUTH_DISABLED=1): every caller may read and write every patient's data")
        }
        let router = Router(context: CaretideRequestContext.self)
        router.add(middleware: RequestIDMiddleware())
        if !configuration.trustedProxies.isEmpty { router.add(middleware: ClientAddressMiddleware(proxies: configuration.trustedProxies)) }
        router.add(middleware: RequestLogMiddleware(metrics: parts.metrics, logger: logger))
        router.add(middleware: ServerErrorMiddleware(logger: logger))
        // Open to every caller: probes and scrapers carry no token.
        let operational = OperationalRoutes(
            database: parts.database, producer: parts.producer, readiness: parts.readiness, consumers: consumers, metrics: parts.metrics,
            progress: parts.progress, authenticator: authenticator)
        operational.register(on: router, metrics: configuration.metricsPort == nil)
        let idempotency = IdempotencyKeys(database: parts.database, logger: logger, timeout: parts.limits.transactionTimeout)
        let routes = Self.registerAPI(
            definition: definition, configuration: configuration, parts: parts, context: context, idempotency: idempotency,
            on: router.group().add(middleware: AuthenticationMiddleware(authenticator: authenticator)), publicGroup: router.group())
        DocumentRoutes(document: OpenAPIDocument.build(service: definition.name, routes: routes.routes)).register(on: router)

        let boundPort = BoundPort()
        let boundMetricsPort = BoundPort()
        // In dependency order: shutdown runs in reverse.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: parts.database),
            .init(service: KafkaProducerService(producer: parts.producer)),
            // Migrations finish and return; the rest of the group keeps running.
            .init(service: parts.migrations, successTerminationBehavior: .ignore),
            .init(service: parts.relay),
        ]
        if let keyRefresh { services.append(.init(service: keyRefresh)) }
        services.append(.init(service: idempotency.expiry(readiness: parts.readiness, metrics: parts.metrics)))
        if definition.inbound != nil {
            services.append(
                .init(service: InboundMessages.expiry(database: parts.database, readiness: parts.readiness, metrics: parts.metrics, logger: logger)))
        }
        if definition.handler != nil {
            services.append(
                .init(
                    service: ProcessedEventExpiry.job(
                        retention: parts.limits.processedEventRetention, database: parts.database, readiness: parts.readiness,
                        metrics: parts.metrics, logger: logger)))
        }
        services += definition.backgroundServices(context).map { .init(service: $0) }
        services += consumers.map { .init(service: $0) }
        services.append(
            .init(
                service: Self.server(
                    router: router, name: definition.name, port: configuration.httpPort, configuration: configuration, bound: boundPort,
                    logger: logger)))
        if let metricsPort = configuration.metricsPort {
            // `/metrics` on a port of its own, which a deployment can leave unexposed beside the API.
            let metricsRouter = Router(context: CaretideRequestContext.self)
            operational.registerMetrics(on: metricsRouter)
            services.append(
                .init(
                    service: Self.server(
                        router: metricsRouter, name: definition.name + "-metrics", port: metricsPort, configuration: configuration,
                        bound: boundMetricsPort, logger: logger)))
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

    /// The consumers of what the service consumes: Caretide events (through the erasure of patients and, where the
    /// service keeps one, the care-team projection), and an outside pipeline's inbound topics; none for a service that
    /// consumes nothing.
    private static func consumers(
        definition: ServiceDefinition, configuration: ServiceConfiguration, parts: ServiceParts, context: ServiceContext
    ) -> [EventConsumerService] {
        var consumers: [EventConsumerService] = []
        for consumer in definition.consumers {
            parts.metrics.prepare(consumedTopics: consumer.topics.map(\.name))
            let messages: ConsumedMessages
            if let inbound = definition.inbound, consumer.name == definition.name {
                messages = .inbound(inbound.handler(context))
            } else if var handler = definition.handler {
                if definition.careTeam == .projection { handler = CareTeamProjectingHandler(service: handler) }
                messages = .events(
                    ErasingHandler(service: handler, patientData: definition.patientData, ownTopics: Set(definition.consumedTopics + [.careTeam])))
            } else {
                continue
            }
            consumers.append(
                EventConsumerService(
                    subscription: .init(
                        name: consumer.name, producer: definition.name, topics: consumer.topics, messages: messages, kafka: configuration.kafka),
                    parts: parts))
        }
        return consumers
    }

    /// Registers the service's API routes, each behind the access it declares and audited, with the access log of
    /// services that serve patient data; returns the table the OpenAPI document and the access-matrix test read.
    private static func registerAPI(
        definition: ServiceDefinition, configuration: ServiceConfiguration, parts: ServiceParts, context: ServiceContext,
        idempotency: IdempotencyKeys, on group: RouterGroup<CaretideRequestContext>, publicGroup: RouterGroup<CaretideRequestContext>
    ) -> RouteTable {
        let routes = RouteTable()
        let audit = AuditTrail(
            database: parts.database, codec: parts.codec, producer: definition.name, logger: parts.logger, timeout: parts.limits.transactionTimeout,
            metrics: context.metrics)
        let apiRoutes = APIRoutes(
            group: group, publicGroup: publicGroup, table: routes,
            access: AccessGuard(
                enabled: configuration.auth != .disabled, grants: DatabaseCareTeamGrants(database: parts.database, logger: parts.logger),
                audit: audit, erasedPatients: definition.erasedPatientWrites == .refusedByTheAccessGuard ? parts.database : nil, logger: parts.logger),
            idempotency: idempotency)
        definition.routes(apiRoutes, context)
        if definition.careTeam != .none { AccessLogRoutes(context: context, outsideViewers: definition.outsideViewers).register(on: apiRoutes) }
        // Every service that applies erasures answers its part of a patient's export.
        if definition.handler != nil { PatientExportPartRoutes(context: context, data: definition.patientData).register(on: apiRoutes) }
        precondition(
            definition.careTeam != .none || !routes.routes.contains { $0.access == .patientData(.read) },
            "\(definition.name) serves patient data, so it must know care-team grants (ServiceDefinition.careTeam)")
        return routes
    }

    /// An HTTP/1 server for `router` on `port`. It closes a connection that sends nothing for the idle timeout, a
    /// half-sent request included, so slow or stalled clients cannot hold connections open indefinitely.
    private static func server(
        router: Router<CaretideRequestContext>, name: String, port: Int, configuration: ServiceConfiguration, bound: BoundPort, logger: Logger
    ) -> some Service {
        Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(configuration.limits.httpIdleTimeout.nanoseconds))),
            configuration: .init(address: .hostname(configuration.httpHost, port: port), serverName: name),
            onServerRunning: { channel in
                bound.set(channel.localAddress?.port ?? port)
                logger.info("HTTP server listening", metadata: [LogKey.server: "\(name)", LogKey.port: "\(channel.localAddress?.port ?? port)"])
            },
            logger: logger)
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
                    logger.warning("database unreachable; retrying migrations", metadata: [LogKey.retryIn: "\(delay)"])
                } _: {
                    guard await database.isReachable(timeout: .seconds(5)) else { throw PostgresUnavailable() }
                    try await migrator.migrate(database, logger: logger)
                }
                readiness.markMigrated()
                logger.info("database schema ready", metadata: [LogKey.schema: "\(database.schema)"])
            }
        } catch  where error is CancellationError || Task.isShuttingDownGracefully {
            // Shutdown before the database ever answered ends the retries quietly; nothing was applied.
        } catch {
            logger.critical("migrations failed; stopping", metadata: [LogKey.schema: "\(database.schema)"].merging(error.logMetadata) { $1 })
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
