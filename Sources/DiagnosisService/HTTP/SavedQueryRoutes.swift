import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import PostgresNIO

/// A doctor's saved phenotype queries (body: `Schemas/api/saved-query.request.schema.json`):
/// - `POST /v1/doctors/{doctorId}/saved-queries`: save under a name, unique per doctor; a name already used is a
///   409 unless `overwrite` is true, which replaces that query (same id);
/// - `GET …/saved-queries` lists them by name; `GET …/saved-queries/{queryId}` loads one;
/// - `PUT …/saved-queries/{queryId}` edits one (renaming onto another query's name is a 409 unless `overwrite`);
/// - `DELETE …/saved-queries/{queryId}` deletes one;
/// - `POST …/saved-queries/{queryId}/ranking` ranks it with the serving release.
/// An empty phenotype list is refused by the schema (400).
struct SavedQueryRoutes: Sendable {
    let context: ServiceContext
    let catalog: ReleaseCatalog

    struct Body: Decodable {
        let name: String
        let phenotypes: [String]
        let excluded: [String]?
        let scoring: PhenotypeScoring?
        let overwrite: Bool?
    }

    struct SavedQuery: Encodable {
        let queryId: UUID
        let name: String
        let phenotypes: [String]
        let excluded: [String]
        let scoring: String
        let createdAt: Date
        let updatedAt: Date
    }

    private typealias Row = (UUID, String, [String], [String], String, Date, Date)
    private static let columns = "query_id, name, phenotypes, excluded, scoring, created_at, updated_at"

    private static func savedQuery(_ row: Row) -> SavedQuery {
        SavedQuery(queryId: row.0, name: row.1, phenotypes: row.2, excluded: row.3, scoring: row.4, createdAt: row.5, updatedAt: row.6)
    }

    private static let nameTaken = HTTPProblem(
        status: .conflict, error: "this doctor already has a saved query with this name; set overwrite to replace it",
        violations: [SchemaViolation(pointer: JSONPointer(tokens: ["name"]), message: "is already used")])
    private static let notFound = HTTPProblem(status: .notFound, error: "this doctor has no saved query with this id")

