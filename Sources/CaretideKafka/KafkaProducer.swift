internal import CRdKafka
internal import Foundation
public import Logging
internal import Synchronization

/// An idempotent Kafka producer (`enable.idempotence=true`, `acks=all`).
///
/// A dedicated thread serves delivery reports (`rd_kafka_poll`) until ``shutdown(timeout:)``; nothing
/// here blocks a thread of Swift's cooperative pool. Dropping the producer without calling
/// ``shutdown(timeout:)`` asks that thread to flush (10 s) and destroy the handle in the background.
public final class KafkaProducer: Sendable {
    let runtime: ProducerRuntime

    /// Always sets `enable.idempotence=true` and `acks=all`; ``KafkaConfiguration/properties`` may add
    /// others (`linger.ms`, `message.timeout.ms`, `client.id`, security settings, ...).
    public init(configuration: KafkaConfiguration, logger: Logger) throws {
        var properties = configuration.librdkafkaProperties
        properties["enable.idempotence"] = "true"
        properties["acks"] = "all"

        let client = try RDKafkaClient(
            kind: .producer,
            properties: properties,
            context: RDKafkaCallbackContext(logger: logger)
        ) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf) { _, message, opaque in
                ProducerRuntime.deliveryReport(message, opaque: opaque)
            }
        }
        self.runtime = ProducerRuntime(client: client, logger: logger)
        runtime.startPollingThread()
    }

    deinit {
        // Non-blocking: the polling thread flushes, then releases the handle.
        runtime.requestShutdown(timeout: .seconds(10), waiter: nil)
    }

    /// Sends one message and awaits the broker's acknowledgement (delivery report).
    ///
    /// A full local queue is retried with a short back-off. Once enqueued, the message is not
    /// withdrawn by task cancellation: the call returns when the delivery report arrives, which
    /// librdkafka bounds by `message.timeout.ms`.
    /// - Throws: ``KafkaError`` (``KafkaError/Code/delivery`` when the broker did not acknowledge,
    ///   ``KafkaError/Code/producer`` when it could not be enqueued, ``KafkaError/Code/closed`` after
    ///   shutdown), or `CancellationError` while waiting for queue space.
    public func send(_ message: OutgoingMessage) async throws {
        let receipt = DeliveryReceipt()
        try await runtime.enqueueRetryingWhenFull(message, receipt: receipt)
        try await receipt.wait()
    }

    /// Sends many messages in order and awaits all acknowledgements; throws the first failure in message order
    /// (see ``sendEach(_:)`` for which messages are still sent after a failure).
    public func send(_ messages: [OutgoingMessage]) async throws {
        for result in await sendEach(messages) {
            if case .failure(let error) = result { throw error }
        }
    }

    /// Sends many messages in order and awaits every acknowledgement; returns one result per message, so a caller can
    /// tell a message the broker will never take (too large, refused) from a batch that merely has to be retried.
    ///
    /// A message the client refuses for what it is (``KafkaError/refusesMessage``: too large) fails alone and the
    /// next ones are still enqueued; after any other failure (shutdown, cancellation, a fatal producer) the rest are
    /// not enqueued and fail with that same error.
    public func sendEach(_ messages: [OutgoingMessage]) async -> [Result<Void, any Error>] {
        var receipts: [DeliveryReceipt?] = []
        receipts.reserveCapacity(messages.count)
        var results: [Result<Void, any Error>?] = Array(repeating: nil, count: messages.count)
        var stopError: (any Error)?
        for (index, message) in messages.enumerated() {
            if let stopError {
                results[index] = .failure(stopError)
                receipts.append(nil)
                continue
            }
            let receipt = DeliveryReceipt()
            do {
                try await runtime.enqueueRetryingWhenFull(message, receipt: receipt)
                receipts.append(receipt)
            } catch let error as KafkaError where error.refusesMessage {
                results[index] = .failure(error)
                receipts.append(nil)
            } catch {
                stopError = error
                results[index] = .failure(error)
                receipts.append(nil)
            }
        }
        for (index, receipt) in receipts.enumerated() {
            guard let receipt else { continue }
            do {
                try await receipt.wait()
                results[index] = .success(())
            } catch {
                results[index] = .failure(error)
            }
        }
        return results.map { $0! }
    }

    /// Enqueues a message without waiting for the acknowledgement; delivery failures are only logged.
    ///
    /// Never blocks: if librdkafka's local queue is full it throws a retriable
    /// ``KafkaError/Code/producer`` error instead of waiting.
    public func sendWithoutWaiting(_ message: OutgoingMessage) throws {
        try runtime.enqueue(message, receipt: nil)
    }

    /// Flushes outstanding messages (on the polling thread, off the cooperative pool), purges what
    /// did not make it within `timeout` (their senders get a delivery error), then stops the polling
    /// thread. Idempotent; concurrent callers all return once the producer has stopped.
    public func shutdown(timeout: Duration = .seconds(10)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            runtime.requestShutdown(timeout: timeout, waiter: continuation)
        }
    }
}

