import Foundation
import PostgresNIO

/// The statements every consumed batch runs, prepared once per connection rather than parsed and planned on every
/// execution. Small batches run the same statements many times a second, so planning was a large share of their cost.
/// Every prepared statement of a fixed type names itself (`static let name`): PostgresNIO's default name spells the
/// type out with `String(reflecting:)` on every execution, about 1 % of a consumer's CPU. (`EnqueueOutboxAlongside`,
/// generic, keeps the default: a stored static name cannot depend on its `Side`, and it runs once per transaction.)
enum StorePreparedStatements {
    /// Records which of a batch's event ids a consumer sees for the first time.
    struct ClaimEvents: PostgresPreparedStatement {
        static let name = "caretide.claim-events"
        static let sql = ProcessedEvents.claimingInsert
        typealias Row = UUID
        let consumer: String
        let eventIDs: [UUID]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(consumer)
            bindings.append(eventIDs)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> UUID { try row.decode(UUID.self) }
    }

    /// Adds encoded events to the outbox, in order, holding the schema's outbox writer lock shared (and, when
    /// `lockingKeys`, each key's lock, in hash order) before any row takes its position: the locks of
    /// `Outbox.Ordering` at no extra round trip, which a consumer lane's batches would feel.
    struct EnqueueOutbox: PostgresPreparedStatement {
        static let name = "caretide.enqueue-outbox"
        static var sql: String { enqueueSQL }
        typealias Row = ()
        let entries: [Outbox.Entry]
        let lockingKeys: Bool

        func makeBindings() throws -> PostgresBindings { Self.bindings(entries, lockingKeys: lockingKeys) }

        func decodeRow(_ row: PostgresRow) throws {}

