import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of diagnosis-service's `ontology_update_requests` table: who asked for an update check, and what an
/// operator decided. An approved request's import is the release carrying its `update_id` (`releases.update_id`).
struct UpdateRequestStore: ServiceStore {
    let session: StoreSession

    struct Row: Sendable {
        let requestID: UUID
        let requestedBy: String
        let requestedAt: Date
        let status: String
        let decidedBy: String?
        let decidedAt: Date?
        let updateID: String?
        /// The release the approved import made, once it is in.
        let importedReleaseID: Int?
    }

    private typealias Columns = (UUID, String, Date, String, String?, Date?, String?, Int?)
    private static let select = """
        SELECT r.request_id, r.requested_by, r.requested_at, r.status, r.decided_by, r.decided_at, r.update_id, rel.release_id
        FROM ontology_update_requests r LEFT JOIN releases rel ON rel.update_id = r.update_id
        """

    private static func row(_ c: Columns) -> Row {
        Row(requestID: c.0, requestedBy: c.1, requestedAt: c.2, status: c.3, decidedBy: c.4, decidedAt: c.5, updateID: c.6, importedReleaseID: c.7)
    }

    func insert(requestedBy: String) async throws -> Row {
        let id = UUID.timeOrdered()
        try await session.query(
            "INSERT INTO ontology_update_requests (request_id, requested_by, status) VALUES (\(id), \(requestedBy), 'pending')")
        return try await load(id)!
    }

    func load(_ id: UUID) async throws -> Row? {
        try await session.fetchAll("\(unescaped: Self.select) WHERE r.request_id = \(id)", as: Columns.self).first.map(Self.row)
    }

    /// Newest first, at most `limit`: every request, or one consultant's.
    func list(requestedBy: String?, limit: Int) async throws -> [Row] {
        try await session.fetchAll(
            """
            \(unescaped: Self.select) WHERE \(requestedBy)::text IS NULL OR r.requested_by = \(requestedBy)
            ORDER BY r.requested_at DESC, r.request_id DESC LIMIT \(limit)
            """, as: Columns.self
        ).map(Self.row)
    }

    /// Decides a pending request; nil when it is not pending (decided already, or unknown).
    func decide(
        _ id: UUID, status: String, by operatorID: String, updateID: String?
    ) async throws -> Bool {
        let updated = try await session.fetchAll(
            """
            UPDATE ontology_update_requests SET status = \(status), decided_by = \(operatorID), decided_at = now(), update_id = \(updateID)
            WHERE request_id = \(id) AND status = 'pending' RETURNING request_id
            """, as: UUID.self)
        return !updated.isEmpty
    }
}
