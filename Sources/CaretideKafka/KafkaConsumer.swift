internal import CRdKafka
internal import Dispatch
internal import Foundation
public import Logging
internal import Synchronization

/// A group consumer with manual offset commits.
///
/// Defaults: `enable.auto.commit=false`, `enable.auto.offset.store=false`,
/// `auto.offset.reset=earliest`; ``KafkaConfiguration/properties`` may override them.
/// Every blocking librdkafka call (poll with a timeout, synchronous commit, close) runs on the
/// consumer's own serial `DispatchQueue`, never on Swift's cooperative pool.
public final class KafkaConsumer: Sendable {
    let runtime: ConsumerRuntime

    /// - Parameter onOffsetReset: told when the position committed for a partition is no longer on the broker (its
    ///   retention deleted the messages first) and the consumer jumps to `auto.offset.reset`: messages were skipped.
    public init(
        configuration: KafkaConfiguration, groupID: String, topics: [String], logger: Logger,
        onOffsetReset: (@Sendable (OffsetReset) -> Void)? = nil
    ) throws {
        guard !topics.isEmpty else {
            throw KafkaError(code: .configuration, message: "A Kafka consumer needs at least one topic")
        }
        guard !groupID.isEmpty else {
            throw KafkaError(code: .configuration, message: "A Kafka consumer needs a group id")
        }
        var properties = [
            "enable.auto.commit": "false",
            "enable.auto.offset.store": "false",
            "auto.offset.reset": "earliest",
        ]
        properties.merge(configuration.librdkafkaProperties) { _, caller in caller }
        properties["group.id"] = groupID

        let client = try RDKafkaClient(
            kind: .consumer,
            properties: properties,
            context: RDKafkaCallbackContext(logger: logger, onOffsetReset: onOffsetReset)
        ) { conf in
            rd_kafka_conf_set_offset_commit_cb(conf) { _, error, offsets, opaque in
                ConsumerRuntime.offsetCommitReport(error, offsets: offsets, opaque: opaque)
            }
        }
        // Route the main queue into the consumer queue: rd_kafka_consumer_poll serves everything.
        rd_kafka_poll_set_consumer(client.handle)

        let list = rd_kafka_topic_partition_list_new(Int32(clamping: topics.count))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for topic in topics {
            rd_kafka_topic_partition_list_add(list, topic, RD_KAFKA_PARTITION_UA)
        }
        let result = rd_kafka_subscribe(client.handle, list)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(code: .consumer, response: result, context: "Could not subscribe")
        }
        // rd_kafka_consumer_close is documented to take "roughly session.timeout.ms" at most (45 s by default): closing
        // is given up a little after that.
        let session = properties["session.timeout.ms"].flatMap { Int($0) } ?? 45_000
        self.runtime = ConsumerRuntime(client: client, groupID: groupID, logger: logger, closeTimeout: Duration.milliseconds(session) + .seconds(10))
        logger.debug(
            "Kafka consumer subscribed", metadata: [KafkaLogKey.group: "\(groupID)", KafkaLogKey.topics: "\(topics.joined(separator: ","))"])
    }

    deinit {
        // Non-blocking: closing runs on the consumer queue, which then releases the handle.
        runtime.startClosing(waiter: nil)
    }

    /// Commits `offset + 1` for the highest given offset of each partition.
    ///
    /// - Parameter wait: `true` commits synchronously on the consumer queue and reports the broker's
    ///   answer; `false` commits asynchronously (the outcome is only logged).
    public func commit(_ messages: [IncomingMessage], wait: Bool) async throws {
        var highest: [TopicPartition: Int64] = [:]
        for message in messages {
            let key = TopicPartition(topic: message.topic, partition: message.partition)
            highest[key] = max(highest[key] ?? Int64.min, message.offset)
        }
        guard !highest.isEmpty else { return }
        let offsets = highest.mapValues { $0 + 1 }
        if wait {
            try await runtime.commitSynchronously(offsets)
        } else {
            try runtime.commitAsynchronously(offsets)
        }
    }

    /// Current lag of each assigned partition: cached high watermark (`rd_kafka_get_watermark_offsets`)
    /// minus the application's position (`rd_kafka_position`, or the first message fetched but not yet
    /// handed out). Partitions whose high watermark is not known yet (nothing fetched) are left out; before
    /// the first message of a partition is consumed its position is taken as the low watermark, an upper
    /// bound. Non-blocking; empty after ``close()``.
    public func lag() -> [KafkaPartitionLag] {
        runtime.lag()
    }

    /// Leaves the group cleanly (as `rd_kafka_consumer_close` does) on the consumer queue, waiting a little longer
    /// than the session timeout at most: past it, closing is given up with a warning, and the group drops the consumer
    /// when its session expires. Idempotent; concurrent callers all return once the consumer is closed or given up.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            runtime.startClosing(waiter: continuation)
        }
    }
}

