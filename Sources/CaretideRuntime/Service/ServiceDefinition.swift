public import CaretideSchemas
public import CaretideStore
import Hummingbird
public import Logging
public import ServiceLifecycle

/// What makes one Caretide service what it is; everything else (database, producer, relay, consumer loop, HTTP server
/// with health, readiness and metrics) is the same for every service and built by `ServiceAssembly`.
public struct ServiceDefinition: Sendable {
    /// e.g. "scoring-service"; also the consumer group suffix and the `producer` field of its events.
    public var name: String
    /// The PostgreSQL schema holding the service's tables.
    public var schema: String
    public var migrations: MigrationTrack
    /// Topics consumed by `handler`; empty when the service consumes nothing.
    public var consumedTopics: [Topic]
    public var handler: (any EventHandler)?
    /// Inbound topics (messages from outside Caretide) and their handler; a service consumes events or these, not both.
    public var inbound: InboundTopics?
    /// Adds the service's own HTTP routes, each behind authentication and the access rules.
    public var routes: @Sendable (APIRoutes, ServiceContext) -> Void
    /// How the service knows care-team grants; a service that serves patient data must know them.
    public var careTeam: CareTeamSource
    /// Long-running work of the service's own (e.g. reloading data), started after the relay and stopped before it.
    public var backgroundServices: @Sendable (ServiceContext) -> [any Service]
    /// What the service holds about a patient: erased on `patient.erasure-requested` (beyond what the runtime erases in
    /// every service) and copied into the patient's export (`PatientData`). Every service with a consumer applies
    /// erasures and answers its export part.
    public var patientData: PatientData
    /// Who refuses (410) a write for a patient whose data was erased: the access guard, before the handler runs, with
    /// a look-up of `erased_patients`; or the service's own write transactions, where they already read what marks an
    /// erased patient (ingest's change numbers), so its hottest write pays no extra round trip.
    public var erasedPatientWrites: ErasedPatientWrites = .refusedByTheAccessGuard
    /// Where the service that serves outside shares keeps who tried to open them, for the patient's access log.
    public var outsideViewers: (any OutsideViewerDirectory)?

    public enum ErasedPatientWrites: Sendable {
        case refusedByTheAccessGuard
        case refusedByTheServiceItself
    }

    public init(
        name: String, schema: String, migrations: MigrationTrack, consumedTopics: [Topic] = [], handler: (any EventHandler)? = nil,
        inbound: InboundTopics? = nil, careTeam: CareTeamSource = .none, patientData: PatientData = PatientData(),
        routes: @escaping @Sendable (APIRoutes, ServiceContext) -> Void = { _, _ in },
        backgroundServices: @escaping @Sendable (ServiceContext) -> [any Service] = { _ in [] }
    ) {
        self.name = name
        self.schema = schema
        self.migrations = migrations
        self.consumedTopics = consumedTopics
        self.handler = handler
        self.inbound = inbound
        self.careTeam = careTeam
        self.patientData = patientData
        self.backgroundServices = backgroundServices
        self.routes = routes
    }
}

extension ServiceDefinition {
    /// Every migration track of the service's schema, in order: the layer every service shares (grants, audit,
    /// idempotency keys, inbound messages), then the service's own, which may build on it.
    public var migrationTracks: [MigrationTrack] { [IdentityMigrations.track, migrations] }

    /// The service's consumers, each its group's name (`caretide-<name>`) and topics: the inbound topics under the
    /// service's own name (the group that always read them), and its events' topics under the same name, or
    /// `<name>-events` beside an inbound consumer.
    public var consumers: [(name: String, topics: [Topic])] {
        var consumers: [(name: String, topics: [Topic])] = []
        if let inbound { consumers.append((name, inbound.topics)) }
        if handler != nil { consumers.append((inbound == nil ? name : "\(name)-events", topicsConsumed)) }
        return consumers
    }

    /// Every Caretide topic the service's event consumer reads: its events' topics, `caretide.patients` for erasure
    /// requests and, where it keeps a projection of grants, `caretide.care-team`.
    public var topicsConsumed: [Topic] {
        guard handler != nil else { return [] }
        var topics = consumedTopics
        if !topics.contains(.patients) { topics.append(.patients) }
        if careTeam == .projection { topics.append(.careTeam) }
        return topics
    }
}

