public import CaretideSchemas
public import CaretideStore
public import Foundation
public import Logging
public import PostgresNIO
import Synchronization

/// Applies one validated event. It runs inside the transaction that also records the event as processed, so its
/// writes and the events it publishes (through `context.publish`) are committed together or not at all.
public protocol EventHandler: Sendable {
    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws

    /// Applies the new events of a consumed batch, in offset order, inside one transaction; by default one at a time
    /// through `handle(_:context:)`. A handler that can apply many at once (set-based SQL) implements it, for
    /// throughput. If it throws, the consumer applies the batch again one event at a time through
    /// `handle(_:context:)`, so one refused event cannot hold back the others.
    func handle(batch: [ValidatedEvent], context: HandlerContext) async throws

    /// How long one of its transactions may take before it is given up and retried; nil for the service's
    /// `DATABASE_TRANSACTION_TIMEOUT_SECONDS`. A handler whose work is long by nature (an ontology import) says so.
    var transactionTimeout: Duration? { get }

    /// The shortest time between two small batches of its consumer (`MessageLanes`) when the operator sets none
    /// (`CONSUMER_BATCH_WINDOW_MS`); nil for `RuntimeLimits.defaultConsumerBatchWindow`. A handler whose events end in
    /// an alert takes a shorter one: the wait is a hop's latency, the batch its CPU.
    var batchWindow: Duration? { get }

    /// True when applying the event would change nothing here and publish nothing, whatever the database holds (a
    /// normal reading's assessment, to notification-service). Its consumer then neither claims it nor opens a
    /// transaction for it: a redelivery changes nothing either. Decided from the event alone; false by default, and
    /// for an event the handler would refuse, so that the refusal is reported.
    func needsNothing(_ event: ValidatedEvent) -> Bool
}

extension EventHandler {
    public func handle(batch: [ValidatedEvent], context: HandlerContext) async throws {
        for event in batch { try await handle(event, context: context) }
    }

    public var transactionTimeout: Duration? { nil }
    public var batchWindow: Duration? { nil }
    public func needsNothing(_ event: ValidatedEvent) -> Bool { false }
}

/// What a handler may touch while it applies an event.
public struct HandlerContext: Sendable {
    /// A connection inside the event's transaction. Do not keep it beyond `handle`.
    public let connection: PostgresConnection
    public let codec: EventCodec
    public let producer: String
    public let logger: Logger
    /// How this writer keeps one key's events in commit order (`Outbox.Ordering`): a consumer lane, an HTTP request,
    /// or a job beside the consumers.
    public let ordering: Outbox.Ordering
    /// When set, events wait here and are enqueued in one statement at the end of the transaction (with the
    /// request's audit row): see `ServiceContext.transaction(auditing:status:_:)`.
    let deferred: DeferredOutbox?
    /// Which of a consumed batch's patients were erased here when its transaction claimed its events (read in the
    /// same statement: `ErasedPatients.claim`); nil outside a consumed batch, for `ErasingHandler` to ask (as it also
    /// does when the batch erases a patient itself).
    let erasedAmongBatch: Set<String>?

    /// The transaction's connection, for stores.
    public var session: StoreSession { StoreSession(connection: connection, logger: logger) }

    public init(connection: PostgresConnection, codec: EventCodec, producer: String, logger: Logger, ordering: Outbox.Ordering) {
        self.init(connection: connection, codec: codec, producer: producer, logger: logger, ordering: ordering, deferred: nil)
    }

    init(
        connection: PostgresConnection, codec: EventCodec, producer: String, logger: Logger, ordering: Outbox.Ordering, deferred: DeferredOutbox?,
        erasedAmongBatch: Set<String>? = nil
    ) {
        self.connection = connection
        self.codec = codec
        self.producer = producer
        self.logger = logger
        self.ordering = ordering
        self.deferred = deferred
        self.erasedAmongBatch = erasedAmongBatch
    }

    /// Adds an event to the outbox within the current transaction.
    public func publish<P: EventPayload>(_ envelope: EventEnvelope<P>) async throws {
        try await publish([Outbox.Entry(envelope, codec: codec)])
    }

    /// Adds an event of this service about `patientID` to the outbox within the current transaction. It takes a payload
    /// of any event type, so a writer of many kinds can hold theirs as `any EventPayload`; `eventID` is the one the
    /// writer stored beside its row.
    public func publish(_ payload: some EventPayload, eventID: UUID = .timeOrdered(), patientID: String?, traceID: String?) async throws {
        try await publish(EventEnvelope(eventID: eventID, producer: producer, patientID: patientID, traceID: traceID, payload: payload))
    }

    /// Adds many events to the outbox within the current transaction, in order.
    public func publish(_ entries: [Outbox.Entry]) async throws {
        if let deferred { return deferred.append(entries) }
        try await Outbox.enqueue(entries, ordering: ordering, on: connection, logger: logger)
    }

    /// A new envelope from this service, carrying the trace of the event that caused it.
    public func envelope<P: EventPayload>(for payload: P, causedBy cause: ValidatedEvent) -> EventEnvelope<P> {
        EventEnvelope(producer: producer, patientID: cause.patientID, traceID: cause.traceID, payload: payload)
    }
}

/// Events of a transaction held back to be enqueued together at its end.
final class DeferredOutbox: Sendable {
    private let entries = Mutex<[Outbox.Entry]>([])
    func append(_ more: [Outbox.Entry]) { entries.withLock { $0 += more } }
    var all: [Outbox.Entry] { entries.withLock { $0 } }
}

/// A service's store: its SQL, run in a `StoreSession`. Built from a handler's context it works inside that
/// transaction; built from the service's context, each statement runs on a pooled connection (a request's reads). Routes
/// and handlers pass the context along, never a connection.
public protocol ServiceStore {
    init(session: StoreSession)
}

extension ServiceStore {
    /// The store inside the transaction of `context`.
    public init(_ context: HandlerContext) {
        self.init(session: context.session)
    }

    /// The store on the service's pool, each statement on a connection of its own.
    public init(_ context: ServiceContext) {
        self.init(session: context.session)
    }

    /// The store on a database's pool, for a command or a start-up check outside a service's context.
    public init(database: Database, logger: Logger) {
        self.init(session: database.session(logger: logger))
    }

    /// The store on a connection a job or a command holds.
    public init(connection: PostgresConnection, logger: Logger) {
        self.init(session: StoreSession(connection: connection, logger: logger))
    }
}

/// The event is well-formed but this service cannot act on it (for example a value outside the clinical rule's range).
/// It goes to the dead-letter topic with `reason`; retrying would not help.
public struct UnprocessableEvent: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
