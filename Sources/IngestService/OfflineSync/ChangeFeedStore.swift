import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of offline sync: each patient's change numbers (`patient_changes`), the changes feed over `records`, the
/// devices that read it, and the purge of old tombstones.
///
/// Why a counter row rather than a sequence or a timestamp: a write takes the patient's next number by updating the
/// patient's row, which it then holds until commit, so the next write of the same patient waits and takes a higher
/// number only after the first committed. Numbers therefore follow commit order per patient, and a reader that has
/// seen number N has seen every change up to N. A shared sequence or `now()` is assigned at the statement, not at
/// commit: a transaction that started first and committed last would slip in behind a reader's cursor. Every writer
/// takes the counter before it touches the patient's records, so the two kinds of lock are always taken in one order.
struct ChangeFeedStore: TransactionalStore {
    let connection: PostgresConnection
    let logger: Logger

    /// The statement (for a CTE) that takes `count` numbers of `patient` and returns the newest as `last_seq`.
    /// `patient` and `count` are SQL: parameters such as `$3`, or literals.
    static func nextChangeSQL(patient: String, count: String) -> String {
        """
        INSERT INTO patient_changes AS counter (patient_id, last_seq) VALUES (\(patient), \(count))
        ON CONFLICT (patient_id) DO UPDATE SET last_seq = counter.last_seq + \(count) RETURNING last_seq
        """
    }