// MARK: - Delivery receipt

/// Per-message opaque: passed retained to librdkafka, released by the delivery report callback
/// (or by the enqueue path when `rd_kafka_produceva` fails).
final class DeliveryReceipt: Sendable {
    private enum State {
        case pending
        case settled(Result<Void, KafkaError>)
        case waiting(CheckedContinuation<Void, any Error>)
        case finished
    }

    private let state = Mutex<State>(.pending)

    func settle(_ result: Result<Void, KafkaError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            switch state {
            case .pending:
                state = .settled(result)
                return nil
            case .waiting(let continuation):
                state = .finished
                return continuation
            case .settled, .finished:
                return nil
            }
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let result = state.withLock { state -> Result<Void, KafkaError>? in
                switch state {
                case .pending:
                    state = .waiting(continuation)
                    return nil
                case .settled(let result):
                    state = .finished
                    return result
                case .waiting, .finished:
                    preconditionFailure("DeliveryReceipt awaited twice")
                }
            }
            if let result {
                continuation.resume(with: result.mapError { $0 as any Error })
            }
        }
    }
}

// MARK: - Runtime shared with the polling thread

/// The producer's handle and lifecycle, shared by ``KafkaProducer`` and its polling thread, so that
/// the thread can finish (flush, then destroy) after the public object is gone.
final class ProducerRuntime: Sendable {
    private enum State {
        case running
        case shuttingDown(timeout: Duration, waiters: [CheckedContinuation<Void, Never>])
        case stopped
    }

    private enum EnqueueOutcome {
        case enqueued
        case queueFull
        case failed(KafkaError)
    }

    let client: RDKafkaClient
    let logger: Logger
    private let state = Mutex<State>(.running)

    init(client: RDKafkaClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func startPollingThread() {
        let thread = Thread { [self] in
            self.pollUntilShutdown()
        }
        thread.name = "caretide.kafka.producer.poll"
        thread.start()
    }

    // MARK: Enqueue

    func enqueueRetryingWhenFull(_ message: OutgoingMessage, receipt: DeliveryReceipt) async throws {
        var backoff = Duration.milliseconds(1)
        while true {
            switch enqueueOnce(message, receipt: receipt) {
            case .enqueued:
                return
            case .failed(let error):
                throw error
            case .queueFull:
                logger.trace("Kafka producer queue full, backing off", metadata: [KafkaLogKey.topic: "\(message.topic)"])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .milliseconds(100))
            }
        }
    }

    func enqueue(_ message: OutgoingMessage, receipt: DeliveryReceipt?) throws {
        switch enqueueOnce(message, receipt: receipt) {
        case .enqueued:
            return
        case .failed(let error):
            throw error
        case .queueFull:
            throw KafkaError(
                code: .producer,
                response: RD_KAFKA_RESP_ERR__QUEUE_FULL,
                context: "Could not enqueue a message for \(message.topic)"
            )
        }
    }

