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
    /// Adds an event to the outbox on a connection that is inside the caller's transaction.
    public static func enqueue<P: EventPayload>(
        _ envelope: EventEnvelope<P>, codec: EventCodec, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let body = try codec.encode(envelope)
        try await connection.query(
            """
            INSERT INTO outbox (event_id, topic, message_key, event_type, schema_version, trace_id, body)
            VALUES (\(envelope.eventID), \(P.eventType.topic.name), \(envelope.patientID), \(P.eventType.rawValue),
                    \(P.eventType.schemaVersion), \(envelope.traceID), \(ByteBuffer(bytes: body)))
            """, logger: logger)
    }

    /// Takes the oldest `limit` records if no other relay of this schema is publishing, else nothing. The advisory
    /// lock keeps a single publisher per schema, so one patient's events leave in the order they were written.
    public static func claimBatch(limit: Int, schema: String, on connection: PostgresConnection, logger: Logger) async throws -> [OutboxRecord] {
        let lockRows = try await connection.query(
            "SELECT pg_try_advisory_xact_lock(hashtext(\("caretide.outbox." + schema)))", logger: logger)
        let locked = try await lockRows.decode(Bool.self).collectAll().first ?? false
        guard locked else { return [] }
        var records: [OutboxRecord] = []
        let rows = try await connection.query(
            """
            SELECT position, event_id, topic, message_key, event_type, schema_version, trace_id, body
            FROM outbox ORDER BY position LIMIT \(limit)
            """, logger: logger)
        for try await (position, eventID, topic, key, eventType, version, traceID, body) in rows.decode(
            (Int64, UUID, String, String?, String, Int, String?, ByteBuffer).self)
        {
            records.append(OutboxRecord(
                position: position, eventID: eventID, topic: topic, key: key, eventType: eventType, schemaVersion: version,
                traceID: traceID, body: Array(buffer: body)))
        }
        return records
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
    /// Returns true if this is the first time `consumer` sees `eventID` (the caller should apply it), false if it is a duplicate.
    public static func claim(_ eventID: UUID, consumer: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            "INSERT INTO processed_events (consumer, event_id) VALUES (\(consumer), \(eventID)) ON CONFLICT DO NOTHING RETURNING 1",
            logger: logger)
        return try await rows.decode(Int.self).collectAll().count == 1
    }
}
