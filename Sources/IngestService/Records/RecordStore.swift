import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of ingest-service's `records` table: one row per record (measurement, clinical input, exam report) with its
/// current revision and body. An instance works inside a request's transaction; the reads are static.
struct RecordStore: TransactionalStore {
    let connection: PostgresConnection
    let logger: Logger

    /// A stored record, locked until the transaction ends.
    struct Existing {
        let patientID: String
        let revision: Int
        let body: String
        let deletedAt: Date?
        let lastEventID: UUID
    }

    /// Inserts revision 1 unless the id is taken; true when it was inserted.
    func insertFirst(
        type: String, id: String, patientID: String, bodyText: String, observedAt: Date, eventID: UUID
    ) async throws -> Bool {
        try await !connection.execute(
            InsertFirst(type: type, id: id, patientID: patientID, bodyText: bodyText, observedAt: observedAt, eventID: eventID), logger: logger
        ).collectAll().isEmpty
    }

    /// The record, locked for the rest of the transaction; nil when there is none.
    func locked(type: String, id: String) async throws -> Existing? {
        try await connection.execute(LockRecord(type: type, id: id), logger: logger).collectAll().first
    }

    // Every write runs these: prepared once per connection rather than parsed and planned each time.

    /// Takes the patient's next change number first (and with it the patient's counter row until commit: see
    /// `ChangeFeedStore`), whether or not the record turns out to exist: every write of a patient's records starts so,
    /// which keeps one lock order, counter before records.
    struct InsertFirst: PostgresPreparedStatement {
        static let sql = """
            WITH change AS (\(ChangeFeedStore.nextChangeSQL(patient: "$3", count: "1")))
            INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id, change_seq)
            SELECT $1, $2, $3, 1, $4::jsonb, $5, $6, change.last_seq FROM change
            ON CONFLICT (record_type, record_id) DO NOTHING RETURNING 1
            """
        typealias Row = Int
        let type: String, id: String, patientID: String, bodyText: String, observedAt: Date, eventID: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(type)
            bindings.append(id)
            bindings.append(patientID)
            bindings.append(bodyText)
            bindings.append(observedAt)
            bindings.append(eventID)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int { try row.decode(Int.self) }
    }

    struct LockRecord: PostgresPreparedStatement {
        static let sql = """
            SELECT patient_id, revision, body::text, deleted_at, last_event_id FROM records
            WHERE record_type = $1 AND record_id = $2 FOR UPDATE
            """
        typealias Row = Existing
        let type: String, id: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(type)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Existing {
            let (patientID, revision, body, deletedAt, lastEventID) = try row.decode((String, Int, String, Date?, UUID).self)
            return Existing(patientID: patientID, revision: revision, body: body, deletedAt: deletedAt, lastEventID: lastEventID)
        }
    }

    /// The next revision of a record whose patient's change number this transaction took (`insertFirst`,
    /// `ChangeFeedStore.takeChanges`): the record takes that number.
    func revise(type: String, id: String, revision: Int, bodyText: String, observedAt: Date, eventID: UUID) async throws {
        try await connection.query(
            """
            UPDATE records SET revision = \(revision), body = \(bodyText)::jsonb, observed_at = \(observedAt),
                last_event_id = \(eventID), updated_at = now(), client_updated_at = NULL,
                change_seq = (SELECT last_seq FROM patient_changes WHERE patient_id = records.patient_id)
            WHERE record_type = \(type) AND record_id = \(id)
            """, logger: logger)
    }

    /// Marks a record deleted (a tombstone for the changes feed); as `revise`, after the patient's change number.
    func markDeleted(type: String, id: String, eventID: UUID) async throws {
        try await connection.query(
            """
            UPDATE records SET deleted_at = now(), last_event_id = \(eventID), updated_at = now(), client_updated_at = NULL,
                change_seq = (SELECT last_seq FROM patient_changes WHERE patient_id = records.patient_id)
            WHERE record_type = \(type) AND record_id = \(id)
            """, logger: logger)
    }

    /// The patient a record belongs to, if it exists.
    static func patient(type: String, id: String, on client: PostgresClient, logger: Logger) async throws -> String? {
        try await client.fetchAll(
            "SELECT patient_id FROM records WHERE record_type = \(type) AND record_id = \(id)", as: String.self, logger: logger
        ).first
    }

    /// A page of the patient's current (not deleted) records whose type starts with `typePrefix`, oldest observation
    /// first, each body with its kind and revision.
    static func current(
        patientID: String, typePrefix: String, page: PageRequest, on client: PostgresClient, logger: Logger
    ) async throws -> Page<JSONValue> {
        let after = page.after
        guard after == nil || after?.date != nil else { throw PageRequest.badCursor }
        let rows = try await client.fetchAll(
            """
            SELECT record_type, record_id, revision, observed_at, body::text FROM records
            WHERE patient_id = \(patientID) AND record_type LIKE \(typePrefix + "%") AND deleted_at IS NULL
              AND (\(after == nil) OR (observed_at, record_id) > (\(after?.date ?? Date()), \(after?.id ?? "")))
            ORDER BY observed_at, record_id LIMIT \(page.limit + 1)
            """, as: (String, String, Int, Date, String).self, logger: logger)
        return try Page(rows: rows, request: page, cursor: { PageRequest.Cursor(date: $0.3, id: $0.1) }) { type, _, revision, _, body in
            try CaretideJSON.parse(Array(body.utf8)).merging([
                "kind": .string(String(type.split(separator: ":").last ?? "")), "revision": .number(Double(revision)),
            ])
        }
    }
}
