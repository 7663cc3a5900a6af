import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// A doctor's saved phenotype queries (body: `Schemas/api/saved-query.request.schema.json`):
/// - `POST /v1/doctors/{doctorId}/saved-queries`: save under a name, unique per doctor; a name already used is a
///   409 unless `overwrite` is true, which replaces that query (same id);
/// - `GET …/saved-queries` lists them by name; `GET …/saved-queries/{queryId}` loads one;
/// - `PUT …/saved-queries/{queryId}` edits one (renaming onto another query's name is a 409 unless `overwrite`);
/// - `DELETE …/saved-queries/{queryId}` deletes one;
/// - `POST …/saved-queries/{queryId}/ranking` ranks it with the serving release.
/// A query with no phenotypes is saved (begun before any is known); ranking it is a 400 naming `/phenotypes`.
struct SavedQueryRoutes: Sendable {
    let context: ServiceContext
    let catalog: ReleaseCatalog

    struct Body: SchemaBody {
        static let schema: RequestSchema = .savedQuery
        let name: String
        let phenotypes: [String]
        let excluded: [String]?
        let scoring: PhenotypeScoring?
        let overwrite: Bool?

        var content: SavedQueryStore.Content {
            SavedQueryStore.Content(name: name, phenotypes: phenotypes, excluded: excluded ?? [], scoring: scoring ?? .asymmetric)
        }
    }

    private static let nameTaken = HTTPProblem(
        status: .conflict, error: "this doctor already has a saved query with this name; set overwrite to replace it",
        violations: [SchemaViolation(pointer: JSONPointer(tokens: ["name"]), message: "is already used")])
    private static let notFound = HTTPProblem(status: .notFound, error: "this doctor has no saved query with this id")

    func register(on routes: APIRoutes) {
        let base = "v1/doctors/:doctorId/saved-queries"
        let store = SavedQueryStore(context)

        routes.post(
            base, access: .consultantWorkspace, summary: "Save a named phenotype query (409 for a name in use unless overwrite)",
            body: [.savedQuery], bodyLimit: 64 * 1024
        ) { request, requestContext in
            let doctorID = try Self.doctorID(requestContext)
            let body = try await request.decode(as: Body.self, context: requestContext)
            let (saved, created) = try await Self.answering {
                try await context.transaction { handler in
                    try await SavedQueryStore(handler).save(body.content, doctorID: doctorID, overwrite: body.overwrite == true)
                }
            }
            return try jsonResponse(saved, status: created ? .created : .ok)
        }

        routes.get(base, access: .consultantWorkspace, summary: "The doctor's saved queries, by name", paged: true) { request, requestContext in
            try jsonResponse(try await store.list(doctorID: try Self.doctorID(requestContext), page: PageRequest.from(request)))
        }

        routes.get(base + "/:queryId", access: .consultantWorkspace, summary: "A saved query") { _, requestContext in
            let (doctorID, queryID) = try Self.identifiers(requestContext)
            return try jsonResponse(try await Self.answering { try await store.load(queryID, doctorID: doctorID) })
        }

        routes.put(
            base + "/:queryId", access: .consultantWorkspace, summary: "Edit a saved query", body: [.savedQuery], bodyLimit: 64 * 1024
        ) { request, requestContext in
            let (doctorID, queryID) = try Self.identifiers(requestContext)
            let body = try await request.decode(as: Body.self, context: requestContext)
            return try jsonResponse(
                try await Self.answering {
                    try await context.transaction { handler in
                        try await SavedQueryStore(handler).edit(queryID, doctorID: doctorID, to: body.content, overwrite: body.overwrite == true)
                    }
                })
        }

        routes.delete(base + "/:queryId", access: .consultantWorkspace, summary: "Delete a saved query") { _, requestContext in
            let (doctorID, queryID) = try Self.identifiers(requestContext)
            try await Self.answering { try await store.delete(queryID, doctorID: doctorID) }
            return Response(status: .noContent)
        }

        routes.post(
            base + "/:queryId/ranking", access: .consultantWorkspace, summary: "Rank diseases for a saved query", body: [],
            bodyLimit: APIRoutes.noBody
        ) { _, requestContext in
            let (doctorID, queryID) = try Self.identifiers(requestContext)
            let saved = try await Self.answering { try await store.load(queryID, doctorID: doctorID) }
            guard let query = Self.rankingQuery(saved) else {
                throw HTTPProblem(
                    status: .badRequest, error: "the saved query has no phenotypes to rank: add at least one first",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["phenotypes"]), message: "must hold at least one HPO id")])
            }
            return try RankingRoutes.response(catalog.rank(query, requestID: UUID().uuidString.lowercased()))
        }
    }

    /// The ranking a saved query asks for, with the defaults a ranking request has for what it does not keep; nil
    /// while it has no phenotypes (a query may be saved before any is known: there is nothing to rank until one is
    /// added).
    static func rankingQuery(_ saved: SavedQueryStore.SavedQuery) -> RankingQuery? {
        guard !saved.phenotypes.isEmpty else { return nil }
        return RankingQuery(phenotypes: saved.phenotypes, excluded: saved.excluded, scoring: PhenotypeScoring(rawValue: saved.scoring))
    }

    /// The store's refusals as the API's answers.
    private static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch SavedQueryStore.Refusal.nameTaken {
            throw nameTaken
        } catch SavedQueryStore.Refusal.notFound {
            throw notFound
        }
    }

    private static func doctorID(_ context: CaretideRequestContext) throws -> String {
        try PatientID.fromPath(context, parameter: "doctorId", label: "doctor id")
    }

    private static func identifiers(_ context: CaretideRequestContext) throws -> (String, UUID) {
        (try doctorID(context), try context.uuidParameter("queryId", label: "saved query id"))
    }
}
