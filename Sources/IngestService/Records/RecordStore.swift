import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of ingest-service's `records` table: one row per record (measurement, clinical input, exam report) with its
/// current revision and body. Its one writer is `RecordWriter`, whatever the door (single requests coalesced in a group
/// commit, offline uploads): set-based statements, one per kind of change whatever the number of records. An instance
/// works inside a transaction that has taken the change numbers of the patients concerned first
/// (`ChangeFeedStore.takeChanges`): the lock order of every writer, counter before records. The reads are static.
struct RecordStore: ServiceStore {
    let session: StoreSession

    /// A record's identity: its kind and its id.
    struct Key: Hashable, Sendable {
        let kind: RecordKind
        let id: String
    }

    /// A stored record, locked until the transaction ends.
    struct Stored {
        let key: Key
        let patientID: String
        let version: LastWriterWins.Stored
        let lastEventID: UUID
    }

    /// A record as a write leaves it: new, or its next revision.
    struct Write {
        let key: Key
        let patientID: String
        let revision: Int
        let bodyText: String
        let observedAt: Date
        let eventID: UUID
        let changeSeq: Int64
        /// The device's time of the change, for offline sync's last-writer-wins; nil for a server-side write.
        let clientUpdatedAt: Date?
    }

    /// A record a write deletes (a tombstone for the changes feed, keeping its last body and revision).
    struct Deletion {
        let key: Key
        let eventID: UUID
        let changeSeq: Int64
        let clientUpdatedAt: Date?
    }

    /// The records of `keys` that exist, locked in key order.
    func lock(_ keys: [Key]) async throws -> [Stored] {
        guard !keys.isEmpty else { return [] }
        let rows = try await session.query(
            """
            SELECT r.record_type, r.record_id, r.patient_id, r.revision, coalesce(r.client_updated_at, r.updated_at), r.deleted_at IS NOT NULL,
                   r.body::text, r.last_event_id
            FROM records r JOIN unnest(\(keys.map(\.kind.recordType))::text[], \(keys.map(\.id))::text[]) AS k(record_type, record_id)
              ON r.record_type = k.record_type AND r.record_id = k.record_id
            ORDER BY r.record_type, r.record_id FOR UPDATE OF r
            """)
        var records: [Stored] = []
        for try await (type, id, patient, revision, updatedAt, deleted, body, eventID) in rows.decode(
            (String, String, String, Int, Date, Bool, String, UUID).self)
        {
            records.append(
                Stored(
                    key: Key(kind: try RecordKind(recordType: type), id: id), patientID: patient,
                    version: .init(revision: revision, updatedAt: updatedAt, deleted: deleted, body: try CaretideJSON.parse(Array(body.utf8))),
                    lastEventID: eventID))
        }
        return records
    }

    /// Inserts new records; returns the keys that were inserted (an id another record holds is not: it stays as it was).
    func insert(_ writes: [Write]) async throws -> Set<Key> {
        guard !writes.isEmpty else { return [] }
        let rows = try await session.execute(Insert(writes: writes))
        var inserted: Set<Key> = []
        for try await key in rows { inserted.insert(key) }
        return inserted
    }

    /// Prepared: every group commit runs it.
    struct Insert: PostgresPreparedStatement {
        static let name = "ingest.insert-records"
        // A device time travels with a flag (PostgresNIO binds no arrays of optionals).
        static let sql = """
            INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id, change_seq, client_updated_at)
            SELECT t, i, p, r, b::jsonb, o, e, s, CASE WHEN h THEN u END
            FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::text[], $6::timestamptz[], $7::uuid[], $8::int8[], $9::bool[],
                        $10::timestamptz[]) AS w(t, i, p, r, b, o, e, s, h, u)
            ON CONFLICT (record_type, record_id) DO NOTHING RETURNING record_type, record_id
            """
        typealias Row = Key
        let writes: [Write]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(writes.map(\.key.kind.recordType))
            bindings.append(writes.map(\.key.id))
            bindings.append(writes.map(\.patientID))
            bindings.append(writes.map { Int64($0.revision) })
            bindings.append(writes.map(\.bodyText))
            bindings.append(writes.map(\.observedAt))
            bindings.append(writes.map(\.eventID))
            bindings.append(writes.map(\.changeSeq))
            bindings.append(writes.map { $0.clientUpdatedAt != nil })
            bindings.append(writes.map { $0.clientUpdatedAt ?? $0.observedAt })
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Key {
            var columns = RowReader(row)
            return Key(kind: try RecordKind(recordType: columns.next()), id: try columns.next())
        }
    }

