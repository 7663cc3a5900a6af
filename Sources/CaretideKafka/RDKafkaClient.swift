internal import CRdKafka
internal import Dispatch
internal import Foundation
internal import Logging
internal import Synchronization

/// State that librdkafka callbacks need (a logger), reached through the configuration opaque
/// (`rd_kafka_opaque`). The owning ``RDKafkaClient`` keeps it alive for longer than the handle, so the
/// callbacks may use it unretained.
final class RDKafkaCallbackContext: Sendable {
    let logger: Logger
    /// Told of every partition whose committed position the broker no longer holds (see `OffsetReset`).
    let onOffsetReset: (@Sendable (OffsetReset) -> Void)?

    init(logger: Logger, onOffsetReset: (@Sendable (OffsetReset) -> Void)? = nil) {
        self.logger = logger
        self.onOffsetReset = onOffsetReset
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> RDKafkaCallbackContext? {
        guard let opaque else { return nil }
        return Unmanaged<RDKafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
    }

    static func from(handle: OpaquePointer?) -> RDKafkaCallbackContext? {
        guard let handle else { return nil }
        return from(rd_kafka_opaque(handle))
    }
}

/// Owns one `rd_kafka_t` handle and, from `deinit`, destroys it on a thread of its own (`Teardown`).
///
/// `@unchecked Sendable`: librdkafka documents the `rd_kafka_t` handle as thread-safe ("librdkafka is
/// thread-safe: all its API functions may be called from any thread at any time", INTRODUCTION.md,
/// "Threads and callbacks"). The stored properties are immutable.
final class RDKafkaClient: @unchecked Sendable {
    enum Kind {
        case producer
        case consumer

        var rawValue: rd_kafka_type_t {
            switch self {
            case .producer: RD_KAFKA_PRODUCER
            case .consumer: RD_KAFKA_CONSUMER
            }
        }
    }

    let handle: OpaquePointer
    /// Referenced unretained as the configuration opaque; released only after `rd_kafka_destroy`.
    let context: RDKafkaCallbackContext
    let kind: Kind