    /// Takes `count` change numbers of the patient (0 only locks the counter) and returns the newest.
    @discardableResult
    func takeChanges(patientID: String, count: Int) async throws -> Int64 {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(patientID)
        bindings.append(Int64(count))
        let sql = "WITH change AS (\(Self.nextChangeSQL(patient: "$1", count: "$2::int8"))) SELECT last_seq FROM change"
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).collectAll()
        // The upsert always returns its row.
        return try rows.first?.decode(Int64.self) ?? 0
    }

    /// A stored record as offline sync meets it, locked for the rest of the transaction.
    struct StoredRecord {
        let recordType: String
        let recordID: String
        let patientID: String
        let version: LastWriterWins.Stored
        let lastEventID: UUID
    }

    /// The records of `keys` (type, id) that exist, locked in key order.
    func lockRecords(_ keys: [(type: String, id: String)]) async throws -> [StoredRecord] {
        guard !keys.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT r.record_type, r.record_id, r.patient_id, r.revision, coalesce(r.client_updated_at, r.updated_at), r.deleted_at IS NOT NULL,
                   r.body::text, r.last_event_id
            FROM records r JOIN unnest(\(keys.map(\.type))::text[], \(keys.map(\.id))::text[]) AS k(record_type, record_id)
              ON r.record_type = k.record_type AND r.record_id = k.record_id
            ORDER BY r.record_type, r.record_id FOR UPDATE OF r
            """, logger: logger)
        var records: [StoredRecord] = []
        for try await (type, id, patient, revision, updatedAt, deleted, body, eventID) in rows.decode(
            (String, String, String, Int, Date, Bool, String, UUID).self)
        {
            records.append(
                StoredRecord(
                    recordType: type, recordID: id, patientID: patient,
                    version: .init(revision: revision, updatedAt: updatedAt, deleted: deleted, body: try CaretideJSON.parse(Array(body.utf8))),
                    lastEventID: eventID))
        }
        return records
    }

    /// One record as an upload leaves it.
    struct Write {
        let recordType: String
        let recordID: String
        let revision: Int
        let bodyText: String
        let observedAt: Date
        let eventID: UUID
        let changeSeq: Int64
        let clientUpdatedAt: Date
    }

    /// One record an upload deletes.
    struct Deletion {
        let recordType: String
        let recordID: String
        let eventID: UUID
        let changeSeq: Int64
        let clientUpdatedAt: Date
    }

    /// Inserts new records; returns the keys that were inserted (an id another patient's record holds is not).
    func insert(_ writes: [Write], patientID: String) async throws -> Set<String> {
        guard !writes.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id, change_seq, client_updated_at)
            SELECT t, i, \(patientID), r, b::jsonb, o, e, s, u
            FROM unnest(\(writes.map(\.recordType))::text[], \(writes.map(\.recordID))::text[], \(writes.map { Int64($0.revision) })::int8[],
                        \(writes.map(\.bodyText))::text[], \(writes.map(\.observedAt))::timestamptz[], \(writes.map(\.eventID))::uuid[],
                        \(writes.map(\.changeSeq))::int8[], \(writes.map(\.clientUpdatedAt))::timestamptz[]) AS w(t, i, r, b, o, e, s, u)
            ON CONFLICT (record_type, record_id) DO NOTHING RETURNING record_type, record_id
            """, logger: logger)
        var inserted: Set<String> = []
        for try await (type, id) in rows.decode((String, String).self) { inserted.insert(Self.key(type, id)) }
        return inserted
    }

    /// Writes the next revisions of records locked by `lockRecords`.
    func revise(_ writes: [Write]) async throws {
        guard !writes.isEmpty else { return }
        try await connection.query(
            """
            UPDATE records SET revision = w.r, body = w.b::jsonb, observed_at = w.o, last_event_id = w.e, change_seq = w.s,
                client_updated_at = w.u, updated_at = now()
            FROM unnest(\(writes.map(\.recordType))::text[], \(writes.map(\.recordID))::text[], \(writes.map { Int64($0.revision) })::int8[],
                        \(writes.map(\.bodyText))::text[], \(writes.map(\.observedAt))::timestamptz[], \(writes.map(\.eventID))::uuid[],
                        \(writes.map(\.changeSeq))::int8[], \(writes.map(\.clientUpdatedAt))::timestamptz[]) AS w(t, i, r, b, o, e, s, u)
            WHERE records.record_type = w.t AND records.record_id = w.i
            """, logger: logger)
    }

    /// Marks records locked by `lockRecords` deleted: tombstones that keep their last body and revision.
    func markDeleted(_ writes: [Deletion]) async throws {
        guard !writes.isEmpty else { return }
        try await connection.query(
            """
            UPDATE records SET deleted_at = now(), last_event_id = w.e, change_seq = w.s, client_updated_at = w.u, updated_at = now()
            FROM unnest(\(writes.map(\.recordType))::text[], \(writes.map(\.recordID))::text[], \(writes.map(\.eventID))::uuid[],
                        \(writes.map(\.changeSeq))::int8[], \(writes.map(\.clientUpdatedAt))::timestamptz[]) AS w(t, i, e, s, u)
            WHERE records.record_type = w.t AND records.record_id = w.i
            """, logger: logger)
    }

    /// Advances the stored device time of records sent again unchanged but later (`LastWriterWins.Outcome.refresh`).
    func refreshTimes(_ records: [(type: String, id: String, updatedAt: Date)]) async throws {
        guard !records.isEmpty else { return }
        try await connection.query(
            """
            UPDATE records SET client_updated_at = w.u
            FROM unnest(\(records.map(\.type))::text[], \(records.map(\.id))::text[], \(records.map(\.updatedAt))::timestamptz[]) AS w(t, i, u)
            WHERE records.record_type = w.t AND records.record_id = w.i
            """, logger: logger)
    }

    /// Sets the patient's newest change number after an upload numbered its changes itself (from the number
    /// `takeChanges` returned, the counter row still locked).
    func setLastChange(patientID: String, to number: Int64) async throws {
        try await connection.query("UPDATE patient_changes SET last_seq = \(number) WHERE patient_id = \(patientID)", logger: logger)
    }

    static func key(_ type: String, _ id: String) -> String { type + "\u{1F}" + id }

    // MARK: - The feed

    /// One entry of the changes feed: a record's newest state, or its tombstone.
    struct Change {
        let recordType: String
        let recordID: String
        let revision: Int
        let seq: Int64
        let updatedAt: Date
        let deletedAt: Date?
        let body: String
    }

    /// The patient's changes after `after` in commit order (at most `limit`, plus one to tell whether more follow),
    /// and the number through which tombstones were purged, read in one snapshot.
    static func changes(
        patientID: String, after: Int64, limit: Int, recordTypes: [String], on client: PostgresClient, logger: Logger
    ) async throws -> (purgedThrough: Int64, changes: [Change]) {
        let rows = try await client.query(
            """
            SELECT h.purged, c.record_type, c.record_id, c.revision, c.change_seq, c.updated_at, c.deleted_at, c.body
            FROM (SELECT coalesce((SELECT purged_through FROM patient_changes WHERE patient_id = \(patientID)), 0) AS purged) h
            LEFT JOIN LATERAL (
                SELECT record_type, record_id, revision, change_seq, coalesce(client_updated_at, updated_at) AS updated_at, deleted_at, body::text
                FROM records WHERE patient_id = \(patientID) AND change_seq > \(after) AND record_type = ANY(\(recordTypes))
                ORDER BY change_seq LIMIT \(limit + 1)) c ON true
            ORDER BY c.change_seq
            """, logger: logger)
        var purged: Int64 = 0
        var changes: [Change] = []
        for try await (purgedThrough, type, id, revision, seq, updatedAt, deletedAt, body) in rows.decode(
            (Int64, String?, String?, Int?, Int64?, Date?, Date?, String?).self)
        {
            purged = purgedThrough
            guard let type, let id, let revision, let seq, let updatedAt, let body else { continue }
            changes.append(
                Change(recordType: type, recordID: id, revision: revision, seq: seq, updatedAt: updatedAt, deletedAt: deletedAt, body: body))
        }
        return (purged, changes)
    }

    /// Remembers how far a device has read (it asked for the changes after `syncedThrough`).
    static func deviceRead(
        patientID: String, deviceID: String, syncedThrough: Int64, on client: PostgresClient, logger: Logger
    ) async throws {
        try await client.query(
            """
            INSERT INTO sync_devices (patient_id, device_id, synced_through, last_seen) VALUES (\(patientID), \(deviceID), \(syncedThrough), now())
            ON CONFLICT (patient_id, device_id) DO UPDATE SET synced_through = excluded.synced_through, last_seen = excluded.last_seen
            """, logger: logger)
    }

    // MARK: - Tombstones

    /// Removes up to `limit` tombstones that are older than `cutoff`, or that every device of the patient seen since
    /// `cutoff` has read past, and raises each patient's `purged_through` in the same transaction, so a cursor from
    /// before a purged tombstone is told to resync rather than silently missing the deletion. Devices not seen since
    /// `cutoff` are forgotten (they resync when they return). Returns how many tombstones went.
    static func purgeTombstones(before cutoff: Date, limit: Int, database: Database, timeout: Duration, logger: Logger) async throws -> Int {
        try await database.transaction(timeout: timeout) { connection in
            let purgeable = """
                deleted_at IS NOT NULL AND (deleted_at < $1 OR change_seq <= (
                    SELECT min(d.synced_through) FROM sync_devices d WHERE d.patient_id = records.patient_id AND d.last_seen >= $1))
                """
            var candidates = PostgresBindings(capacity: 2)
            candidates.append(cutoff)
            candidates.append(Int64(limit))
            let patients = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT DISTINCT patient_id FROM (SELECT patient_id FROM records WHERE \(purgeable) LIMIT $2) p", binds: candidates),
                logger: logger
            ).collectAll().map { try $0.decode(String.self) }
            try await connection.query("DELETE FROM sync_devices WHERE last_seen < \(cutoff)", logger: logger)
            guard !patients.isEmpty else { return 0 }
            // Counters first, in one order, as every writer takes them before records.
            try await connection.query(
                "SELECT 1 FROM patient_changes WHERE patient_id = ANY(\(patients)) ORDER BY patient_id FOR UPDATE", logger: logger)
            var purge = PostgresBindings(capacity: 2)
            purge.append(cutoff)
            purge.append(patients)
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        WITH purged AS (
                            DELETE FROM records WHERE patient_id = ANY($2) AND \(purgeable) RETURNING patient_id, change_seq),
                        raised AS (
                            UPDATE patient_changes p SET purged_through = greatest(p.purged_through, m.seq)
                            FROM (SELECT patient_id, max(change_seq) AS seq FROM purged GROUP BY patient_id) m
                            WHERE p.patient_id = m.patient_id RETURNING 1)
                        SELECT (SELECT count(*) FROM purged), (SELECT count(*) FROM raised)
                        """, binds: purge), logger: logger
            ).collectAll()
            guard let row = rows.first else { return 0 }
            let (purged, _) = try row.decode((Int, Int).self)
            return purged
        }
    }
}