    func register(on routes: APIRoutes) {
        let base = "v1/doctors/:doctorId/saved-queries"

        routes.post(
            base, access: .consultantWorkspace, summary: "Save a named phenotype query (409 for a name in use unless overwrite)",
            body: ["saved-query.request"], bodyLimit: 64 * 1024
        ) { request, requestContext in
            let doctorID = try Self.doctorID(requestContext)
            let body = try await request.decodedJSON(Body.self, schema: "saved-query.request", context: requestContext)
            let scoring = (body.scoring ?? .asymmetric).rawValue
            let excluded = body.excluded ?? []
            let (row, created): (Row, Bool) = try await context.transaction { handler in
                let inserted = try await handler.connection.fetchAll(
                    """
                    INSERT INTO saved_queries (query_id, doctor_id, name, phenotypes, excluded, scoring)
                    VALUES (\(UUID.timeOrdered()), \(doctorID), \(body.name), \(body.phenotypes), \(excluded), \(scoring))
                    ON CONFLICT (doctor_id, name) DO NOTHING RETURNING \(unescaped: Self.columns)
                    """, as: Row.self, logger: handler.logger)
                if let row = inserted.first { return (row, true) }
                guard body.overwrite == true else { throw Self.nameTaken }
                let replaced = try await handler.connection.fetchAll(
                    """
                    UPDATE saved_queries SET phenotypes = \(body.phenotypes), excluded = \(excluded), scoring = \(scoring), updated_at = now()
                    WHERE doctor_id = \(doctorID) AND name = \(body.name) RETURNING \(unescaped: Self.columns)
                    """, as: Row.self, logger: handler.logger)
                return (replaced[0], false)
            }
            return try jsonResponse(Self.savedQuery(row), status: created ? .created : .ok)
        }

        routes.get(base, access: .consultantWorkspace, summary: "The doctor's saved queries, by name", paged: true) { request, requestContext in
            let doctorID = try Self.doctorID(requestContext)
            let page = try PageRequest.from(request)
            let after = page.after
            guard after == nil || after?.uuid != nil else { throw PageRequest.badCursor }
            let rows = try await context.database.client.fetchAll(
                """
                SELECT \(unescaped: Self.columns) FROM saved_queries
                WHERE doctor_id = \(doctorID) AND (\(after == nil) OR (name, query_id) > (\(after?.position ?? ""), \(after?.uuid ?? UUID())))
                ORDER BY name, query_id LIMIT \(page.limit + 1)
                """, as: Row.self, logger: context.logger)
            return try jsonResponse(Page(rows: rows.map(Self.savedQuery), request: page) {
                PageRequest.Cursor(position: $0.name, id: $0.queryId.uuidString.lowercased())
            })
        }

        routes.get(base + "/:queryId", access: .consultantWorkspace, summary: "A saved query") { _, requestContext in
            try jsonResponse(Self.savedQuery(try await load(requestContext)))
        }

        routes.put(
            base + "/:queryId", access: .consultantWorkspace, summary: "Edit a saved query", body: ["saved-query.request"], bodyLimit: 64 * 1024
        ) { request, requestContext in
            let (doctorID, queryID) = try Self.identifiers(requestContext)
            let body = try await request.decodedJSON(Body.self, schema: "saved-query.request", context: requestContext)
            let row: Row = try await context.transaction { handler in
                let clash = try await handler.connection.fetchAll(
                    "SELECT query_id FROM saved_queries WHERE doctor_id = \(doctorID) AND name = \(body.name) AND query_id <> \(queryID) FOR UPDATE",
                    as: UUID.self, logger: handler.logger)
                if let other = clash.first {
                    guard body.overwrite == true else { throw Self.nameTaken }
                    try await handler.connection.query("DELETE FROM saved_queries WHERE query_id = \(other)", logger: handler.logger)
                }
                let updated = try await handler.connection.fetchAll(
                    """
                    UPDATE saved_queries SET name = \(body.name), phenotypes = \(body.phenotypes), excluded = \(body.excluded ?? []),
                        scoring = \((body.scoring ?? .asymmetric).rawValue), updated_at = now()
                    WHERE doctor_id = \(doctorID) AND query_id = \(queryID) RETURNING \(unescaped: Self.columns)
                    """, as: Row.self, logger: handler.logger)
                guard let row = updated.first else { throw Self.notFound }
                return row
            }
            return try jsonResponse(Self.savedQuery(row))
        }

        routes.delete(base + "/:queryId", access: .consultantWorkspace, summary: "Delete a saved query") { _, requestContext in
            let (doctorID, queryID) = try Self.identifiers(requestContext)
            let deleted = try await context.database.client.fetchAll(
                "DELETE FROM saved_queries WHERE doctor_id = \(doctorID) AND query_id = \(queryID) RETURNING 1",
                as: Int.self, logger: context.logger)
            guard !deleted.isEmpty else { throw Self.notFound }
            return Response(status: .noContent)
        }

        routes.post(
            base + "/:queryId/ranking", access: .consultantWorkspace, summary: "Rank diseases for a saved query", body: [], bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let saved = Self.savedQuery(try await load(requestContext))
            let query = RankingQuery(
                phenotypes: saved.phenotypes, excluded: saved.excluded, scoring: PhenotypeScoring(rawValue: saved.scoring))
            return try RankingRoutes.response(catalog.rank(query, requestID: UUID().uuidString.lowercased()))
        }
    }

    private func load(_ requestContext: CaretideRequestContext) async throws -> Row {
        let (doctorID, queryID) = try Self.identifiers(requestContext)
        let rows = try await context.database.client.fetchAll(
            "SELECT \(unescaped: Self.columns) FROM saved_queries WHERE doctor_id = \(doctorID) AND query_id = \(queryID)",
            as: Row.self, logger: context.logger)
        guard let row = rows.first else { throw Self.notFound }
        return row
    }

    private static func doctorID(_ context: CaretideRequestContext) throws -> String {
        try PatientID.fromPath(context, parameter: "doctorId", label: "doctor id")
    }

    private static func identifiers(_ context: CaretideRequestContext) throws -> (String, UUID) {
        (try doctorID(context), try context.uuidParameter("queryId", label: "saved query id"))
    }
}