    /// Creates a handle from `properties`. `configure` may install callbacks on the `rd_kafka_conf_t`.
    init(
        kind: Kind,
        properties: [String: String],
        context: RDKafkaCallbackContext,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws {
        let conf = try Self.makeConfiguration(properties)
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
        rd_kafka_conf_set_log_cb(conf) { handle, level, facility, text in
            RDKafkaClient.log(handle: handle, level: level, facility: facility, text: text)
        }
        rd_kafka_conf_set_error_cb(conf) { handle, error, reason, opaque in
            guard let context = RDKafkaCallbackContext.from(opaque) else { return }
            // Broker and client errors (connection refused, authentication, all brokers down) are what an operator
            // needs when events stop flowing: logged at warning with librdkafka's code and name.
            context.logger.warning(
                "librdkafka client error",
                metadata: [
                    KafkaLogKey.error: "\(String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(error))))",
                    KafkaLogKey.reason: "\(reason.map { String(cString: $0) } ?? "")",
                ]
            )
        }
        configure(conf)

        var errorText = [CChar](repeating: 0, count: 512)
        let created = errorText.withUnsafeMutableBufferPointer { buffer in
            rd_kafka_new(kind.rawValue, conf, buffer.baseAddress, buffer.count)
        }
        guard let created else {
            // rd_kafka_new takes ownership of `conf` only on success.
            rd_kafka_conf_destroy(conf)
            throw KafkaError(
                code: .configuration,
                message: "Could not create the Kafka client: \(Self.string(errorText))"
            )
        }
        self.handle = created
        self.context = context
        self.kind = kind
    }

    deinit {
        // rd_kafka_destroy has no timeout: it joins librdkafka's threads, and a broker's thread ends only once nothing
        // refers to that broker any more; with the broker unreachable, librdkafka 2.0.2 has been reported to wait there
        // for good (and a test stack's embedded broker is destroyed before its services' clients, in property order).
        // A deinit runs on whichever thread drops the last reference, often one of Swift's cooperative threads, as
        // many as cores: blocked there, it stalls every task of the process with no thread busy. So the handle goes to
        // a thread of its own. A consumer has closed already (`ConsumerRuntime`, bounded); a second close inside
        // rd_kafka_destroy, after one given up, would wait for an answer the group sends only once (rdkafka_cgrp.c,
        // terminate0), hence no close there.
        let doomed = UncheckedHandle(self.handle)
        let context = self.context
        let flags = self.kind == .consumer ? RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE : 0
        Teardown.detach("rd_kafka_destroy", logger: context.logger) {
            rd_kafka_destroy_flags(doomed.pointer, flags)
            // The callbacks reach the context unretained until the handle is gone.
            withExtendedLifetime(context) {}
        }
    }

    /// Builds an `rd_kafka_conf_t`; the caller owns the result.
    static func makeConfiguration(_ properties: [String: String]) throws -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var errorText = [CChar](repeating: 0, count: 512)
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            let result = errorText.withUnsafeMutableBufferPointer { buffer in
                rd_kafka_conf_set(conf, name, value, buffer.baseAddress, buffer.count)
            }
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                // librdkafka's explanation may quote the value: leave it out for secret-looking keys.
                let looksSecret = ["password", "secret", "key", "token", "jaas"].contains { name.lowercased().contains($0) }
                let reason = looksSecret ? "rejected by librdkafka" : Self.string(errorText)
                throw KafkaError(code: .configuration, message: "Invalid Kafka property \(name): \(reason)")
            }
        }
        return conf
    }

    private static func log(handle: OpaquePointer?, level: Int32, facility: UnsafePointer<CChar>?, text: UnsafePointer<CChar>?) {
        guard let context = RDKafkaCallbackContext.from(handle: handle) else { return }
        // librdkafka log lines carry broker and protocol details, never message payloads.
        // syslog levels: 0-3 error, 4 warning, 5-6 notice/info, 7 debug. Its errors and warnings surface at warning
        // (they explain a stalled pipeline); the chatter below them stays at debug.
        let facilityName = facility.map { String(cString: $0) } ?? ""
        let textValue = text.map { String(cString: $0) } ?? ""
        if let reset = OffsetReset(syslogLevel: level, facility: facilityName, text: textValue) {
            // Messages were skipped: said at error, once per partition and reset, and counted by the service.
            context.logger.error(
                "the broker no longer holds this consumer's position: the messages between were skipped",
                metadata: [KafkaLogKey.topic: "\(reset.topic)", KafkaLogKey.partition: "\(reset.partition)", KafkaLogKey.log: "\(textValue)"])
            context.onOffsetReset?(reset)
            return
        }
        let logLevel = Self.logLevel(syslogLevel: level, facility: facilityName)
        context.logger.log(
            level: logLevel,
            "librdkafka log",
            metadata: [
                KafkaLogKey.facility: "\(facilityName)",
                KafkaLogKey.log: "\(textValue)",
                KafkaLogKey.syslogLevel: "\(level)",
            ]
        )
    }

    /// librdkafka's errors and warnings at warning, except configuration warnings (a property shared by producer and
    /// consumer settings is ignored by one of them, by design) and connection failures (the error callback reports
    /// each with its code); notices and informational lines at debug.
    static func logLevel(syslogLevel level: Int32, facility: String) -> Logger.Level {
        // FAIL lines repeat what the error callback reports, with its code, at warning.
        if level <= 4 { return ["CONFWARN", "FAIL"].contains(facility) ? .debug : .warning }
        return level <= 6 ? .debug : .trace
    }

    static func string(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

// MARK: - Teardown

/// librdkafka teardown calls (`rd_kafka_destroy`, `rd_kafka_mock_cluster_destroy`), each on a thread of its own, so that
/// one that never returns leaks that thread, never the caller's, and is named in a warning.
enum Teardown {
    /// Seconds far longer than a teardown takes (well under one on a loaded machine); past them, something holds it.
    static let patienceSeconds = 30

    static func detach(_ call: String, logger: Logger, _ work: @escaping @Sendable () -> Void) {
        let done = TeardownDone()
        let thread = Thread {
            work()
            done.flag.store(true, ordering: .releasing)
        }
        thread.name = "caretide.kafka.teardown"
        thread.start()
        let patience = Self.patienceSeconds
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(patience)) {
            guard !done.flag.load(ordering: .acquiring) else { return }
            logger.warning(
                "librdkafka teardown still blocked; its thread is left to it",
                metadata: [KafkaLogKey.call: "\(call)", KafkaLogKey.waited: "\(patience) s"])
        }
    }
}

