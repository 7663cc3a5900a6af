import CaretideKafka
import CaretideSchemas
import CaretideStore
import Foundation
public import Logging
import PostgresNIO

/// Where a consumer puts a message it cannot apply: the dead-letter topic, the message unchanged with the reason and
/// its origin in headers; or, when the broker will not take it there (too large once the headers are added, refused,
/// or still failing after `publishDeadline`), the `parked_messages` table of the service's schema. Either way the
/// message is safe before its offset is committed, and it leaves its partition within bounded time.
struct DeadLetters: Sendable {
    let consumer: String
    let producer: KafkaProducer
    let database: Database
    let metrics: ServiceMetrics
    let logger: Logger
    /// How long retriable publish failures are retried before the message is parked in PostgreSQL instead.
    let publishDeadline: Duration
    /// Values up to this size are parked whole; a larger one keeps its SHA-256 and its first `keptBytes`.
    static let maximumParkedValueBytes = 1 << 20
    static let keptBytes = 64 << 10
    /// Reasons are cut to this length in the header (a header counts against the message size limit).
    static let maximumReasonLength = 2_000

    /// Returns true once the message is on the dead-letter topic or parked; false only when `stopping` interrupted
    /// the retries, in which case its offset must not be committed.
    func send(_ message: IncomingMessage, reason fullReason: String, stopping: @Sendable () -> Bool) async -> Bool {
        let reason = fullReason.count > Self.maximumReasonLength ? String(fullReason.prefix(Self.maximumReasonLength)) + "…" : fullReason
        let outgoing = OutgoingMessage(
            copying: message, to: Topic.deadLetter.name,
            addingHeaders: [
                EventHeader.deadLetterReason: reason,
                EventHeader.deadLetterTopic: message.topic,
                EventHeader.deadLetterPartition: String(message.partition),
                EventHeader.deadLetterOffset: String(message.offset),
                EventHeader.deadLetterConsumer: consumer,
            ])
        let started = ContinuousClock.now
        var backoff = Backoff()
        while !stopping() {
            let failure: any Error
            do {
                try await producer.send(outgoing)
                metrics.eventDeadLettered(topic: message.topic)
                logger.warning("event dead-lettered", metadata: message.metadata.merging([LogKey.reason: "\(reason)"]) { $1 })
                return true
            } catch {
                failure = error
            }
            // A closed producer means the service is stopping: the message is left for the next consumer.
            if (failure as? KafkaError)?.code == .closed { return false }
            let refused = (failure as? KafkaError)?.refusesMessage ?? false
            if refused || ContinuousClock.now - started > publishDeadline {
                return await park(message, reason: reason, publishError: failure, stopping: stopping)
            }
            let delay = backoff.next()
            logger.warning(
                "dead-letter publish failed; retrying",
                metadata: message.metadata.merging(failure.logMetadata) { $1 }
                    .merging([LogKey.retryIn: "\(delay)"]) { $1 })
            try? await Task.sleep(for: delay)
        }
        return false
    }

    /// Keeps the message in `parked_messages` (idempotent on its origin), retrying while the database is unreachable.
    /// Should the row itself be refused, a row without headers and value still records where the message was.
    private func park(_ message: IncomingMessage, reason: String, publishError: any Error, stopping: @Sendable () -> Bool) async -> Bool {
        var backoff = Backoff()
        let cause = (publishError as? KafkaError)?.librdkafkaErrorName ?? String(describing: type(of: publishError))
        var whole = true
        while !stopping() {
            do {
                try await database.transaction(timeout: .seconds(30)) { [consumer, logger, whole] connection in
                    try await Self.insert(
                        message, consumer: consumer, reason: reason, publishError: cause, withContent: whole, on: connection, logger: logger)
                }
                metrics.eventParked(topic: message.topic)
                logger.error(
                    "event parked in PostgreSQL: the dead-letter topic refused it",
                    metadata: message.metadata
                        .merging(publishError.logMetadata) { $1 }.merging([LogKey.reason: "\(reason)"]) { $1 })
                return true
            } catch {
                if whole, !TransientError.isTransient(error) { whole = false }
                let delay = backoff.next()
                logger.warning(
                    "parking a refused message failed; retrying",
                    metadata: message.metadata
                        .merging(error.logMetadata) { $1 }.merging([LogKey.retryIn: "\(delay)"]) { $1 })
                try? await Task.sleep(for: delay)
            }
        }
        return false
    }

    static func insert(
        _ message: IncomingMessage, consumer: String, reason: String, publishError: String, withContent: Bool,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        // Header values as base64, so any byte survives the jsonb column; null stays null.
        let headers = JSONValue.array(
            withContent
                ? message.headerFields.map { header in
                    .object(["name": .string(header.name), "value": header.value.map { .string(Data($0).base64EncodedString()) } ?? .null])
                } : [])
        let headersText = try CaretideJSON.encodeToString(headers)
        let value = withContent ? message.valueBytes : nil
        let truncated = (value?.count ?? 0) > maximumParkedValueBytes
        let kept = value.map { truncated ? Array($0.prefix(keptBytes)) : $0 }
        // The digest of a value too large to keep is computed by PostgreSQL (sha256 is built in since version 11),
        // so only then is the whole value sent.
        let digested = truncated ? value.map { ByteBuffer(bytes: $0) } : nil
        try await connection.query(
            """
            INSERT INTO parked_messages (consumer, reason, publish_error, source_topic, source_partition, source_offset, message_key,
                                         headers, value, value_size, value_sha256, value_truncated)
            VALUES (\(consumer), \(reason), \(publishError), \(message.topic), \(Int(message.partition)), \(message.offset),
                    \(message.keyBytes.map { ByteBuffer(bytes: $0) }), \(headersText)::jsonb, \(kept.map { ByteBuffer(bytes: $0) }),
                    \(message.valueBytes?.count ?? 0), sha256(\(digested)), \(truncated))
            ON CONFLICT (consumer, source_topic, source_partition, source_offset) DO NOTHING
            """, logger: logger)
    }
}

extension IncomingMessage {
    /// Where the message came from, for logs: ids only, never its key or content.
    var metadata: Logger.Metadata {
        [KafkaLogKey.topic: "\(topic)", KafkaLogKey.partition: "\(partition)", KafkaLogKey.offset: "\(offset)"]
    }
}

extension Error {
    /// The cause of a failure for a log line: librdkafka's code name, the error's code, or its type, never payloads.
    public var logMetadata: Logger.Metadata {
        if let kafka = self as? KafkaError {
            return [LogKey.error: "\(kafka.code)", KafkaLogKey.error: "\(kafka.librdkafkaErrorName ?? "")", LogKey.retriable: "\(kafka.isRetriable)"]
        }
        if let postgres = self as? PSQLError {
            return [LogKey.error: "\(postgres.code)", LogKey.sqlState: "\(postgres.serverInfo?[.sqlState] ?? "")"]
        }
        if let timeout = self as? DatabaseTimeout { return [LogKey.error: "\(timeout)"] }
        return [LogKey.error: "\(String(reflecting: type(of: self)))"]
    }
}
