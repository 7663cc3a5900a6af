public import CaretideKafka
import CaretideSchemas
public import CaretideStore
import Foundation
public import Logging
public import ServiceLifecycle
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
    /// Bounds one publishing transaction: its statements and the broker's acknowledgements it waits for. A query on a
    /// connection that died mid-statement can hang in the driver (seen during `pg_ctl restart`); this ends it.
    let transactionTimeout: Duration
    let progress: ProgressMonitor
    static let workerName = "outbox relay"

    private let stopping = Atomic<Bool>(false)
    /// Wake-ups: one per committed transaction (`wake()`) and one per `idleInterval`; at most one waits, so wakes that
    /// come while a batch is out are answered by one more round, not one each. The relay sleeps until the next one
    /// (it used to poll a flag every 2 ms, which kept an idle service at 5 % of a core).
    private let wakeups: AsyncStream<Void>
    private let wakeupSource: AsyncStream<Void>.Continuation

    public init(
        database: Database, producer: KafkaProducer, readiness: ReadinessState, metrics: ServiceMetrics, logger: Logger,
        batchSize: Int = 5_000, idleInterval: Duration = .milliseconds(250), transactionTimeout: Duration, progress: ProgressMonitor
    ) {
        self.database = database
        self.producer = producer
        self.readiness = readiness
        self.metrics = metrics
        self.logger = logger
        self.batchSize = batchSize
        self.idleInterval = idleInterval
        self.transactionTimeout = transactionTimeout
        self.progress = progress
        (wakeups, wakeupSource) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        progress.register(Self.workerName)
    }

    /// Tells the relay that a transaction just committed outbox rows, so it publishes without waiting for its timer.
    public func wake() { wakeupSource.yield() }

    public func run() async {
        await withGracefulShutdownHandler {
            guard await readiness.waitUntilMigrated(unless: { stopping.load(ordering: .acquiring) }) else { return }
            await withDiscardingTaskGroup { group in
                // Rows written by other processes (`caretide rescore`) wake nobody here: the timer covers them.
                group.addTask { [idleInterval, wakeupSource] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: idleInterval)
                        wakeupSource.yield()
                    }
                }
                await publishUntilStopped()
                group.cancelAll()
            }
            // Last round so that events committed just before shutdown leave now rather than at the next start.
            _ = try? await publishBatch()
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .releasing)
            self.wakeupSource.finish()
        }
    }

    /// Publishes up to one batch; returns how many rows left the outbox (published or parked).
    ///
    /// A row the broker refuses for what it is (too large, malformed) is moved to `outbox_parked` with the reason, so
    /// the rows behind it still leave. Any other failure (broker down, a timeout, authorisation) keeps the whole batch
    /// for the next round: rows that did get through are sent again, and consumers drop them by event id.
    @discardableResult
    public func publishBatch() async throws -> Int {
        let schema = database.schema
        return try await database.transaction(timeout: transactionTimeout) { [batchSize, producer, metrics, logger] connection in
            let records = try await Outbox.claimBatch(limit: batchSize, schema: schema, on: connection, logger: logger)
            guard !records.isEmpty else { return 0 }
            let results = await producer.sendEach(records.map(\.outgoingMessage))
            var refused: [(OutboxRecord, any Error)] = []
            for (record, result) in zip(records, results) {
                guard case .failure(let error) = result else { continue }
                // Only a refusal of this message moves it aside; anything else (broker down, authorisation, an unknown
                // topic, a fatal producer) would refuse every row alike, so the batch is retried.
                guard let kafka = error as? KafkaError, kafka.refusesMessage else { throw error }
                refused.append((record, error))
            }
            for (record, error) in refused {
                let reason = (error as? KafkaError).map { "\($0.librdkafkaErrorName ?? "\($0.code)"): \($0.message)" } ?? "\(error)"
                try await Outbox.park(record, reason: reason, on: connection, logger: logger)
                metrics.outboxRowParked(topic: record.topic)
                logger.error(
                    "outbox row parked: the broker refused it for good",
                    metadata: error.logMetadata.merging([
                        LogKey.eventID: "\(record.eventID)", LogKey.eventType: "\(record.eventType)", KafkaLogKey.topic: "\(record.topic)",
                        LogKey.bytes: "\(record.body.count)",
                    ]) { $1 })
            }
            let refusedPositions = Set(refused.map(\.0.position))
            let published = records.filter { !refusedPositions.contains($0.position) }
            try await Outbox.remove(published, on: connection, logger: logger)
            for record in published { metrics.eventProduced(topic: record.topic) }
            logger.debug("published outbox batch", metadata: [LogKey.count: "\(published.count)", LogKey.lastPosition: "\(records.last!.position)"])
            return records.count
        }
    }

    private func publishUntilStopped() async {
        var wakeups = self.wakeups.makeAsyncIterator()
        var backoff = Backoff()
        while !stopping.load(ordering: .acquiring) {
            progress.began(Self.workerName)
            do {
                let published = try await publishBatch()
                progress.finished(Self.workerName)
                backoff.reset()
                // A full batch means more is waiting; otherwise sleep until a commit or the timer (nil: stopping).
                if published < batchSize, await wakeups.next() == nil { return }
            } catch {
                let delay = backoff.next()
                logger.warning("outbox relay failed; retrying", metadata: error.logMetadata.merging([LogKey.retryIn: "\(delay)"]) { $1 })
                try? await Task.sleep(for: delay)
            }
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
