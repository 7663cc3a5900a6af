import CaretideKafka
import CaretideSchemas
import CaretideStore
import Logging
import ServiceLifecycle
import Synchronization

/// Publishes the service's outbox to Kafka: claims a batch in a transaction, sends it and awaits every acknowledgement,
/// then deletes the batch and commits. A crash between send and commit publishes the batch again on restart, which
/// consumers absorb because they are idempotent on event id; nothing is ever lost.
public final class OutboxRelay: Service, Sendable {
    let database: Database
    let producer: KafkaProducer
    let readiness: ReadinessState
    let metrics: ServiceMetrics
    let logger: Logger
    let batchSize: Int
    /// How long to sleep between checks when nothing woke the relay; covers rows written by other processes.
    let idleInterval: Duration

    private let pending = Atomic<Bool>(true)
    private let stopping = Atomic<Bool>(false)

    public init(
        database: Database, producer: KafkaProducer, readiness: ReadinessState, metrics: ServiceMetrics, logger: Logger,
        batchSize: Int = 500, idleInterval: Duration = .milliseconds(250)
    ) {
        self.database = database
        self.producer = producer
        self.readiness = readiness
        self.metrics = metrics
        self.logger = logger
        self.batchSize = batchSize
        self.idleInterval = idleInterval
    }

    /// Tells the relay that a transaction just committed outbox rows, so it publishes without waiting for its timer.
    public func wake() { pending.store(true, ordering: .releasing) }

    public func run() async {
        await withGracefulShutdownHandler {
            guard await readiness.waitUntilMigrated(unless: { stopping.load(ordering: .acquiring) }) else { return }
            var backoff = Backoff()
            while !stopping.load(ordering: .acquiring) {
                do {
                    let published = try await publishBatch()
                    backoff.reset()
                    if published < batchSize { await waitForWork() }
                } catch {
                    let delay = backoff.next()
                    logger.warning("outbox relay failed; retrying", metadata: ["error": "\(String(reflecting: type(of: error)))", "retryIn": "\(delay)"])
                    try? await Task.sleep(for: delay)
                }
            }
            // Last round so that events committed just before shutdown leave now rather than at the next start.
            _ = try? await publishBatch()
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .releasing)
        }
    }

    /// Publishes up to one batch; returns how many events were published.
    @discardableResult
    public func publishBatch() async throws -> Int {
        pending.store(false, ordering: .releasing)
        let schema = database.schema
        return try await database.transaction { connection in
            let records = try await Outbox.claimBatch(limit: batchSize, schema: schema, on: connection, logger: logger)
            guard !records.isEmpty else { return 0 }
            try await producer.send(records.map(\.outgoingMessage))
            try await Outbox.remove(records, on: connection, logger: logger)
            for record in records { metrics.eventProduced(topic: record.topic) }
            logger.debug("published outbox batch", metadata: ["count": "\(records.count)", "lastPosition": "\(records.last!.position)"])
            return records.count
        }
    }

    private func waitForWork() async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: idleInterval)
        // A short poll of an atomic flag: cheap, and it needs no continuation bookkeeping that shutdown could strand.
        while clock.now < deadline, !pending.load(ordering: .acquiring), !stopping.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}

extension OutboxRecord {
    var outgoingMessage: OutgoingMessage {
        var headers = [
            EventHeader.eventType: eventType, EventHeader.schemaVersion: String(schemaVersion),
            EventHeader.eventID: eventID.uuidString.lowercased(),
        ]
        if let traceID { headers[EventHeader.traceID] = traceID }
        return OutgoingMessage(topic: topic, key: key, value: body, headers: headers)
    }
}
