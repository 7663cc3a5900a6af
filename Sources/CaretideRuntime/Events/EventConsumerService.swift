import CaretideKafka
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
public import ServiceLifecycle
import Synchronization

/// The consume → process → commit loop shared by every consuming service.
///
/// For each message: validate it (a refusal goes to the dead-letter topic with the reason), then in one transaction
/// record the event id as processed and let the handler apply it, then commit the offset. The offset is committed only
/// after the transaction, so a crash at any point redelivers the message, and the processed-events key makes the
/// redelivery a no-op. While the database is unreachable the message is retried with backoff, never skipped. An event
/// the handler needs nothing of (`EventHandler.needsNothing`) has no effects to record: it is neither claimed nor
/// given a transaction, and its offset is committed with its batch's.
public final class EventConsumerService: Service, Sendable {
    let name: String
    /// The service whose events this consumer's handler publishes (`producer` of each).
    let producerName: String
    let topics: [Topic]
    let messages: ConsumedMessages
    let kafka: KafkaConfiguration
    let database: Database
    let producer: KafkaProducer
    let relay: OutboxRelay
    let readiness: ReadinessState
    let metrics: ServiceMetrics
    let codec: EventCodec
    let logger: Logger
    let limits: RuntimeLimits
    let progress: ProgressMonitor
    let deadLetters: DeadLetters
    private let inFlight = InFlightMessages()

    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    /// Most messages taken from the consumer, or applied in one transaction, at once.
    let maxBatchSize = 1000
    /// Lanes applied side by side, each in its own transactions, a partition in one lane at a time
    /// (`RuntimeLimits.consumerLanes`, `MessageLanes`).
    var parallelism: Int { limits.consumerLanes }
    /// Messages waiting for a lane while another is busy that bring a second lane in (`MessageLanes`).
    static let laneSharingThreshold = 100
    /// The smallest batch after which the next small one waits out `RuntimeLimits.consumerBatchWindow`: a load that
    /// batches by itself. After a smaller one (a light load) the next goes at once and pays no latency.
    static let busyBatch = 8

    /// What a consumer reads: its group is `caretide-<name>`, its topics, what applies their messages, and how to reach
    /// the brokers.
    struct Subscription {
        let name: String
        let producer: String
        let topics: [Topic]
        let messages: ConsumedMessages
        let kafka: KafkaConfiguration
    }

    init(subscription: Subscription, parts: ServiceParts) {
        name = subscription.name
        producerName = subscription.producer
        topics = subscription.topics
        messages = subscription.messages
        kafka = subscription.kafka
        database = parts.database
        producer = parts.producer
        relay = parts.relay
        readiness = parts.readiness
        metrics = parts.metrics
        codec = parts.codec
        logger = parts.logger
        limits = parts.limits
        progress = parts.progress
        deadLetters = DeadLetters(
            consumer: name, producer: producer, database: database, metrics: metrics, logger: logger,
            publishDeadline: limits.deadLetterPublishDeadline)
        for lane in 0..<parallelism { progress.register(laneName(lane), minimumThreshold: messages.transactionTimeout) }
    }

    /// "consumer lane 2", or "ingest-service-events lane 2" beside a service's first consumer.
    func laneName(_ lane: Int) -> String { name == producerName ? "consumer lane \(lane)" : "\(name) lane \(lane)" }

    /// True once the consumer has joined its group (part of `/readyz`).
    public var isConsuming: Bool { started.load(ordering: .acquiring) }

