public import CaretideKafka
import CaretideSchemas
public import CaretideStore
import Foundation
public import Logging
import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// Publishes the service's outbox to Kafka. On a connection of its own it takes the schema's publisher role (a
/// session-level advisory lock: one relay of all the service's replicas publishes, so one patient's events leave in
/// order), then, round after round, reads a batch, sends it and awaits every acknowledgement. What was acknowledged is
/// deleted by the next round's read, in the same statement (a batch larger than `Outbox.foldedRemovalLimit` at once,
/// by a statement of its own), and by the last round before the relay gives up the role. No transaction stays open
/// while the broker answers, and a round costs one statement instead of five. A crash before the delete
/// publishes the batch again, which consumers absorb because they are idempotent on event id; nothing is ever lost.
public final class OutboxRelay: Service, Sendable {
    let database: Database
    let producer: KafkaProducer
    let readiness: ReadinessState
    let metrics: ServiceMetrics
    let logger: Logger
    let batchSize: Int
    /// Which wake-ups call for a check. The idle interval is the longest the relay goes without one when nothing woke
    /// it; it covers rows written by other processes: another replica's (whose relay does not hold the publisher role,
    /// so the holder publishes them at its next check) and `caretide rescore`'s. A check costs one statement, and so
    /// does asking for the role.
    let checks: RelayWakeups
    /// Bounds one publishing round: its statements and the broker's acknowledgements it waits for. A query on a
    /// connection that died mid-statement can hang in the driver (seen during `pg_ctl restart`); this ends it, by
    /// closing the connection, which also gives up the publisher role.
    let transactionTimeout: Duration
    let progress: ProgressMonitor
    static let workerName = "outbox relay"

    private let stopping = Atomic<Bool>(false)
    /// Wake-ups: one per committed transaction (`wake()`) and one when the idle interval passes without a check; at
    /// most one waits, so wakes that come while a batch is out are answered by one more round at most, not one each
    /// (`checks` says whether they call for one). The relay sleeps until the next one: polling a flag instead kept an
    /// idle service busy.
    private let wakeups: AsyncStream<Void>
    private let wakeupSource: AsyncStream<Void>.Continuation

    public init(
        database: Database, producer: KafkaProducer, readiness: ReadinessState, metrics: ServiceMetrics, logger: Logger,
        batchSize: Int = 5_000, idleInterval: Duration = .milliseconds(50), transactionTimeout: Duration, progress: ProgressMonitor
    ) {
        self.database = database
        self.producer = producer
        self.readiness = readiness
        self.metrics = metrics
        self.logger = logger
        self.batchSize = batchSize
        self.checks = RelayWakeups(idleInterval: idleInterval)
        self.transactionTimeout = transactionTimeout
        self.progress = progress
        (wakeups, wakeupSource) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        progress.register(Self.workerName)
    }

    /// Tells the relay that a transaction just committed outbox rows, so it publishes without waiting for its timer.
    public func wake() {
        checks.committed()
        wakeupSource.yield()
    }

    public func run() async {
        await withGracefulShutdownHandler {
            guard await readiness.waitUntilMigrated(unless: { stopping.load(ordering: .acquiring) }) else { return }
            await withDiscardingTaskGroup { group in
                // Rows written by other processes (`caretide rescore`) wake nobody here: the timer covers them.
                group.addTask { [checks, wakeupSource] in
                    while !Task.isCancelled {
                        let wait = checks.untilTimerIsDue()
                        guard wait == .zero else {
                            try? await Task.sleep(for: wait)
                            continue
                        }
                        wakeupSource.yield()
                        try? await Task.sleep(for: checks.idleInterval)
                    }
                }
                await publishUntilStopped()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .releasing)
            self.wakeupSource.finish()
        }
    }

