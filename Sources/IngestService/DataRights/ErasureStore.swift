import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Logging
import PostgresNIO

/// The SQL of erasure requests: one per patient (an erased id is retired for good), the confirmations of the services,
/// and the mark on the patient's change counter that refuses every later write (`ChangeFeedStore`).
struct ErasureStore: ServiceStore {
    let session: StoreSession

    /// Records the patient's erasure request, or finds the one made before; `created` says which. Marks the patient's
    /// change counter erased in the same transaction, so no write of theirs commits after the request.
    func request(patientID: String, by requester: ErasureRequester, at requestedAt: Date) async throws -> (ErasureProgress, created: Bool) {
        try await session.query(
            """
            INSERT INTO patient_changes AS counter (patient_id, last_seq, erased_at) VALUES (\(patientID), 0, \(requestedAt))
            ON CONFLICT (patient_id) DO UPDATE SET erased_at = coalesce(counter.erased_at, excluded.erased_at)
            """)
        let created = try await !session.fetchAll(
            """
            INSERT INTO patient_erasures (erasure_id, patient_id, requested_by, requested_at)
            VALUES (\(UUID()), \(patientID), \(requester.rawValue), \(requestedAt))
            ON CONFLICT (patient_id) DO NOTHING RETURNING 1
            """, as: Int.self
        ).isEmpty
        guard let progress = try await progress(patientID: patientID) else {
            throw HTTPProblem(status: .conflict, error: "the erasure request changed concurrently; retry")
        }
        return (progress, created)
    }

    /// Records a service's confirmation; a repeated one changes nothing. The request's completion is read off the
    /// confirmations (`ErasureProgress`), not kept beside them.
    func confirm(_ confirmation: PatientErasureConfirmed) async throws {
        try await session.query(
            """
            INSERT INTO patient_erasure_confirmations (erasure_id, service, erased_at)
            SELECT erasure_id, \(confirmation.service), \(confirmation.erasedAt) FROM patient_erasures WHERE erasure_id = \(confirmation.erasureID)
            ON CONFLICT (erasure_id, service) DO NOTHING
            """)
    }

    /// Refuses (410) a write for a patient whose data was erased (their id retired).
    func refuseIfErased(patientID: String) async throws {
        let erased = try await !session.fetchAll(
            "SELECT 1 FROM patient_changes WHERE patient_id = \(patientID) AND erased_at IS NOT NULL", as: Int.self
        ).isEmpty
        if erased { throw HTTPProblem.patientErased }
    }

    /// The patient's erasure request and how far it went; nil when none was made.
    func progress(patientID: String) async throws -> ErasureProgress? {
        Self.progress(patientID: patientID, rows: try await session.fetchAll(Self.progressQuery(patientID), as: ProgressRow.self))
    }

    private typealias ProgressRow = (UUID, String, Date, String?, Date?)

    private static func progressQuery(_ patientID: String) -> PostgresQuery {
        """
        SELECT e.erasure_id, e.requested_by, e.requested_at, c.service, c.erased_at
        FROM patient_erasures e LEFT JOIN patient_erasure_confirmations c USING (erasure_id)
        WHERE e.patient_id = \(patientID)
        """
    }

    private static func progress(patientID: String, rows: [ProgressRow]) -> ErasureProgress? {
        guard let first = rows.first else { return nil }
        var confirmations: [String: Date] = [:]
        for row in rows { if let service = row.3, let erasedAt = row.4 { confirmations[service] = erasedAt } }
        return ErasureProgress(
            erasureID: first.0, patientID: patientID, requestedBy: ErasureRequester(rawValue: first.1) ?? .patient, requestedAt: first.2,
            confirmations: confirmations)
    }
}
