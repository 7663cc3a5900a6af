import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of diagnosis-service's `saved_queries` table: a doctor's named phenotype queries, names unique per doctor.
struct SavedQueryStore: ServiceStore {
    let session: StoreSession

    /// A saved query as the API shows it.
    struct SavedQuery: Encodable, Sendable {
        let queryId: UUID
        let name: String
        let phenotypes: [String]
        let excluded: [String]
        let scoring: String
        let createdAt: Date
        let updatedAt: Date
    }

    /// What a doctor saves.
    struct Content: Sendable {
        let name: String
        let phenotypes: [String]
        let excluded: [String]
        let scoring: PhenotypeScoring
    }

    enum Refusal: Error {
        /// The doctor uses the name for another query, and replacing it was not asked for.
        case nameTaken
        case notFound
    }

    private typealias Row = (UUID, String, [String], [String], String, Date, Date)
    private static let columns = "query_id, name, phenotypes, excluded, scoring, created_at, updated_at"

    private static func savedQuery(_ row: Row) -> SavedQuery {
        SavedQuery(queryId: row.0, name: row.1, phenotypes: row.2, excluded: row.3, scoring: row.4, createdAt: row.5, updatedAt: row.6)
    }

    /// Saves under a new name, or replaces the query of that name when `overwrite`; true when a query was created. In a
    /// transaction: the insert and the replacement are one change.
    func save(_ content: Content, doctorID: String, overwrite: Bool) async throws -> (SavedQuery, created: Bool) {
        let inserted = try await session.fetchAll(
            """
            INSERT INTO saved_queries (query_id, doctor_id, name, phenotypes, excluded, scoring)
            VALUES (\(UUID.timeOrdered()), \(doctorID), \(content.name), \(content.phenotypes), \(content.excluded), \(content.scoring.rawValue))
            ON CONFLICT (doctor_id, name) DO NOTHING RETURNING \(unescaped: Self.columns)
            """, as: Row.self)
        if let row = inserted.first { return (Self.savedQuery(row), true) }
        guard overwrite else { throw Refusal.nameTaken }
        let replaced = try await session.fetchAll(
            """
            UPDATE saved_queries SET phenotypes = \(content.phenotypes), excluded = \(content.excluded), scoring = \(content.scoring.rawValue),
                updated_at = now()
            WHERE doctor_id = \(doctorID) AND name = \(content.name) RETURNING \(unescaped: Self.columns)
            """, as: Row.self)
        return (Self.savedQuery(replaced[0]), false)
    }

    /// Edits a query; renaming onto another query's name replaces that one only when `overwrite`. In a transaction.
    func edit(_ queryID: UUID, doctorID: String, to content: Content, overwrite: Bool) async throws -> SavedQuery {
        let clash = try await session.fetchAll(
            "SELECT query_id FROM saved_queries WHERE doctor_id = \(doctorID) AND name = \(content.name) AND query_id <> \(queryID) FOR UPDATE",
            as: UUID.self)
        if let other = clash.first {
            guard overwrite else { throw Refusal.nameTaken }
            try await session.query("DELETE FROM saved_queries WHERE query_id = \(other)")
        }
        let updated = try await session.fetchAll(
            """
            UPDATE saved_queries SET name = \(content.name), phenotypes = \(content.phenotypes), excluded = \(content.excluded),
                scoring = \(content.scoring.rawValue), updated_at = now()
            WHERE doctor_id = \(doctorID) AND query_id = \(queryID) RETURNING \(unescaped: Self.columns)
            """, as: Row.self)
        guard let row = updated.first else { throw Refusal.notFound }
        return Self.savedQuery(row)
    }

    /// A page of the doctor's queries, by name.
    func list(doctorID: String, page: PageRequest) async throws -> Page<SavedQuery> {
        let after = page.after
        guard after == nil || after?.uuid != nil else { throw PageRequest.badCursor }
        let rows = try await session.fetchAll(
            """
            SELECT \(unescaped: Self.columns) FROM saved_queries
            WHERE doctor_id = \(doctorID) AND (\(after == nil) OR (name, query_id) > (\(after?.position ?? ""), \(after?.uuid ?? UUID())))
            ORDER BY name, query_id LIMIT \(page.limit + 1)
            """, as: Row.self)
        return Page(rows: rows.map(Self.savedQuery), request: page) { PageRequest.Cursor(position: $0.name, id: $0.queryId.uuidString.lowercased()) }
    }

    func load(_ queryID: UUID, doctorID: String) async throws -> SavedQuery {
        let rows = try await session.fetchAll(
            "SELECT \(unescaped: Self.columns) FROM saved_queries WHERE doctor_id = \(doctorID) AND query_id = \(queryID)",
            as: Row.self)
        guard let row = rows.first else { throw Refusal.notFound }
        return Self.savedQuery(row)
    }

    func delete(_ queryID: UUID, doctorID: String) async throws {
        let deleted = try await session.fetchAll(
            "DELETE FROM saved_queries WHERE doctor_id = \(doctorID) AND query_id = \(queryID) RETURNING 1", as: Int.self)
        guard !deleted.isEmpty else { throw Refusal.notFound }
    }
}