    /// Holds a connection and, on it, the publisher role for as long as it can: rounds until stopped, then a last one
    /// so that events committed just before shutdown leave now rather than at the next start. Without the role (another
    /// replica publishes) it hands the connection back and asks again when the timer is due.
    private func publishUntilStopped() async {
        var wakeups = self.wakeups.makeAsyncIterator()
        var backoff = Backoff()
        while true {
            do {
                let askedForRole = checks.checkBegins()
                let stillRunning = try await database.client.withConnection { connection in
                    try await self.whilePublisher(on: connection) {
                        // Published by the last round and not yet deleted: the next round's read deletes them.
                        var published: [Int64] = []
                        while !self.stopping.load(ordering: .acquiring) {
                            self.progress.began(Self.workerName)
                            let check = self.checks.checkBegins()
                            let round = try await self.publishRound(on: connection, removingFirst: published)
                            self.progress.finished(Self.workerName)
                            published = round.published
                            backoff.reset()
                            // A full batch means more is waiting; otherwise sleep until a commit the round did not see,
                            // or the timer.
                            if round.read < self.batchSize, await !self.wokenForCheck(after: check, publishing: true, &wakeups) { break }
                        }
                        let last = try await self.publishRound(on: connection, removingFirst: published)
                        try await self.bounded(on: connection) { [logger] in
                            try await Outbox.remove(positions: last.published, on: connection, logger: logger)
                        }
                        return false
                    } ?? true
                }
                guard stillRunning, !stopping.load(ordering: .acquiring) else { return }
                // Another relay publishes: ask again when the timer is due (this replica's commits change nothing
                // about who holds the role; the holder publishes their rows at its next check).
                if await !wokenForCheck(after: askedForRole, publishing: false, &wakeups) { return }
            } catch {
                // The round stays begun and unfinished: a relay that keeps failing shows as stalled (`/readyz`).
                guard !stopping.load(ordering: .acquiring) else { return }
                let delay = backoff.next()
                logger.warning("outbox relay failed; retrying", metadata: error.logMetadata.merging([LogKey.retryIn: "\(delay)"]) { $1 })
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// Sleeps until a wake-up calls for a check after `check`: for the publisher, a commit counted since or the idle
    /// interval passed; otherwise only the interval. False when the relay is stopping.
    private nonisolated(nonsending) func wokenForCheck(
        after check: RelayWakeups.Check, publishing: Bool, _ wakeups: inout AsyncStream<Void>.AsyncIterator
    ) async -> Bool {
        repeat {
            guard await wakeups.next(isolation: #isolation) != nil else { return false }
        } while !(publishing ? checks.callsForRead(after: check) : checks.timerIsDue(after: check))
        return true
    }

    /// Runs `body` holding the schema's publisher role on `connection`; nil without running it if another relay holds
    /// the role. The role is given up when `body` returns; when it throws, the connection is closed instead, so that
    /// no connection goes back to the pool still holding the role (a request would then hold it for as long as the
    /// connection lived, and no relay could publish).
    private nonisolated(nonsending) func whilePublisher<Result>(
        on connection: PostgresConnection, _ body: () async throws -> Result
    ) async throws -> Result? {
        let (schema, logger) = (database.schema, logger)
        guard try await bounded(on: connection, { try await Outbox.tryToBecomePublisher(schema: schema, on: connection, logger: logger) }) else {
            return nil
        }
        do {
            let result = try await body()
            try await bounded(on: connection) { try await Outbox.stopPublishing(schema: schema, on: connection, logger: logger) }
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `operation` on `connection`, given up after the relay's deadline by closing the connection: a statement on a
    /// connection that died mid-statement can hang in the driver, and the relay must not wait on it for ever. Closing
    /// it ends the session, and with it the publisher role.
    private func bounded<Result: Sendable>(
        on connection: PostgresConnection, _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withDeadline(transactionTimeout, operation) { Task { try? await connection.close() } }
    }

    /// One round: the rows at `removing` deleted, up to a batch read, sent and awaited; how many rows it read, and
    /// the positions of those published and not yet deleted, for the next round to delete (a refused row is parked
    /// at once; a batch too large to fold into the next read is deleted at once).
    ///
    /// A row the broker refuses for what it is (too large, malformed) is moved to `outbox_parked` with the reason, so
    /// the rows behind it still leave. Any other failure (broker down, a timeout, authorisation) keeps the whole batch
    /// for the next round: rows that did get through are sent again, and consumers drop them by event id.
    private func publishRound(
        on connection: PostgresConnection, removingFirst removing: [Int64]
    ) async throws -> (read: Int, published: [Int64]) {
        try await bounded(on: connection) { [batchSize, producer, metrics, logger] in
            let records = try await Outbox.readBatch(limit: batchSize, removingFirst: removing, on: connection, logger: logger)
            guard !records.isEmpty else { return (0, []) }
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
            for record in published { metrics.eventProduced(topic: record.topic) }
            logger.debug("published outbox batch", metadata: [LogKey.count: "\(published.count)", LogKey.lastPosition: "\(records.last!.position)"])
            guard published.count > Outbox.foldedRemovalLimit else { return (records.count, published.map(\.position)) }
            try await Outbox.remove(published, on: connection, logger: logger)
            return (records.count, [])
        }
    }
}

extension OutboxRecord {
    /// The event's headers in the order of their names, the order `OutgoingMessage.headers` would sort them into, but
    /// without a dictionary built and sorted for every event the relay sends.
    var outgoingMessage: OutgoingMessage {
        var message = OutgoingMessage(topic: topic, key: key, value: body)
        message.headerFields = [
            KafkaHeader(name: EventHeader.eventID, value: Array(eventID.lowercasedText.utf8)),
            KafkaHeader(name: EventHeader.eventType, value: Array(eventType.utf8)),
            KafkaHeader(name: EventHeader.schemaVersion, value: Array(String(schemaVersion).utf8)),
        ]
        if let traceID { message.headerFields.append(KafkaHeader(name: EventHeader.traceID, value: Array(traceID.utf8))) }
        return message
    }
}
