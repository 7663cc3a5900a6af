import CaretideRuntime
import CaretideSchemas
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
        try await !connection.fetchAll(
            """
            INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id)
            VALUES (\(type), \(id), \(patientID), 1, \(bodyText)::jsonb, \(observedAt), \(eventID))
            ON CONFLICT (record_type, record_id) DO NOTHING RETURNING 1
            """, as: Int.self, logger: logger
        ).isEmpty
    }

    /// The record, locked for the rest of the transaction; nil when there is none.
    func locked(type: String, id: String) async throws -> Existing? {
        let rows = try await connection.fetchAll(
            """
            SELECT patient_id, revision, body::text, deleted_at, last_event_id FROM records
            WHERE record_type = \(type) AND record_id = \(id) FOR UPDATE
            """, as: (String, Int, String, Date?, UUID).self, logger: logger)
        guard let row = rows.first else { return nil }
        return Existing(patientID: row.0, revision: row.1, body: row.2, deletedAt: row.3, lastEventID: row.4)
    }

    func revise(type: String, id: String, revision: Int, bodyText: String, observedAt: Date, eventID: UUID) async throws {
        try await connection.query(
            """
            UPDATE records SET revision = \(revision), body = \(bodyText)::jsonb, observed_at = \(observedAt),
                last_event_id = \(eventID), updated_at = now()
            WHERE record_type = \(type) AND record_id = \(id)
            """, logger: logger)
    }

    func markDeleted(type: String, id: String, eventID: UUID) async throws {
        try await connection.query(
            """
            UPDATE records SET deleted_at = now(), last_event_id = \(eventID), updated_at = now()
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
