import CaretideRuntime
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL that keeps each diagnosis request and ontology update answered once.
struct AnsweredRequests: ServiceStore {
    let session: StoreSession

    /// Records the answer to a request inside the event's transaction; false when the request was answered before.
    func recordFirst(
        requestID: String, eventID: UUID, outcome: String, releaseID: Int?
    ) async throws -> Bool {
        try await !session.fetchAll(
            """
            INSERT INTO answered_requests (request_id, event_id, outcome, release_id) VALUES (\(requestID), \(eventID), \(outcome), \(releaseID))
            ON CONFLICT (request_id) DO NOTHING RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// The release an ontology update already imported, if any.
    func releaseImported(byUpdate updateID: String) async throws -> Int? {
        try await session.fetchAll("SELECT release_id FROM releases WHERE update_id = \(updateID)", as: Int.self).first
    }
}