        // Bodies (JSON, so UTF-8 without NUL) travel as text because PostgresNIO binds no bytea arrays, and absent keys
        // as '' because it binds no arrays of optionals; convert_to() and nullif() turn them back. The sort needs every
        // row, so both lock joins are evaluated before the first insert.
        static let enqueueSQL = """
            INSERT INTO outbox (event_id, topic, message_key, event_type, schema_version, trace_id, body)
            SELECT e.event_id, e.topic, nullif(e.message_key, ''), e.event_type, e.schema_version, nullif(e.trace_id, ''), convert_to(e.body, 'UTF8')
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::text[])
                 WITH ORDINALITY AS e(event_id, topic, message_key, event_type, schema_version, trace_id, body, ordinal)
            CROSS JOIN pg_advisory_xact_lock_shared(hashtext('caretide.outbox-writers.' || current_schema())) AS writers
            CROSS JOIN (SELECT count(*) FROM (
                SELECT pg_advisory_xact_lock(hashtext('caretide.outbox.' || current_schema()), hash)
                FROM (SELECT DISTINCT hashtext(key) AS hash FROM unnest($3::text[]) AS keys(key) WHERE $8 AND key <> '' ORDER BY 1) AS hashes
            ) AS locked) AS keys
            ORDER BY e.ordinal
            """
        /// $1 to $8.
        static func bindings(_ entries: [Outbox.Entry], lockingKeys: Bool) -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(entries.map(\.eventID))
            bindings.append(entries.map(\.topic))
            bindings.append(entries.map { $0.key ?? "" })
            bindings.append(entries.map(\.eventType))
            bindings.append(entries.map(\.schemaVersion))
            bindings.append(entries.map { $0.traceID ?? "" })
            bindings.append(entries.map { String(decoding: $0.body, as: UTF8.self) })
            bindings.append(lockingKeys)
            return bindings
        }
    }

    /// `EnqueueOutbox` with a row written in the same statement (a data-modifying CTE): what a writer records beside
    /// its events costs no extra round trip.
    struct EnqueueOutboxAlongside<Side: OutboxSideInsert>: PostgresPreparedStatement {
        static var sql: String { "WITH side AS (\(Side.sql)) " + EnqueueOutbox.enqueueSQL }
        typealias Row = ()
        let entries: [Outbox.Entry]
        let lockingKeys: Bool
        let side: Side

        func makeBindings() throws -> PostgresBindings {
            var bindings = EnqueueOutbox.bindings(entries, lockingKeys: lockingKeys)
            side.appendBindings(to: &bindings)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// The schema's outbox writer lock, exclusive, until the transaction ends: a job beside the consumer lanes
    /// (`caretide rescore`, `Outbox.Ordering.exclusive`). Not the relay's publisher lock, which writers never block.
    struct LockOutboxWritersExclusive: PostgresPreparedStatement {
        static let name = "caretide.lock-outbox-writers"
        static let sql = "SELECT 1 FROM pg_advisory_xact_lock(hashtext('caretide.outbox-writers.' || current_schema()))"
        typealias Row = ()
        func makeBindings() throws -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// The schema's publisher lock, if no other relay holds it, until the session releases it or ends. (The same
    /// lock as the transaction-level one relays took before: an older replica during an upgrade still defers to it.)
    struct TryOutboxPublisherLock: OutboxPublisherLockStatement {
        static let name = "caretide.try-outbox-publisher-session-lock"
        static let sql = "SELECT pg_try_advisory_lock(hashtext($1))"
        typealias Row = Bool
        let lockName: String
    }

    /// Releases the publisher lock `TryOutboxPublisherLock` took.
    struct ReleaseOutboxPublisherLock: OutboxPublisherLockStatement {
        static let name = "caretide.release-outbox-publisher-lock"
        static let sql = "SELECT pg_advisory_unlock(hashtext($1))"
        typealias Row = Bool
        let lockName: String
    }

    /// The oldest outbox records. Read after the publisher lock is held, in a statement of its own: a statement's
    /// snapshot is taken when it starts, so a read in the statement that takes the lock could start before the last
    /// holder's commit and send again the rows that commit deleted.
    struct ReadOutbox: PostgresPreparedStatement {
        static let name = "caretide.read-outbox"
        static let sql = """
            SELECT position, event_id, topic, message_key, event_type, schema_version, trace_id, body
            FROM outbox ORDER BY position LIMIT $1
            """
        typealias Row = OutboxRecord
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> OutboxRecord { try Self.record(row) }

        /// A row of the outbox's columns in `sql`'s order, as `ReadOutboxRemoving` reads them too.
        static func record(_ row: PostgresRow) throws -> OutboxRecord {
            var columns = RowReader(row)
            return OutboxRecord(
                position: try columns.next(), eventID: try columns.next(), topic: try columns.next(), key: try columns.next(),
                eventType: try columns.next(), schemaVersion: try columns.next(), traceID: try columns.next(),
                body: Array(buffer: try columns.next(ByteBuffer.self)))
        }
    }

    /// The oldest outbox records but those at `removing`, which the statement deletes: the rows the relay's last
    /// round published, so that a round is one statement. Its snapshot still shows the rows it deletes, hence the
    /// filter; `removing` is kept short (`Outbox.foldedRemovalLimit`), since each row read is compared with all of it.
    struct ReadOutboxRemoving: PostgresPreparedStatement {
        static let name = "caretide.read-outbox-removing"
        static let sql = """
            WITH removed AS (DELETE FROM outbox WHERE position = ANY($2::int8[]))
            SELECT position, event_id, topic, message_key, event_type, schema_version, trace_id, body
            FROM outbox WHERE position <> ALL($2::int8[]) ORDER BY position LIMIT $1
            """
        typealias Row = OutboxRecord
        let limit: Int
        let removing: [Int64]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(limit)
            bindings.append(removing)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> OutboxRecord { try ReadOutbox.record(row) }
    }

    /// Removes published outbox rows, by position: every relay batch runs it.
    struct RemoveOutbox: PostgresPreparedStatement {
        static let name = "caretide.remove-outbox"
        static let sql = "DELETE FROM outbox WHERE position = ANY($1::int8[])"
        typealias Row = ()
        let positions: [Int64]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(positions)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }
}

/// A statement on the outbox publisher's advisory lock: the lock's name bound, whether it was taken or released read.
protocol OutboxPublisherLockStatement: PostgresPreparedStatement where Row == Bool {
    var lockName: String { get }
}

extension OutboxPublisherLockStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(lockName)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}
