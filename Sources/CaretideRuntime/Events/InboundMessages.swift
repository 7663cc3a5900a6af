import CaretideKafka
public import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Applies one message that comes from outside Caretide: not a Caretide event but what a hospital pipeline publishes
/// (a JSON report, a FHIR Bundle, an HL7 v2 message) on an inbound topic. The consumer loop is the one events go
/// through (lanes, offsets committed after the effects, dead letters); the handler makes its own transactions, each
/// idempotent (the same report again is a duplicate), and the loop records the message as applied after them.
public protocol InboundMessageHandler: Sendable {
    /// Throws `UnprocessableEvent` to dead-letter the message with its reason, `RetryLater` or a transient database
    /// error to have it applied again after a backoff.
    func handle(_ message: InboundMessage) async throws
}

/// A message from an inbound topic as a service sees it: the runtime's own type, so that no service depends on the
/// Kafka adapter.
public struct InboundMessage: Sendable {
    public let topic: Topic
    /// The key's bytes as received; nil when the message has no key.
    public let key: [UInt8]?
    /// The value's bytes as received; nil for a null value.
    public let value: [UInt8]?
    /// The trace id the producer sent (`traceparent`, else `trace-id`), if any.
    public let traceID: String?

    public init(topic: Topic, key: [UInt8]?, value: [UInt8]?, traceID: String?) {
        self.topic = topic
        self.key = key
        self.value = value
        self.traceID = traceID
    }

    /// nil for a message of a topic Caretide does not know (it is not subscribed to one).
    init?(_ message: IncomingMessage) {
        guard let topic = Topic(rawValue: message.topic) else { return nil }
        let headers = message.headers
        self.init(
            topic: topic, key: message.keyBytes, value: message.valueBytes,
            traceID: RequestIDMiddleware.requestID(traceparent: headers["traceparent"], requestID: headers[EventHeader.traceID]))
    }
}

/// The message cannot be applied now (the database failed one of its reports): the whole message is applied again
/// after a backoff, what was stored already answering as a duplicate.
public struct RetryLater: Error, Sendable {
    public init() {}
}

/// The inbound topics a service consumes, and its handler, made once the service's context exists.
public struct InboundTopics: Sendable {
    public var topics: [Topic]
    public var handler: @Sendable (ServiceContext) -> any InboundMessageHandler

    public init(topics: [Topic], handler: @escaping @Sendable (ServiceContext) -> any InboundMessageHandler) {
        self.topics = topics
        self.handler = handler
    }
}

/// Which inbound messages were applied, by topic, partition and offset. A redelivered message (its offset not yet
/// committed when the service stopped) is skipped once recorded: applying an older report again after a newer one
/// would otherwise store it as a correction. Recorded after the handler's own transactions, so a crash between the
/// two applies the message again, and its reports answer as duplicates.
enum InboundMessages {
    static func wasApplied(_ message: IncomingMessage, on database: Database, logger: Logger) async throws -> Bool {
        let rows = try await database.client.query(
            """
            SELECT 1 FROM inbound_messages
            WHERE topic = \(message.topic) AND partition = \(Int(message.partition)) AND message_offset = \(message.offset)
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    static func markApplied(_ message: IncomingMessage, on database: Database, logger: Logger) async throws {
        try await database.client.query(
            """
            INSERT INTO inbound_messages (topic, partition, message_offset) VALUES (\(message.topic), \(Int(message.partition)), \(message.offset))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// Only a message whose offset was not committed can come again; a day is far beyond that.
    static let retention = "1 day"

    /// Forgets messages applied longer ago than `retention`, every hour.
    static func expiry(database: Database, readiness: ReadinessState, metrics: ServiceMetrics, logger: Logger) -> PeriodicJob {
        PeriodicJob(name: "inbound message expiry", interval: .seconds(3600), readiness: readiness, metrics: metrics, logger: logger) {
            try await database.client.query("DELETE FROM inbound_messages WHERE applied_at < now() - \(retention)::interval", logger: logger)
            return 0
        }
    }
}