/// Whether a detached teardown has returned.
private final class TeardownDone: Sendable {
    let flag = Atomic<Bool>(false)
}

/// A librdkafka pointer handed to the teardown thread. `@unchecked Sendable`: its owner is being deinitialised, so the
/// teardown thread is the only one left to use it.
struct UncheckedHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

// MARK: - Errors

extension KafkaError {
    /// Builds an error from an `rd_kafka_resp_err_t`.
    init(code: Code, response: rd_kafka_resp_err_t, context: String, file: String = #fileID, line: Int = #line) {
        let reason = String(cString: rd_kafka_err2str(response))
        self.init(
            code: code,
            message: "\(context): \(reason)",
            isRetriable: Self.isRetriable(response),
            librdkafkaErrorName: String(cString: rd_kafka_err2name(response)),
            file: file,
            line: line
        )
        refusesMessage = Self.refusesMessage(response)
    }

    /// Builds an error from an `rd_kafka_error_t`, destroying it.
    init(code: Code, consuming error: OpaquePointer, context: String, file: String = #fileID, line: Int = #line) {
        defer { rd_kafka_error_destroy(error) }
        let response = rd_kafka_error_code(error)
        self.init(
            code: code,
            message: "\(context): \(String(cString: rd_kafka_error_string(error)))",
            isRetriable: rd_kafka_error_is_retriable(error) != 0 || Self.isRetriable(response),
            librdkafkaErrorName: String(cString: rd_kafka_error_name(error)),
            file: file,
            line: line
        )
        refusesMessage = Self.refusesMessage(response)
    }

    /// Errors about the message itself (its size or its encoding), whether the client or the broker found them.
    static func refusesMessage(_ response: rd_kafka_resp_err_t) -> Bool {
        switch response {
        case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE,
            RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE,
            RD_KAFKA_RESP_ERR_INVALID_MSG,
            RD_KAFKA_RESP_ERR_INVALID_RECORD,
            RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE,
            RD_KAFKA_RESP_ERR__BAD_MSG:
            true
        default:
            false
        }
    }

    /// Errors after which the same operation may succeed later.
    static func isRetriable(_ response: rd_kafka_resp_err_t) -> Bool {
        switch response {
        case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT,
            RD_KAFKA_RESP_ERR__TIMED_OUT,
            RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE,
            RD_KAFKA_RESP_ERR__TRANSPORT,
            RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
            RD_KAFKA_RESP_ERR__QUEUE_FULL,
            RD_KAFKA_RESP_ERR__WAIT_COORD,
            RD_KAFKA_RESP_ERR__PURGE_QUEUE,
            RD_KAFKA_RESP_ERR__PURGE_INFLIGHT,
            RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
            RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
            RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
            RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND,
            RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION,
            RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
            RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
            RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
            RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
            RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
            true
        default:
            false
        }
    }
}

// MARK: - Small helpers

extension Duration {
    /// Milliseconds for librdkafka timeouts, clamped to `0...Int32.max`.
    var librdkafkaMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return seconds < 0 ? 0 : Int32.max }
        let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }
}

/// A `(topic, partition)` pair.
struct TopicPartition: Hashable, Sendable {
    var topic: String
    var partition: Int32
}