/// Where a service's copy of care-team grants comes from.
public enum CareTeamSource: Sendable {
    /// The service serves no patient data.
    case none
    /// The service records grants itself (ingest-service, where patients grant and revoke).
    case owner
    /// The service consumes `caretide.care-team` into its projection.
    case projection
}

/// What a service's HTTP handlers may use.
public struct ServiceContext: Sendable {
    public let name: String
    public let database: Database
    public let codec: EventCodec
    public let relay: OutboxRelay
    /// Whether the schema is migrated yet (background services wait for it before touching their tables).
    public let readiness: ReadinessState
    public let logger: Logger
    public let limits: RuntimeLimits
    /// The service's own metrics, for the counters a background job keeps.
    public let metrics: ServiceMetrics

    /// The pool, for stores read outside a transaction: each statement on a connection of its own.
    public var session: StoreSession { database.session(logger: logger) }

    /// Runs `body` in a transaction and wakes the relay afterwards, so events it enqueued leave at once. A transaction
    /// that does not finish within `limits.transactionTimeout` is given up (the caller gets a 503), so no request
    /// waits forever on a database that went away.
    public func transaction<Result: Sendable>(_ body: @escaping @Sendable (HandlerContext) async throws -> Result) async throws -> Result {
        try await transaction(deferringEvents: false, body)
    }

    /// Like `transaction(_:)`, and records the request's audit entry in the same transaction, with the status
    /// `status` gives the result: the write and its audit record commit together, in one transaction.
    public func transaction<Result: Sendable>(
        auditing origin: WriteOrigin, status: @escaping @Sendable (Result) -> Int,
        _ body: @escaping @Sendable (HandlerContext) async throws -> Result
    ) async throws -> Result {
        guard origin.audit != nil else { return try await transaction(body) }
        return try await transaction(auditing: [origin], status: status) { handler in [.success(try await body(handler))] }[0].get()
    }

    /// Many writes in one transaction (`GroupCommit`), each with its own outcome: `body` returns one result per
    /// origin, in order. Each write that succeeded has its origin's audit entry recorded in the transaction with the
    /// status `status` gives its outcome; one that failed leaves its entry to be recorded as refused, as a request
    /// whose transaction rolled back does.
    public func transaction<Outcome: Sendable>(
        auditing origins: [WriteOrigin], status: @escaping @Sendable (Outcome) -> Int,
        _ body: @escaping @Sendable (HandlerContext) async throws -> [Swift.Result<Outcome, any Error>]
    ) async throws -> [Swift.Result<Outcome, any Error>] {
        let (codec, name) = (self.codec, self.name)
        do {
            // The writes' events wait until their outcomes are known, then leave with the audit rows and their events in
            // one statement: auditing costs no round trip of its own.
            return try await transaction(deferringEvents: true) { handler in
                let results = try await body(handler)
                var audited: [(RequestAudit, AuditEntry)] = []
                for (origin, result) in zip(origins, results) {
                    guard let audit = origin.audit, case .success(let outcome) = result else { continue }
                    audited.append((audit, audit.entry(status: status(outcome))))
                }
                try await AuditTrail.insert(
                    audited.map(\.1), after: handler.deferred?.all ?? [], codec: codec, producer: name, on: handler.connection, logger: handler.logger
                )
                for (audit, _) in audited { audit.markRecorded() }
                return results
            }
        } catch {
            // Rolled back (or its commit failed): no entry is recorded after all.
            for origin in origins { origin.audit?.clearRecorded() }
            throw error
        }
    }

    private func transaction<Result: Sendable>(
        deferringEvents: Bool, _ body: @escaping @Sendable (HandlerContext) async throws -> Result
    ) async throws -> Result {
        let (codec, name, logger) = (self.codec, self.name, self.logger)
        let result = try await database.transaction(timeout: limits.transactionTimeout) { connection in
            try await body(
                HandlerContext(
                    connection: connection, codec: codec, producer: name, logger: logger, ordering: .perKey,
                    deferred: deferringEvents ? DeferredOutbox() : nil))
        }
        relay.wake()
        return result
    }
}