    /// Writes the next revisions of records locked by `lock`.
    func revise(_ writes: [Write]) async throws {
        guard !writes.isEmpty else { return }
        try await session.query(
            """
            UPDATE records SET revision = w.r, body = w.b::jsonb, observed_at = w.o, last_event_id = w.e, change_seq = w.s,
                client_updated_at = CASE WHEN w.h THEN w.u END, updated_at = now()
            FROM unnest(\(writes.map(\.key.kind.recordType))::text[], \(writes.map(\.key.id))::text[], \(writes.map { Int64($0.revision) })::int8[],
                        \(writes.map(\.bodyText))::text[], \(writes.map(\.observedAt))::timestamptz[], \(writes.map(\.eventID))::uuid[],
                        \(writes.map(\.changeSeq))::int8[], \(writes.map { $0.clientUpdatedAt != nil })::bool[],
                        \(writes.map { $0.clientUpdatedAt ?? $0.observedAt })::timestamptz[]) AS w(t, i, r, b, o, e, s, h, u)
            WHERE records.record_type = w.t AND records.record_id = w.i
            """)
    }

    /// Marks records locked by `lock` deleted: tombstones that keep their last body and revision.
    func markDeleted(_ deletions: [Deletion]) async throws {
        guard !deletions.isEmpty else { return }
        let now = Date()
        try await session.query(
            """
            UPDATE records SET deleted_at = now(), last_event_id = w.e, change_seq = w.s, client_updated_at = CASE WHEN w.h THEN w.u END,
                updated_at = now()
            FROM unnest(\(deletions.map(\.key.kind.recordType))::text[], \(deletions.map(\.key.id))::text[], \(deletions.map(\.eventID))::uuid[],
                        \(deletions.map(\.changeSeq))::int8[], \(deletions.map { $0.clientUpdatedAt != nil })::bool[],
                        \(deletions.map { $0.clientUpdatedAt ?? now })::timestamptz[]) AS w(t, i, e, s, h, u)
            WHERE records.record_type = w.t AND records.record_id = w.i
            """)
    }

    /// Advances the stored device time of records sent again unchanged but later (`LastWriterWins.Outcome.refresh`).
    func refreshTimes(_ records: [(key: Key, updatedAt: Date)]) async throws {
        guard !records.isEmpty else { return }
        try await session.query(
            """
            UPDATE records SET client_updated_at = w.u
            FROM unnest(\(records.map(\.key.kind.recordType))::text[], \(records.map(\.key.id))::text[], \(records.map(\.updatedAt))::timestamptz[]) AS w(t, i, u)
            WHERE records.record_type = w.t AND records.record_id = w.i
            """)
    }

    /// The patient a record belongs to, if it exists.
    func patient(kind: RecordKind, id: String) async throws -> String? {
        try await session.fetchAll(
            "SELECT patient_id FROM records WHERE record_type = \(kind.recordType) AND record_id = \(id)", as: String.self
        ).first
    }

    /// A page of the patient's current (not deleted) records of `kinds` observed in `period`, oldest observation
    /// first, each body with its kind and revision.
    func current(
        patientID: String, kinds: [RecordKind], period: Period, page: PageRequest
    ) async throws -> Page<JSONValue> {
        let after = page.after
        guard after == nil || after?.date != nil else { throw PageRequest.badCursor }
        let rows = try await session.fetchAll(
            """
            SELECT record_type, record_id, revision, observed_at, body::text FROM records
            WHERE patient_id = \(patientID) AND record_type = ANY(\(kinds.map(\.recordType))) AND deleted_at IS NULL
              AND observed_at >= \(period.start) AND observed_at < \(period.end)
              AND (\(after == nil) OR (observed_at, record_id) > (\(after?.date ?? Date()), \(after?.id ?? "")))
            ORDER BY observed_at, record_id LIMIT \(page.limit + 1)
            """, as: (String, String, Int, Date, String).self)
        return try Page(rows: rows, request: page, cursor: { PageRequest.Cursor(date: $0.3, id: $0.1) }) { type, _, revision, _, body in
            try CaretideJSON.parse(Array(body.utf8)).merging([
                "kind": .string(try RecordKind(recordType: type).measurementKind?.rawValue ?? ""), "revision": .number(Double(revision)),
            ])
        }
    }
}
