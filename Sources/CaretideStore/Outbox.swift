public import Foundation
public import Logging
public import PostgresNIO

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
    /// An encoded event ready for the outbox: where it goes (topic and key), what its headers say, and its bytes.
    /// Encoding an event is the runtime's business (`Outbox.Entry(_:codec:)` there); the store keeps bytes.
    public struct Entry: Sendable {
        public let eventID: UUID
        let topic: String
        let key: String?
        public let eventType: String
        let schemaVersion: Int
        let traceID: String?
        /// The encoded envelope, as the message's value will be.
        public let body: [UInt8]

        /// - Throws: ``EventTooLarge`` when the body is over ``Outbox/maximumEventBytes``: the broker would refuse it,
        ///   so it must be refused before anything is stored.
        public init(
            eventID: UUID, topic: String, key: String?, eventType: String, schemaVersion: Int, traceID: String?, body: [UInt8]
        ) throws(EventTooLarge) {
            guard body.count <= Outbox.maximumEventBytes else {
                throw EventTooLarge(eventType: eventType, size: body.count, limit: Outbox.maximumEventBytes)
            }
            self.eventID = eventID
            self.topic = topic
            self.key = key
            self.eventType = eventType
            self.schemaVersion = schemaVersion
            self.traceID = traceID
            self.body = body
        }
    }

    /// The largest event body the outbox accepts. Kafka's default `message.max.bytes` is 1,000,000 bytes for the
    /// whole record; headers, key and framing take a few hundred, so 900,000 leaves a wide margin. An event over it
    /// could never be published, and would block every row behind it.
    public static let maximumEventBytes = 900_000

    /// How a writer keeps one key's events in commit order. The relay publishes in `position` order, and a position
    /// is taken when a row is inserted, not when its transaction commits: two transactions of one key that commit in
    /// the other order than they inserted would publish out of order. Each writer therefore holds a lock until its
    /// transaction ends, taken before it inserts:
    public enum Ordering: Sendable, Equatable {
        /// One of several concurrent writers of a key (HTTP requests): each key's lock, so a second transaction of
        /// the key inserts only after the first committed.
        case perKey
        /// A consumer lane: its partitions' keys are written by this lane alone, one batch at a time, so no key
        /// lock (a batch holds a thousand keys); it holds the schema's writer lock shared, for `exclusive` writers.
        case consumerLane
        /// A job beside the consumers (`caretide rescore`): the schema's writer lock exclusive, so it inserts only
        /// after every lane's open transaction committed, and the lanes after it.
        case exclusive
    }

    /// Adds many events in one statement (batch processing), in order, after taking the locks of `ordering`.
    public static func enqueue(_ entries: [Entry], ordering: Ordering, on connection: PostgresConnection, logger: Logger) async throws {
        guard !entries.isEmpty else { return }
        if ordering == .exclusive {
            _ = try await connection.execute(StorePreparedStatements.LockOutboxWritersExclusive(), logger: logger)
        }
        _ = try await connection.execute(
            StorePreparedStatements.EnqueueOutbox(entries: entries, lockingKeys: ordering == .perKey), logger: logger)
    }

    /// Like `enqueue(_:ordering:on:logger:)`, and writes `side` in the same statement: one round trip for both.
    public static func enqueue<Side: OutboxSideInsert>(
        _ entries: [Entry], ordering: Ordering, alongside side: Side, on connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !entries.isEmpty else { return }
        if ordering == .exclusive {
            _ = try await connection.execute(StorePreparedStatements.LockOutboxWritersExclusive(), logger: logger)
        }
        _ = try await connection.execute(
            StorePreparedStatements.EnqueueOutboxAlongside(entries: entries, lockingKeys: ordering == .perKey, side: side), logger: logger)
    }

    /// Makes this connection's session the schema's only publisher, unless another holds the role: true if it now
    /// does. The advisory lock keeps a single publisher per schema, so one patient's events leave in the order they
    /// were written. It is the session's until `stopPublishing` or until the connection ends (a crash, a deadline
    /// that closes it), so the relay takes it once rather than in a transaction per batch, and holds no transaction
    /// open while the broker acknowledges.
    public static func tryToBecomePublisher(schema: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.execute(StorePreparedStatements.TryOutboxPublisherLock(lockName: publisherLockName(schema)), logger: logger)
            .collectAll().first == true
    }

    /// Gives up the publisher role taken by `tryToBecomePublisher`, so the connection can go back to the pool.
    public static func stopPublishing(schema: String, on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.execute(StorePreparedStatements.ReleaseOutboxPublisherLock(lockName: publisherLockName(schema)), logger: logger)
            .collectAll()
    }

    /// The oldest `limit` records, for the publisher. Read in a statement after the role was taken: its snapshot sees
    /// every row the role's last holder deleted (one statement for both sent a batch twice now and then, two
    /// replicas' relays racing: `ScaleOutTests`).
    public static func readBatch(limit: Int, on connection: PostgresConnection, logger: Logger) async throws -> [OutboxRecord] {
        try await connection.execute(StorePreparedStatements.ReadOutbox(limit: limit), logger: logger).collectAll()
    }

    /// Deletes the rows at `removing` (published by the round before) and reads the oldest `limit` of the rest, in one
    /// statement: the relay's round trip and commit for the deletion shared with its next read. `removing` must hold
    /// at most `foldedRemovalLimit` positions; a larger batch is removed on its own (`remove`).
    public static func readBatch(
        limit: Int, removingFirst removing: [Int64], on connection: PostgresConnection, logger: Logger
    ) async throws -> [OutboxRecord] {
        guard !removing.isEmpty else { return try await readBatch(limit: limit, on: connection, logger: logger) }
        precondition(removing.count <= foldedRemovalLimit, "a folded removal compares every row read with each position")
        return try await connection.execute(StorePreparedStatements.ReadOutboxRemoving(limit: limit, removing: removing), logger: logger)
            .collectAll()
    }

    /// The most positions `readBatch(limit:removingFirst:)` deletes: every row it reads is compared with each, so a
    /// fan-out's batch of thousands is removed by a statement of its own instead.
    public static let foldedRemovalLimit = 64

    private static func publisherLockName(_ schema: String) -> String { "caretide.outbox." + schema }

    /// Removes published records.
    public static func remove(_ records: [OutboxRecord], on connection: PostgresConnection, logger: Logger) async throws {
        try await remove(positions: records.map(\.position), on: connection, logger: logger)
    }

    /// Removes published records by position.
    public static func remove(positions: [Int64], on connection: PostgresConnection, logger: Logger) async throws {
        guard !positions.isEmpty else { return }
        // By id, not by range: a transaction that took a lower position may commit after this batch was read,
        // and its row must stay for the next round.
        _ = try await connection.execute(StorePreparedStatements.RemoveOutbox(positions: positions), logger: logger)
    }

    /// Moves a record the broker refused for good to `outbox_parked`, with the reason, so the rows behind it leave.
    public static func park(_ record: OutboxRecord, reason: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            WITH moved AS (DELETE FROM outbox WHERE position = \(record.position) RETURNING *)
            INSERT INTO outbox_parked (position, event_id, topic, message_key, event_type, schema_version, trace_id, body, created_at, reason)
            SELECT position, event_id, topic, message_key, event_type, schema_version, trace_id, body, created_at, \(reason) FROM moved
            """, logger: logger)
    }

    /// Number of events waiting to be published (a metric and a test aid).
    public static func pendingCount(_ database: Database, logger: Logger) async throws -> Int {
        let rows = try await database.client.query("SELECT count(*)::int FROM outbox", logger: logger)
        return try await rows.decode(Int.self).collectAll().first ?? 0
    }
}

/// An event too large to publish: refused before it is stored (an HTTP request gets a 413, a consumed event goes to
/// the dead-letter topic). The description names sizes only.
public struct EventTooLarge: Error, Sendable, CustomStringConvertible {
    public let eventType: String
    public let size: Int
    public let limit: Int
    public var description: String { "the \(eventType) event would be \(size) bytes; at most \(limit) can be published" }
}

/// Records which events a consumer has already applied, inside the transaction that applies them: the primary key
/// turns a redelivered event into a no-op, whatever the handler does.
public enum ProcessedEvents {
    /// The statement that claims events: the consumer's name is `$1`, the event ids `$2`; it returns the ids claimed
    /// now. Also the first part of a consumed batch's claim in the runtime (`ErasedPatients.Claim`).
    public static let claimingInsert = """
        INSERT INTO processed_events (consumer, event_id) SELECT $1, id FROM unnest($2::uuid[]) AS ids(id)
        ON CONFLICT DO NOTHING RETURNING event_id
        """

    /// The ids among `eventIDs` that `consumer` sees for the first time (to apply); the others are duplicates.
    public static func claim(_ eventIDs: [UUID], consumer: String, on connection: PostgresConnection, logger: Logger) async throws -> Set<UUID> {
        let rows = try await connection.execute(StorePreparedStatements.ClaimEvents(consumer: consumer, eventIDs: eventIDs), logger: logger)
        return Set(try await rows.collectAll())
    }

    /// Forgets up to `limit` claims made before `cutoff`, returning how many. An event older than every consumed topic's
    /// retention cannot be delivered again, so its claim guards nothing (`RuntimeLimits.processedEventRetention`).
    ///
    /// Found through the primary key, with no index of their own: Caretide's event ids are version-7 UUIDs, which sort
    /// by the millisecond they were minted in, so each consumer's old claims are the start of its range of the key, read
    /// up to the smallest id of the cutoff's millisecond. The consumers are found by skipping through the key, a probe
    /// each. A claim whose id is not time-ordered (an event from another producer) is forgotten only if its id sorts
    /// below that bound; `processed_at` keeps a replayed old event's recent claim.
    public static func forget(processedBefore cutoff: Date, limit: Int, database: Database, logger: Logger) async throws -> Int {
        let rows = try await database.client.query(
            """
            WITH RECURSIVE consumers AS (
                (SELECT consumer FROM processed_events ORDER BY consumer LIMIT 1)
                UNION ALL
                SELECT (SELECT p.consumer FROM processed_events p WHERE p.consumer > c.consumer ORDER BY p.consumer LIMIT 1)
                FROM consumers c WHERE c.consumer IS NOT NULL),
            bound AS (
                SELECT (lpad(to_hex(floor(extract(epoch FROM \(cutoff)::timestamptz) * 1000)::bigint), 12, '0')
                        || '00000000000000000000')::uuid AS id),
            forgotten AS (
                DELETE FROM processed_events WHERE ctid = ANY(ARRAY(
                    SELECT old.ctid FROM consumers c, bound b, LATERAL (
                        SELECT ctid FROM processed_events
                        WHERE consumer = c.consumer AND event_id < b.id AND processed_at < \(cutoff) LIMIT \(limit)) old
                    LIMIT \(limit)))
                RETURNING 1)
            SELECT count(*)::int FROM forgotten
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

/// A row written in the statement that enqueues events: static SQL (an INSERT, parameters from $9 on, as the outbox's
/// take $1 to $8) and its bindings.
public protocol OutboxSideInsert: Sendable {
    static var sql: String { get }
    func appendBindings(to bindings: inout PostgresBindings)
}