    /// One poll loop hands each partition's messages to its lane; each lane applies and commits on its own, so
    /// while one waits on PostgreSQL another decodes, and neither waits for the other's transaction. A partition's
    /// messages (so a patient's events) stay in one lane and in order.
    public func run() async throws {
        try await withGracefulShutdownHandler {
            guard await readiness.waitUntilMigrated(unless: { stopping.load(ordering: .acquiring) }) else { return }
            let consumer = try KafkaConsumer(
                configuration: kafka, groupID: "caretide-\(name)", topics: topics.map(\.name), logger: logger,
                onOffsetReset: { [metrics] reset in metrics.offsetReset(topic: reset.topic) })
            started.store(true, ordering: .releasing)
            logger.info("consuming", metadata: [KafkaLogKey.topics: "\(topics.map(\.name).joined(separator: ","))"])
            let lanes = MessageLanes(
                capacity: 2 * maxBatchSize, sharingThreshold: Self.laneSharingThreshold, batchWindow: messages.batchWindow(limits),
                busyBatch: Self.busyBatch)
            let pollFailure = await withTaskGroup(of: Void.self, returning: (any Error)?.self) { group in
                for index in 0..<parallelism {
                    group.addTask { await self.work(lanes, index, consumer: consumer) }
                }
                // Apart from the poll loop, which waits while the lanes are full: the lag must show most when the
                // consumer is furthest behind.
                group.addTask { await self.reportLagEverySecond(consumer) }
                var failure: (any Error)?
                do {
                    try await poll(consumer, into: lanes)
                } catch {
                    // The service is failing: lanes finish what they hold but stop retrying an unreachable database.
                    failure = error
                    stopping.store(true, ordering: .releasing)
                }
                await lanes.close()
                await group.waitForAll()
                return failure
            }
            await consumer.close()
            started.store(false, ordering: .releasing)
            logger.info("consumer stopped")
            if let pollFailure { throw pollFailure }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .releasing)
        }
    }

    /// Polls until shutdown or cancellation (a sibling service failed and the group is cancelled: a cancelled poll
    /// returns at once with nothing, so the flag alone would spin), queueing the messages for the lanes.
    private func poll(_ consumer: KafkaConsumer, into lanes: MessageLanes) async throws {
        while !stopping.load(ordering: .acquiring), !Task.isCancelled {
            let messages = try await consumer.pollBatch(maxMessages: maxBatchSize, timeout: .milliseconds(100))
            if !messages.isEmpty {
                inFlight.delivered(messages, at: Date())
                await lanes.put(messages)
            }
        }
    }

    /// The lag once a second until the consumer stops.
    private func reportLagEverySecond(_ consumer: KafkaConsumer) async {
        while !stopping.load(ordering: .acquiring), !Task.isCancelled {
            reportLag(consumer)
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Applies batches from the lanes' queue as lane `lane`, a batch per transaction, committing each batch's offsets
    /// once its effects are durable (before taking the next, which frees the batch's partitions for the other lanes).
    /// Stops when the queue is closed and nothing is left for it, or when shutdown interrupts a retry: then nothing of
    /// that batch is committed and the queue is closed, so its messages are redelivered to whoever consumes next.
    private func work(_ lanes: MessageLanes, _ lane: Int, consumer: KafkaConsumer) async {
        let name = laneName(lane)
        var offsetsToRetry: [IncomingMessage] = []
        while let messages = await lanes.take(lane: lane, upTo: maxBatchSize) {
            progress.began(name)
            guard await apply(messages) else {
                // The batch's partitions stay this lane's: no other lane may apply, and commit, what follows them.
                await lanes.close()
                break
            }
            do {
                try await consumer.commit(offsetsToRetry + messages, wait: false)
                inFlight.committed(offsetsToRetry + messages)
                offsetsToRetry = []
            } catch {
                offsetsToRetry += messages
                logger.warning(
                    "offset commit failed; it is retried with the next one",
                    metadata: messages[messages.count - 1].metadata
                        .merging(error.logMetadata) { $1 })
            }
            progress.finished(name)
        }
        // Offsets whose commit failed are committed now, synchronously; closing the consumer completes the last
        // asynchronous one.
        try? await consumer.commit(offsetsToRetry, wait: true)
    }

    /// Applies a lane's batch until its effects are durable (refused messages dead-lettered). Returns false only when
    /// shutdown interrupted a retry, in which case nothing of the batch may be committed.
    private func apply(_ messages: [IncomingMessage]) async -> Bool {
        let start = ContinuousClock.now
        if case .inbound(let inbound) = self.messages {
            for message in messages {
                metrics.eventConsumed(topic: message.topic)
                guard await applyInbound(message, inbound) else { return false }
            }
            return true
        }
        guard case .events(let handler) = self.messages else { preconditionFailure("inbound messages are applied above") }
        var accepted: [(message: IncomingMessage, event: ValidatedEvent)] = []
        var needingNothing: [IncomingMessage] = []
        for message in messages {
            metrics.eventConsumed(topic: message.topic)
            do {
                let event = try codec.decode(message.value)
                // Keys decide partitions, so ordering: an event filed under another patient's key could overtake or
                // be overtaken by that patient's own events. Refused, naming neither.
                if let patientID = event.patientID, message.keyBytes != Array(patientID.utf8) {
                    guard await deadLetter(message, reason: "the message key does not match the event's patientId") else { return false }
                    continue
                }
                // Nothing to claim, and no transaction unless another event of the batch needs one.
                if handler.needsNothing(event) {
                    needingNothing.append(message)
                    continue
                }
                accepted.append((message, event))
            } catch {
                guard await deadLetter(message, reason: error.description) else { return false }
            }
        }
        guard await applyValidated(accepted, receivedAt: start) else { return false }
        // Done when the batch is, like the events that needed something.
        for message in needingNothing { metrics.processingLatency(topic: message.topic, ContinuousClock.now - start) }
        return true
    }

    /// Applies a batch's validated events until their effects are durable (`apply(_:)`).
    private func applyValidated(
        _ accepted: [(message: IncomingMessage, event: ValidatedEvent)], receivedAt start: ContinuousClock.Instant
    ) async -> Bool {
        guard !accepted.isEmpty else { return true }
        if accepted.count > 1 {
            var backoff = Backoff()
            while true {
                do {
                    try await applyInOneTransaction(accepted.map(\.event), logger: logger)
                    relay.wake()
                    for (message, _) in accepted { metrics.processingLatency(topic: message.topic, ContinuousClock.now - start) }
                    return true
                } catch  where TransientError.isTransient(error) {
                    guard !stopping.load(ordering: .acquiring) else { return false }
                    let delay = backoff.next()
                    logger.warning(
                        "database unavailable; retrying the batch", metadata: error.logMetadata.merging([LogKey.retryIn: "\(delay)"]) { $1 })
                    try? await Task.sleep(for: delay)
                } catch {
                    // Something in the batch was refused: apply the events one by one to find it.
                    logger.debug("batch refused; applying its events one at a time", metadata: [LogKey.count: "\(accepted.count)"])
                    break
                }
            }
        }
        for (message, event) in accepted {
            guard await process(message, event: event, receivedAt: start) else { return false }
        }
        return true
    }

    /// One transaction for a batch (or a single event): new events only (the processed-events key filters
    /// redeliveries), given to the handler at once if it takes batches. Returns how many events were new.
    @discardableResult
    private func applyInOneTransaction(_ events: [ValidatedEvent], logger: Logger) async throws -> Int {
        guard case .events(let handler) = messages else { return 0 }
        let context = (codec: codec, producer: producerName, logger: logger, handler: handler)
        return try await database.transaction(timeout: handler.transactionTimeout ?? limits.transactionTimeout) { connection in
            let claimed = try await ErasedPatients.claim(
                events.map(\.eventID), patientIDs: Array(Set(events.compactMap(\.patientID))), consumer: self.name, on: connection,
                logger: context.logger)
            var seen: Set<UUID> = []
            let newEvents = events.filter { claimed.fresh.contains($0.eventID) && seen.insert($0.eventID).inserted }
            guard !newEvents.isEmpty else { return 0 }
            let handlerContext = HandlerContext(
                connection: connection, codec: context.codec, producer: context.producer, logger: context.logger, ordering: .consumerLane,
                deferred: nil, erasedAmongBatch: claimed.erased)
            try await context.handler.handle(batch: newEvents, context: handlerContext)
            return newEvents.count
        }
    }

    /// Handles one message until its effects are durable or it is dead-lettered. Returns false only when shutdown
    /// interrupted a retry, in which case the message must not be committed.
    private func process(_ message: IncomingMessage, event: ValidatedEvent, receivedAt start: ContinuousClock.Instant) async -> Bool {
        var logger = self.logger
        logger[metadataKey: LogKey.eventID] = "\(event.eventID)"
        logger[metadataKey: LogKey.eventType] = "\(event.eventType.rawValue)"
        return await untilDurable(message, receivedAt: start, logger: logger) { logger in
            let applied = try await applyInOneTransaction([event], logger: logger) > 0
            if applied { relay.wake() } else { logger.debug("duplicate event ignored") }
        }
    }

    /// Hands an inbound message to its handler, unless it was applied before, and records it applied.
    private func applyInbound(_ message: IncomingMessage, _ handler: any InboundMessageHandler) async -> Bool {
        await untilDurable(message, receivedAt: .now, logger: logger) { [database] logger in
            guard try await !InboundMessages.wasApplied(message, on: database, logger: logger) else {
                return logger.debug("inbound message applied before; skipped", metadata: message.metadata)
            }
            guard let inbound = InboundMessage(message) else { throw UnprocessableEvent("the topic \(message.topic) is not an inbound topic") }
            try await handler.handle(inbound)
            try await InboundMessages.markApplied(message, on: database, logger: logger)
        }
    }

    /// Runs `attempt` until it succeeds (retrying what is transient with backoff) or the message is dead-lettered.
    /// Returns false only when shutdown interrupted a retry, in which case the message must not be committed.
    private func untilDurable(
        _ message: IncomingMessage, receivedAt start: ContinuousClock.Instant, logger: Logger, _ attempt: (Logger) async throws -> Void
    ) async -> Bool {
        var backoff = Backoff()
        while true {
            do {
                try await attempt(logger)
                metrics.processingLatency(topic: message.topic, ContinuousClock.now - start)
                return true
            } catch let error as UnprocessableEvent {
                metrics.eventFailed(topic: message.topic)
                return await deadLetter(message, reason: error.reason)
            } catch let error as EventTooLarge {
                metrics.eventFailed(topic: message.topic)
                return await deadLetter(message, reason: error.description)
            } catch  where TransientError.isTransient(error) || error is RetryLater {
                guard !stopping.load(ordering: .acquiring) else { return false }
                let delay = backoff.next()
                logger.warning(
                    "the message cannot be applied now; retrying it", metadata: error.logMetadata.merging([LogKey.retryIn: "\(delay)"]) { $1 })
                try? await Task.sleep(for: delay)
            } catch {
                // Not transient and not a known refusal: a defect or a constraint the message breaks. Park it in the
                // dead-letter topic rather than block the partition forever.
                metrics.eventFailed(topic: message.topic)
                logger.error("message processing failed", metadata: [LogKey.error: "\(String(reflecting: type(of: error)))"])
                return await deadLetter(message, reason: "processing failed: \(String(describing: type(of: error)))")
            }
        }
    }

    /// The message to the dead-letter topic (or parked); false only when shutdown interrupted the retries.
    private func deadLetter(_ message: IncomingMessage, reason: String) async -> Bool {
        await deadLetters.send(message, reason: reason) { self.stopping.load(ordering: .acquiring) }
    }

    /// Lag per topic counted to the last committed offset, not the fetch position: what the broker holds beyond the
    /// consumer's position, plus what the lanes hold but have not committed yet (a lane stuck on the database); and in
    /// seconds, the age of the oldest message the lanes hold uncommitted. What the broker holds beyond that is younger,
    /// since a partition's messages are delivered in order, and the lanes fill before the poll loop waits.
    private func reportLag(_ consumer: KafkaConsumer) {
        let now = Date()
        var byTopic: [String: (messages: Int64, seconds: Double)] = [:]
        for partition in consumer.lag() {
            let held = inFlight.held(topic: partition.topic, partition: partition.partition)
            let age = held.oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0
            let sum = byTopic[partition.topic, default: (0, 0)]
            byTopic[partition.topic] = (sum.messages + partition.lag + held.count, max(sum.seconds, age))
        }
        for (topic, lag) in byTopic { metrics.consumerLag(topic: topic, messages: lag.messages, seconds: lag.seconds) }
    }
}

/// What a consumer's topics carry, and who applies it.
public enum ConsumedMessages: Sendable {
    /// Caretide events, validated, deduplicated by event id and applied in the transaction that records them (those
    /// the handler needs nothing of, `EventHandler.needsNothing`, neither recorded nor applied).
    case events(any EventHandler)
    /// Messages from outside Caretide on inbound topics, each given whole to the handler (`InboundMessageHandler`).
    case inbound(any InboundMessageHandler)

    var transactionTimeout: Duration? {
        if case .events(let handler) = self { handler.transactionTimeout } else { nil }
    }

    /// Events share a batch's statements, so a trickle of them waits for company; inbound messages are applied one
    /// by one whatever the batch, so waiting would only delay them. The operator's window, else the handler's own,
    /// else the runtime's default.
    func batchWindow(_ limits: RuntimeLimits) -> Duration {
        if case .events(let handler) = self {
            limits.consumerBatchWindow ?? handler.batchWindow ?? RuntimeLimits.defaultConsumerBatchWindow
        } else {
            .zero
        }
    }
}

/// Messages handed to the lanes whose offsets are not committed yet, per partition: how many, and when the oldest was
/// produced. Counted, not keyed by offset, so a partition that moves to another instance and back is not misread: a
/// partition's messages are delivered, and committed, in offset order, so the oldest held is the first not committed.
final class InFlightMessages: Sendable {
    private struct Partition: Hashable {
        var topic: String
        var partition: Int32

        init(topic: String, partition: Int32) {
            self.topic = topic
            self.partition = partition
        }

        init(_ message: IncomingMessage) { self.init(topic: message.topic, partition: message.partition) }
    }

    /// The produce times of a partition's held messages, oldest first, from `start` on (the front is dropped lazily).
    private struct Held {
        var times: [Date] = []
        var start = 0

        var count: Int { times.count - start }

        mutating func drop(_ n: Int) {
            start += min(n, count)
            if start == times.count {
                times.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 1024, start * 2 > times.count {
                times.removeFirst(start)
                start = 0
            }
        }
    }
    private let partitions = Mutex<[Partition: Held]>([:])

    /// Messages handed to the lanes; one without a broker timestamp counts from `now`, when it was handed over.
    func delivered(_ messages: [IncomingMessage], at now: Date) {
        partitions.withLock { partitions in
            for message in messages { partitions[Partition(message), default: Held()].times.append(message.timestamp ?? now) }
        }
    }

    func committed(_ messages: [IncomingMessage]) {
        var counts: [Partition: Int] = [:]
        for message in messages { counts[Partition(message), default: 0] += 1 }
        partitions.withLock { partitions in
            for (partition, count) in counts { partitions[partition]?.drop(count) }
        }
    }

    /// How many of the partition's messages the lanes hold uncommitted, and the produce time of the oldest.
    func held(topic: String, partition: Int32) -> (count: Int64, oldest: Date?) {
        partitions.withLock { partitions in
            guard let held = partitions[Partition(topic: topic, partition: partition)], held.count > 0 else { return (0, nil) }
            return (Int64(held.count), held.times[held.start])
        }
    }
}
