import CaretideSchemas
import Foundation
import Logging
import PostgresNIO

/// A row waiting in the outbox to be published.
public struct OutboxRecord: Sendable, Equatable {
    public let position: Int64
    public let eventID: UUID
    public let topic: String
    public let key: String?
    public let eventType: String
    public let schemaVersion: Int
    public let traceID: String?
    public let body: [UInt8]
}

/// The transactional outbox: an event is written in the same transaction as the row it announces, and a relay
/// publishes it afterwards. Either both are committed or neither is.
public enum Outbox {
    /// An encoded event ready for the outbox.
    public struct Entry: Sendable {
        let eventID: UUID
        let topic: String
        let key: String?
        let eventType: String
        let schemaVersion: Int
        let traceID: String?
        let body: [UInt8]

        public init<P: EventPayload>(_ envelope: EventEnvelope<P>, codec: EventCodec) throws {
            eventID = envelope.eventID
            topic = P.eventType.topic.name
            key = envelope.patientID
            eventType = P.eventType.rawValue
            schemaVersion = P.eventType.schemaVersion
            traceID = envelope.traceID
            body = try codec.encode(envelope)
        }
    }

    /// Adds an event to the outbox on a connection that is inside the caller's transaction.
    public static func enqueue<P: EventPayload>(
        _ envelope: EventEnvelope<P>, codec: EventCodec, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await enqueue([Entry(envelope, codec: codec)], on: connection, logger: logger)
    }

    /// Adds many events in one statement (batch processing), in order.
    public static func enqueue(_ entries: [Entry], on connection: PostgresConnection, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        _ = try await connection.execute(StorePreparedStatements.EnqueueOutbox(entries: entries), logger: logger)
    }

    /// Takes the oldest `limit` records if no other relay of this schema is publishing, else nothing. The advisory
    /// lock keeps a single publisher per schema, so one patient's events leave in the order they were written.
    public static func claimBatch(limit: Int, schema: String, on connection: PostgresConnection, logger: Logger) async throws -> [OutboxRecord] {
        try await connection.execute(StorePreparedStatements.ClaimOutbox(lockName: "caretide.outbox." + schema, limit: limit), logger: logger)
            .collectAll()
    }

    /// Removes published records.
    public static func remove(_ records: [OutboxRecord], on connection: PostgresConnection, logger: Logger) async throws {
        guard !records.isEmpty else { return }
        // By id, not by range: a transaction that took a lower position may commit after this batch was read,
        // and its row must stay for the next round.
        try await connection.query("DELETE FROM outbox WHERE position = ANY(\(records.map(\.position)))", logger: logger)
    }

    /// Number of events waiting to be published (a metric and a test aid).
    public static func pendingCount(_ database: Database, logger: Logger) async throws -> Int {
        let rows = try await database.client.query("SELECT count(*)::int FROM outbox", logger: logger)
        return try await rows.decode(Int.self).collectAll().first ?? 0
    }
}

/// Records which events a consumer has already applied, inside the transaction that applies them: the primary key
/// turns a redelivered event into a no-op, whatever the handler does.
public enum ProcessedEvents {
    /// The ids among `eventIDs` that `consumer` sees for the first time (to apply); the others are duplicates.
    public static func claim(_ eventIDs: [UUID], consumer: String, on connection: PostgresConnection, logger: Logger) async throws -> Set<UUID> {
        let rows = try await connection.execute(StorePreparedStatements.ClaimEvents(consumer: consumer, eventIDs: eventIDs), logger: logger)
        return Set(try await rows.collectAll())
    }
}