    /// Calls `rd_kafka_produceva` while holding the state lock, so that no message is enqueued after
    /// the polling thread started its final flush (its delivery report would never be served).
    private func enqueueOnce(_ message: OutgoingMessage, receipt: DeliveryReceipt?) -> EnqueueOutcome {
        let opaque = receipt.map { Unmanaged.passRetained($0).toOpaque() }
        let outcome = state.withLock { state -> EnqueueOutcome in
            guard case .running = state else {
                return .failed(KafkaError(code: .closed, message: "The Kafka producer is shut down"))
            }
            return Self.produce(message, opaque: opaque, handle: client.handle)
        }
        if case .enqueued = outcome {
            logger.trace("Kafka message enqueued", metadata: [KafkaLogKey.topic: "\(message.topic)"])
        } else if let opaque {
            // Not enqueued: librdkafka will never report on it, balance the retain here.
            Unmanaged<DeliveryReceipt>.fromOpaque(opaque).release()
        }
        return outcome
    }

    private static func produce(_ message: OutgoingMessage, opaque: UnsafeMutableRawPointer?, handle: OpaquePointer) -> EnqueueOutcome {
        // The copies below stay alive for the call only: librdkafka copies the key and headers, and the value
        // because of RD_KAFKA_MSG_F_COPY.
        var allocations: [UnsafeMutableBufferPointer<CChar>] = []
        defer { for allocation in allocations { allocation.deallocate() } }
        // Key, header and value bytes are passed with their lengths: no terminating NUL, any byte allowed.
        func bytes(_ value: [UInt8]) -> UnsafeMutableBufferPointer<CChar> {
            let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(value.count, 1))
            value.withUnsafeBytes { source in
                if let base = source.baseAddress { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base, byteCount: value.count) }
            }
            allocations.append(buffer)
            return buffer
        }
        // Topic and header names are C strings.
        func cString(_ string: String) -> UnsafeMutableBufferPointer<CChar> { bytes(Array(string.utf8) + [0]) }

        var fields: [rd_kafka_vu_t] = []
        fields.reserveCapacity(5 + message.headerFields.count + message.headers.count)

        var topic = rd_kafka_vu_t()
        topic.vtype = RD_KAFKA_VTYPE_TOPIC
        topic.u.cstr = UnsafePointer(cString(message.topic).baseAddress)
        fields.append(topic)

        if let key = message.keyBytes {
            var field = rd_kafka_vu_t()
            field.vtype = RD_KAFKA_VTYPE_KEY
            field.u.mem.ptr = UnsafeMutableRawPointer(bytes(key).baseAddress)
            field.u.mem.size = key.count
            fields.append(field)
        }

        func appendHeader(name: String, value: [UInt8]?) {
            var field = rd_kafka_vu_t()
            field.vtype = RD_KAFKA_VTYPE_HEADER
            field.u.header.name = UnsafePointer(cString(name).baseAddress)
            // A null pointer makes a null header, as received.
            field.u.header.val = value.map { UnsafeRawPointer(bytes($0).baseAddress!) }
            field.u.header.size = value?.count ?? 0
            fields.append(field)
        }
        for header in message.headerFields { appendHeader(name: header.name, value: header.value) }
        for (name, value) in message.headers.sorted(by: { $0.key < $1.key }) { appendHeader(name: name, value: Array(value.utf8)) }

        var flags = rd_kafka_vu_t()
        flags.vtype = RD_KAFKA_VTYPE_MSGFLAGS
        flags.u.i = RD_KAFKA_MSG_F_COPY
        fields.append(flags)

        var opaqueField = rd_kafka_vu_t()
        opaqueField.vtype = RD_KAFKA_VTYPE_OPAQUE
        opaqueField.u.ptr = opaque
        fields.append(opaqueField)

        // No value field for a null value (a tombstone, as received); an empty value still gets a pointer, or
        // librdkafka would take it for null.
        if let value = message.valueBytes {
            var valueField = rd_kafka_vu_t()
            valueField.vtype = RD_KAFKA_VTYPE_VALUE
            valueField.u.mem.ptr = UnsafeMutableRawPointer(bytes(value).baseAddress)
            valueField.u.mem.size = value.count
            fields.append(valueField)
        }
        let error = fields.withUnsafeBufferPointer { buffer in rd_kafka_produceva(handle, buffer.baseAddress, buffer.count) }
        guard let error else { return .enqueued }
        if rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__QUEUE_FULL {
            rd_kafka_error_destroy(error)
            return .queueFull
        }
        return .failed(KafkaError(code: .producer, consuming: error, context: "Could not enqueue a message for \(message.topic)"))
    }

    // MARK: Delivery reports (called by rd_kafka_poll on the polling thread)

    static func deliveryReport(_ message: UnsafePointer<rd_kafka_message_t>?, opaque: UnsafeMutableRawPointer?) {
        guard let message else { return }
        let report = message.pointee
        let logger = RDKafkaCallbackContext.from(opaque)?.logger
        // Made only for a line that is written: a report comes for every message.
        func metadata() -> Logger.Metadata {
            [
                KafkaLogKey.topic: "\(topicName(report))",
                KafkaLogKey.partition: "\(report.partition)",
                KafkaLogKey.offset: "\(report.offset)",
            ]
        }
        let result: Result<Void, KafkaError>
        if report.err == RD_KAFKA_RESP_ERR_NO_ERROR {
            result = .success(())
            logger?.trace("Kafka message delivered", metadata: metadata())
        } else {
            let error = KafkaError(code: .delivery, response: report.err, context: "Kafka did not acknowledge a message for \(topicName(report))")
            result = .failure(error)
            var failureMetadata = metadata()
            failureMetadata["kafka.error"] = "\(error.librdkafkaErrorName ?? "")"
            failureMetadata["kafka.awaited"] = "\(report._private != nil)"
            logger?.warning("Kafka message delivery failed", metadata: failureMetadata)
        }
        if let receipt = report._private {
            Unmanaged<DeliveryReceipt>.fromOpaque(receipt).takeRetainedValue().settle(result)
        }
    }

    private static func topicName(_ report: rd_kafka_message_t) -> String {
        report.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
    }

    // MARK: Lifecycle

    func requestShutdown(timeout: Duration, waiter: CheckedContinuation<Void, Never>?) {
        let resumeNow = state.withLock { state -> Bool in
            switch state {
            case .running:
                state = .shuttingDown(timeout: timeout, waiters: waiter.map { [$0] } ?? [])
                return false
            case .shuttingDown(let timeout, var waiters):
                if let waiter { waiters.append(waiter) }
                state = .shuttingDown(timeout: timeout, waiters: waiters)
                return false
            case .stopped:
                return true
            }
        }
        if resumeNow {
            waiter?.resume()
        } else {
            rd_kafka_yield(client.handle)
        }
    }

    /// The polling thread's body.
    private func pollUntilShutdown() {
        let handle = client.handle
        logger.debug("Kafka producer polling started")
        var flushTimeout = Duration.zero
        while true {
            let stop = state.withLock { state -> Duration? in
                if case .shuttingDown(let timeout, _) = state { return timeout }
                return nil
            }
            if let stop {
                flushTimeout = stop
                break
            }
            rd_kafka_poll(handle, 100)
        }

        let flushResult = rd_kafka_flush(handle, flushTimeout.librdkafkaMilliseconds)
        if flushResult != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.debug("Kafka producer flush timed out, purging", metadata: [KafkaLogKey.outstanding: "\(rd_kafka_outq_len(handle))"])
        }
        // Whatever is left fails with _PURGE_QUEUE/_PURGE_INFLIGHT, so every awaiting sender resumes
        // and every retained receipt is released.
        _ = rd_kafka_purge(handle, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
        var rounds = 0
        repeat {
            rd_kafka_poll(handle, rounds == 0 ? 0 : 10)
            rounds += 1
        } while rd_kafka_outq_len(handle) > 0 && rounds < 100

        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = .stopped }
            if case .shuttingDown(_, let waiters) = state { return waiters }
            return []
        }
        logger.debug("Kafka producer stopped")
        for waiter in waiters { waiter.resume() }
    }
}