// MARK: - Runtime

/// The consumer's handle, dedicated queue and state; outlives ``KafkaConsumer`` until closing has run.
final class ConsumerRuntime: Sendable {
    private enum Lifecycle {
        case open
        case closing(waiters: [CheckedContinuation<Void, Never>])
        case closed
    }

    private struct State {
        var lifecycle = Lifecycle.open
        /// Messages fetched by a poll batch, not yet handed to an iterator (FIFO).
        var buffered: [IncomingMessage] = []

        var isOpen: Bool {
            if case .open = lifecycle { return true }
            return false
        }
    }

    /// Outcome of one `rd_kafka_consumer_poll`.
    private enum PollOutcome {
        case message(IncomingMessage)
        case nothing
        case handled
    }

    /// Most messages one poll round moves into the buffer (served from librdkafka's local queue).
    static let batchSize = 500
    static let pollTimeoutMilliseconds: Int32 = 100

    let client: RDKafkaClient
    let groupID: String
    let logger: Logger
    /// How long closing may wait for the group to let the consumer go (`closeWithin`).
    let closeTimeout: Duration
    private let queue: DispatchQueue
    private let state = Mutex(State())

    init(client: RDKafkaClient, groupID: String, logger: Logger, closeTimeout: Duration) {
        self.client = client
        self.groupID = groupID
        self.logger = logger
        self.closeTimeout = closeTimeout
        self.queue = DispatchQueue(label: "caretide.kafka.consumer")
    }

    // MARK: Receiving

