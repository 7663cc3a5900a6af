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
struct ChangeFeedStore: ServiceStore {
    let session: StoreSession

    /// Takes `count` change numbers of each patient (0 only locks the counter) and returns each patient's newest: the
    /// counters in patient order, so two writers of overlapping patients wait rather than deadlock. A patient whose
    /// data was erased is missing from the answer: their counter is marked, and takes no write (`ErasureStore`).
    func takeChanges(_ counts: [String: Int]) async throws -> [String: Int64] {
        guard !counts.isEmpty else { return [:] }
        let patients = counts.keys.sorted()
        let rows = try await session.execute(TakeChanges(patients: patients, counts: patients.map { Int64(counts[$0] ?? 0) }))
        var newest: [String: Int64] = [:]
        for try await (patient, last) in rows { newest[patient] = last }
        return newest
    }

    /// Takes `count` change numbers of the patient (0 only locks the counter) and returns the newest; refuses (410)
    /// a patient whose data was erased.
    @discardableResult
    func takeChanges(patientID: String, count: Int) async throws -> Int64 {
        guard let newest = try await takeChanges([patientID: count])[patientID] else { throw HTTPProblem.patientErased }
        return newest
    }

    /// Prepared: every write runs it.
    struct TakeChanges: PostgresPreparedStatement {
        static let name = "ingest.take-changes"
        static let sql = """
            INSERT INTO patient_changes AS counter (patient_id, last_seq)
            SELECT p, c FROM unnest($1::text[], $2::int8[]) AS t(p, c) ORDER BY p
            ON CONFLICT (patient_id) DO UPDATE SET last_seq = counter.last_seq + excluded.last_seq WHERE counter.erased_at IS NULL
            RETURNING patient_id, last_seq
            """
        typealias Row = (String, Int64)
        let patients: [String]
        let counts: [Int64]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(patients)
            bindings.append(counts)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> (String, Int64) {
            var columns = RowReader(row)
            return (try columns.next(), try columns.next())
        }
    }

    // MARK: - The feed

    /// One entry of the changes feed: a record's newest state, or its tombstone.
    struct Change {
        let kind: RecordKind
        let recordID: String
        let revision: Int
        let seq: Int64
        let updatedAt: Date
        let deletedAt: Date?
        let body: String
    }

    /// The patient's changes after `after` in commit order (at most `limit`, plus one to tell whether more follow),
    /// and the number through which tombstones were purged, read in one snapshot.
    func changes(
        patientID: String, after: Int64, limit: Int, kinds: [RecordKind]
    ) async throws -> (purgedThrough: Int64, changes: [Change]) {
        let rows = try await session.query(
            """
            SELECT h.purged, c.record_type, c.record_id, c.revision, c.change_seq, c.updated_at, c.deleted_at, c.body
            FROM (SELECT coalesce((SELECT purged_through FROM patient_changes WHERE patient_id = \(patientID)), 0) AS purged) h
            LEFT JOIN LATERAL (
                SELECT record_type, record_id, revision, change_seq, coalesce(client_updated_at, updated_at) AS updated_at, deleted_at, body::text
                FROM records WHERE patient_id = \(patientID) AND change_seq > \(after) AND record_type = ANY(\(kinds.map(\.recordType)))
                ORDER BY change_seq LIMIT \(limit + 1)) c ON true
            ORDER BY c.change_seq
            """)
        var purged: Int64 = 0
        var changes: [Change] = []
        for try await (purgedThrough, type, id, revision, seq, updatedAt, deletedAt, body) in rows.decode(
            (Int64, String?, String?, Int?, Int64?, Date?, Date?, String?).self)
        {
            purged = purgedThrough
            guard let type, let id, let revision, let seq, let updatedAt, let body else { continue }
            changes.append(
                Change(
                    kind: try RecordKind(recordType: type), recordID: id, revision: revision, seq: seq, updatedAt: updatedAt, deletedAt: deletedAt,
                    body: body))
        }
        return (purged, changes)
    }

    /// Remembers how far a device has read (it asked for the changes after `syncedThrough`).
    func deviceRead(
        patientID: String, deviceID: String, syncedThrough: Int64
    ) async throws {
        try await session.query(
            """
            INSERT INTO sync_devices (patient_id, device_id, synced_through, last_seen) VALUES (\(patientID), \(deviceID), \(syncedThrough), now())
            ON CONFLICT (patient_id, device_id) DO UPDATE SET synced_through = excluded.synced_through, last_seen = excluded.last_seen
            """)
    }

    // MARK: - Tombstones

    /// Removes up to `limit` tombstones that are older than `cutoff`, or that every device of the patient seen since
    /// `cutoff` has read past, and raises each patient's `purged_through` in the same transaction, so a cursor from
    /// before a purged tombstone is told to resync rather than silently missing the deletion. Devices not seen since
    /// `cutoff` are forgotten (they resync when they return). Returns how many tombstones went.
    static func purgeTombstones(before cutoff: Date, limit: Int, database: Database, timeout: Duration, logger: Logger) async throws -> Int {
        try await database.transaction(timeout: timeout) { connection in
            let session = StoreSession(connection: connection, logger: logger)
            let purgeable = """
                deleted_at IS NOT NULL AND (deleted_at < $1 OR change_seq <= (
                    SELECT min(d.synced_through) FROM sync_devices d WHERE d.patient_id = records.patient_id AND d.last_seen >= $1))
                """
            var candidates = PostgresBindings(capacity: 2)
            candidates.append(cutoff)
            candidates.append(Int64(limit))
            let patients = try await session.query(
                PostgresQuery(
                    unsafeSQL: "SELECT DISTINCT patient_id FROM (SELECT patient_id FROM records WHERE \(purgeable) LIMIT $2) p", binds: candidates)
            ).collectAll().map { try $0.decode(String.self) }
            try await session.query("DELETE FROM sync_devices WHERE last_seen < \(cutoff)")
            guard !patients.isEmpty else { return 0 }
            // Counters first, in one order, as every writer takes them before records.
            try await session.query(
                "SELECT 1 FROM patient_changes WHERE patient_id = ANY(\(patients)) ORDER BY patient_id FOR UPDATE")
            var purge = PostgresBindings(capacity: 2)
            purge.append(cutoff)
            purge.append(patients)
            let rows = try await session.query(
                PostgresQuery(
                    unsafeSQL: """
                        WITH purged AS (
                            DELETE FROM records WHERE patient_id = ANY($2) AND \(purgeable) RETURNING patient_id, change_seq),
                        raised AS (
                            UPDATE patient_changes p SET purged_through = greatest(p.purged_through, m.seq)
                            FROM (SELECT patient_id, max(change_seq) AS seq FROM purged GROUP BY patient_id) m
                            WHERE p.patient_id = m.patient_id RETURNING 1)
                        SELECT (SELECT count(*) FROM purged), (SELECT count(*) FROM raised)
                        """, binds: purge)
            ).collectAll()
            guard let row = rows.first else { return 0 }
            let (purged, _) = try row.decode((Int, Int).self)
            return purged
        }
    }
}
