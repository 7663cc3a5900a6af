import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL that keeps each diagnosis request and ontology update answered once.
enum AnsweredRequests {
    /// Records the answer to a request inside the event's transaction; false when the request was answered before.
    static func recordFirst(
        requestID: String, eventID: UUID, outcome: String, releaseID: Int?, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await !connection.fetchAll(
            """
            INSERT INTO answered_requests (request_id, event_id, outcome, release_id) VALUES (\(requestID), \(eventID), \(outcome), \(releaseID))
            ON CONFLICT (request_id) DO NOTHING RETURNING 1
            """, as: Int.self, logger: logger
        ).isEmpty
    }

    /// The release an ontology update already imported, if any.
    static func releaseImported(byUpdate updateID: String, on connection: PostgresConnection, logger: Logger) async throws -> Int? {
        try await connection.fetchAll("SELECT release_id FROM releases WHERE update_id = \(updateID)", as: Int.self, logger: logger).first
    }
}