    func nextMessage() async throws -> IncomingMessage? {
        switch takeBuffered() {
        case .some(.some(let message)): return message
        case .some(.none): return nil  // closing or closed
        case .none: break
        }
        let request = PollRequest()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<IncomingMessage?, any Error>) in
                queue.async { [self] in
                    self.pollStep(request, continuation)
                }
            }
        } onCancel: {
            request.cancel()
        }
    }

    /// Up to `limit` messages already fetched and buffered, without waiting (batch processing after a first message).
    func takeBuffered(upTo limit: Int) -> [IncomingMessage] {
        state.withLock { state in
            guard state.isOpen, limit > 0 else { return [] }
            let taken = Array(state.buffered.prefix(limit))
            state.buffered.removeFirst(taken.count)
            return taken
        }
    }

    /// `nil` when the buffer is empty; `.some(nil)` when the consumer is no longer open.
    private func takeBuffered() -> IncomingMessage?? {
        state.withLock { state -> IncomingMessage?? in
            guard state.isOpen else { return .some(nil) }
            guard !state.buffered.isEmpty else { return nil }
            return .some(state.buffered.removeFirst())
        }
    }

    /// One poll of at most ~100 ms on the consumer queue; re-enqueues itself when nothing arrived, so
    /// that commits and close requested meanwhile run in between.
    private func pollStep(_ request: PollRequest, _ continuation: CheckedContinuation<IncomingMessage?, any Error>) {
        if request.isCancelled {
            continuation.resume(returning: nil)
            return
        }
        switch takeBuffered() {
        case .some(let message):
            continuation.resume(returning: message)
            return
        case .none:
            break
        }
        do {
            // The first poll waits up to 100 ms; the rest only take what is already in the local queue.
            var batch: [IncomingMessage] = []
            var polls = 0
            polling: while batch.count < Self.batchSize, polls < 2 * Self.batchSize {
                let outcome = try pollOnce(timeoutMilliseconds: polls == 0 ? Self.pollTimeoutMilliseconds : 0)
                polls += 1
                switch outcome {
                case .message(let message): batch.append(message)
                case .handled: continue polling
                case .nothing: break polling
                }
            }
            guard !batch.isEmpty else {
                queue.async { [self] in
                    self.pollStep(request, continuation)
                }
                return
            }
            let first = state.withLock { state -> IncomingMessage? in
                guard state.isOpen else { return nil }
                state.buffered.append(contentsOf: batch)
                return state.buffered.removeFirst()
            }
            continuation.resume(returning: first)
        } catch {
            continuation.resume(throwing: error)
        }
    }

    /// Polls once; copies the message out and destroys it.
    private func pollOnce(timeoutMilliseconds: Int32) throws -> PollOutcome {
        let handle = client.handle
        if let fatal = fatalConsumerError() { throw fatal }
        guard let message = rd_kafka_consumer_poll(handle, timeoutMilliseconds) else {
            return .nothing
        }
        defer { rd_kafka_message_destroy(message) }

        let raw = message.pointee
        let topic = raw.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let metadata: Logger.Metadata = [
            KafkaLogKey.topic: "\(topic)",
            KafkaLogKey.partition: "\(raw.partition)",
            KafkaLogKey.offset: "\(raw.offset)",
        ]

        guard raw.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            if raw.err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
                logger.trace("Kafka partition end reached", metadata: metadata)
                return .handled
            }
            if raw.err == RD_KAFKA_RESP_ERR__FATAL, let fatal = fatalConsumerError() {
                throw fatal
            }
            if Self.isFatalConsumerError(raw.err) {
                throw KafkaError(code: .consumer, response: raw.err, context: "Kafka consumer failed")
            }
            var errorMetadata = metadata
            errorMetadata["kafka.error"] = "\(String(cString: rd_kafka_err2name(raw.err)))"
            logger.warning("Kafka consumer error (transient)", metadata: errorMetadata)
            return .handled
        }

        // Key, value and headers are copied as bytes, exactly as received, so a dead-letter copy is the same message
        // (the lossy `String` forms are conveniences for the code that reads them).
        let value: [UInt8]? = raw.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.len)) }
        let keyBytes: [UInt8]? = raw.key.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.key_len)) }

        var headers: [KafkaHeader] = []
        var headerList: OpaquePointer?
        if rd_kafka_message_headers(message, &headerList) == RD_KAFKA_RESP_ERR_NO_ERROR, let headerList {
            var index = 0
            var name: UnsafePointer<CChar>?
            var headerValue: UnsafeRawPointer?
            var size = 0
            while rd_kafka_header_get_all(headerList, index, &name, &headerValue, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
                if let name {
                    headers.append(
                        KafkaHeader(
                            name: String(cString: name), value: headerValue.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }))
                }
                index += 1
            }
        }

        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &timestampType)
        let timestamp = milliseconds >= 0 ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : nil

        logger.trace("Kafka message received", metadata: metadata)
        return .message(
            IncomingMessage(
                topic: topic,
                partition: raw.partition,
                offset: raw.offset,
                keyBytes: keyBytes,
                value: value,
                headerFields: headers,
                timestamp: timestamp
            )
        )
    }

    private func fatalConsumerError() -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let code = text.withUnsafeMutableBufferPointer { buffer in
            rd_kafka_fatal_error(client.handle, buffer.baseAddress, buffer.count)
        }
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError(
            code: .consumer,
            message: "Fatal Kafka consumer error: \(RDKafkaClient.string(text))",
            isRetriable: false,
            librdkafkaErrorName: String(cString: rd_kafka_err2name(code))
        )
    }

    /// Errors that polling again will not cure.
    private static func isFatalConsumerError(_ error: rd_kafka_resp_err_t) -> Bool {
        switch error {
        case RD_KAFKA_RESP_ERR__FATAL,
            RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
            RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED,
            RD_KAFKA_RESP_ERR__INVALID_ARG:
            true
        default:
            false
        }
    }

    // MARK: Commit

    func commitSynchronously(_ offsets: [TopicPartition: Int64]) async throws {
        try ensureOpen()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                continuation.resume(with: Result { try self.commit(offsets, asynchronously: false) })
            }
        }
    }

    func commitAsynchronously(_ offsets: [TopicPartition: Int64]) throws {
        try ensureOpen()
        // Non-blocking: the outcome arrives in the offset commit callback.
        try commit(offsets, asynchronously: true)
    }

    private func ensureOpen() throws {
        guard state.withLock({ $0.isOpen }) else {
            throw KafkaError(code: .closed, message: "The Kafka consumer is closed")
        }
    }

    private func commit(_ offsets: [TopicPartition: Int64], asynchronously: Bool) throws {
        // A commit queued before close() still runs; one after closing does not.
        if case .closed = state.withLock({ $0.lifecycle }) {
            throw KafkaError(code: .closed, message: "The Kafka consumer is closed")
        }
        let list = rd_kafka_topic_partition_list_new(Int32(clamping: offsets.count))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for (partition, offset) in offsets {
            rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition).pointee.offset = offset
        }
        let result = rd_kafka_commit(client.handle, list, asynchronously ? 1 : 0)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(code: .commit, response: result, context: "Could not commit offsets")
        }
        if !asynchronously {
            for index in 0..<Int(list.pointee.cnt) {
                let element = list.pointee.elems[index]
                guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw KafkaError(
                        code: .commit,
                        response: element.err,
                        context: "Could not commit the offset of \(String(cString: element.topic)) partition \(element.partition)"
                    )
                }
            }
        }
        for (partition, offset) in offsets {
            logger.trace(
                asynchronously ? "Kafka offset commit requested" : "Kafka offset committed",
                metadata: [KafkaLogKey.topic: "\(partition.topic)", KafkaLogKey.partition: "\(partition.partition)", KafkaLogKey.offset: "\(offset)"]
            )
        }
    }

    /// Offset commit callback, served by rd_kafka_consumer_poll on the consumer queue.
    static func offsetCommitReport(
        _ error: rd_kafka_resp_err_t,
        offsets: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
        opaque: UnsafeMutableRawPointer?
    ) {
        guard let logger = RDKafkaCallbackContext.from(opaque)?.logger else { return }
        guard let offsets else { return }
        for index in 0..<Int(offsets.pointee.cnt) {
            let element = offsets.pointee.elems[index]
            let partitionError = error != RD_KAFKA_RESP_ERR_NO_ERROR ? error : element.err
            var metadata: Logger.Metadata = [
                KafkaLogKey.topic: "\(String(cString: element.topic))",
                KafkaLogKey.partition: "\(element.partition)",
                KafkaLogKey.offset: "\(element.offset)",
            ]
            if partitionError == RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.trace("Kafka offset commit succeeded", metadata: metadata)
            } else if partitionError != RD_KAFKA_RESP_ERR__NO_OFFSET {
                metadata["kafka.error"] = "\(String(cString: rd_kafka_err2name(partitionError)))"
                logger.debug("Kafka offset commit failed", metadata: metadata)
            }
        }
    }

    // MARK: Lag

    func lag() -> [KafkaPartitionLag] {
        guard state.withLock({ $0.isOpen }) else { return [] }
        let handle = client.handle
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(handle, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else {
            return []
        }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        _ = rd_kafka_position(handle, assignment)

        // The first buffered message of a partition is the application's real next position.
        let firstBuffered = state.withLock { state -> [TopicPartition: Int64] in
            var first: [TopicPartition: Int64] = [:]
            for message in state.buffered {
                let key = TopicPartition(topic: message.topic, partition: message.partition)
                if first[key] == nil { first[key] = message.offset }
            }
            return first
        }

        var lags: [KafkaPartitionLag] = []
        for index in 0..<Int(assignment.pointee.cnt) {
            let element = assignment.pointee.elems[index]
            let topic = String(cString: element.topic)
            var low: Int64 = -1
            var high: Int64 = -1
            let result = rd_kafka_get_watermark_offsets(handle, element.topic, element.partition, &low, &high)
            guard result == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 else { continue }
            let key = TopicPartition(topic: topic, partition: element.partition)
            let position = firstBuffered[key] ?? (element.offset >= 0 ? element.offset : max(low, 0))
            lags.append(KafkaPartitionLag(topic: topic, partition: element.partition, highWatermark: high, position: position))
        }
        return lags.sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
    }

    // MARK: Close

    func startClosing(waiter: CheckedContinuation<Void, Never>?) {
        enum Action { case start, wait, resume }
        let action = state.withLock { state -> Action in
            switch state.lifecycle {
            case .open:
                state.lifecycle = .closing(waiters: waiter.map { [$0] } ?? [])
                state.buffered.removeAll()
                return .start
            case .closing(var waiters):
                if let waiter { waiters.append(waiter) }
                state.lifecycle = .closing(waiters: waiters)
                return .wait
            case .closed:
                return .resume
            }
        }
        switch action {
        case .start:
            queue.async { [self] in
                self.closeOnQueue()
            }
        case .wait:
            break
        case .resume:
            waiter?.resume()
        }
    }

    private func closeOnQueue() {
        logger.debug("Kafka consumer closing", metadata: [KafkaLogKey.group: "\(groupID)"])
        switch closeWithin(closeTimeout) {
        case .closed:
            logger.debug("Kafka consumer closed", metadata: [KafkaLogKey.group: "\(groupID)"])
        case .refused(let result):
            logger.debug(
                "Kafka consumer close failed",
                metadata: [KafkaLogKey.group: "\(groupID)", KafkaLogKey.error: "\(String(cString: rd_kafka_err2name(result)))"]
            )
        case .gaveUp:
            logger.warning(
                "Kafka consumer did not close in time; the group drops it when its session expires",
                metadata: [KafkaLogKey.group: "\(groupID)", KafkaLogKey.call: "rd_kafka_consumer_close_queue", KafkaLogKey.waited: "\(closeTimeout)"]
            )
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.lifecycle = .closed }
            if case .closing(let waiters) = state.lifecycle { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume() }
    }

    private enum CloseOutcome {
        case closed
        /// librdkafka would not start closing (a fatal error, or closed already).
        case refused(rd_kafka_resp_err_t)
        case gaveUp
    }

    /// Closes as `rd_kafka_consumer_close` does (revoke the assignment, leave the group), but waits at most `timeout`.
    /// rd_kafka_consumer_close waits for the group's answer with no timeout at all (rdkafka.c, `RD_POLL_INFINITE`), and
    /// with the coordinator gone quiet mid-close it can wait for good, holding this queue, every `poll` and the
    /// service's shutdown with it. Given up, the consumer is dropped by the group when its session expires, as if its
    /// process had ended; its handle is destroyed without a second close (`RDKafkaClient`).
    private func closeWithin(_ timeout: Duration) -> CloseOutcome {
        let handle = client.handle
        guard let events = rd_kafka_queue_new(handle) else { return .refused(RD_KAFKA_RESP_ERR__FAIL) }
        defer { rd_kafka_queue_destroy(events) }
        if let error = rd_kafka_consumer_close_queue(handle, events) {
            let code = rd_kafka_error_code(error)
            rd_kafka_error_destroy(error)
            return .refused(code)
        }
        let deadline = ContinuousClock.now + timeout
        while rd_kafka_consumer_closed(handle) == 0 {
            guard ContinuousClock.now < deadline else { return .gaveUp }
            // What the group forwards while closing (messages still fetched, errors, commit results) is of no use any
            // more. No rebalance event comes: the consumer installs no rebalance callback, so librdkafka unassigns by
            // itself.
            if let event = rd_kafka_queue_poll(events, Self.pollTimeoutMilliseconds) { rd_kafka_event_destroy(event) }
        }
        return .closed
    }
}

/// Cancellation flag of one pending `next()`.
final class PollRequest: Sendable {
    private let cancelled = Mutex(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() {
        cancelled.withLock { $0 = true }
    }
}
