import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import Hummingbird

/// `POST /v1/rankings`: diseases ranked for a set of phenotypes (body: `Schemas/api/ranking.request.schema.json`).
/// The answer has the shape of the `diagnosis.ranked` event. An empty phenotype list is a 400; with no ontology, or
/// only a minimum update, the answer is a 503 saying which update is needed; a query whose every term was dropped
/// (unknown, obsolete without replacement, not a phenotype) is a 422.
struct RankingRoutes: Sendable {
    let catalog: ReleaseCatalog

    struct Body: Decodable {
        let phenotypes: [String]
        let excluded: [String]?
        let scoring: PhenotypeScoring?
        let maxResults: Int?
        let suggestPhenotypes: Bool?
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/rankings", access: .clinicalTools, summary: "Rank diseases by the Phenomizer method with p-values", body: [.ranking],
            bodyLimit: 64 * 1024
        ) { request, context in
            let body = try await request.decodedJSON(Body.self, schema: .ranking, context: context)
            let query = RankingQuery(
                phenotypes: body.phenotypes, excluded: body.excluded, scoring: body.scoring, maxResults: body.maxResults,
                suggestPhenotypes: body.suggestPhenotypes)
            return try Self.response(catalog.rank(query, requestID: UUID().uuidString.lowercased()))
        }
    }

    static func response(_ outcome: RankingOutcome) throws -> Response {
        switch outcome {
        case .ranked(let ranked):
            return try jsonResponse(ranked)
        case .refused(let refused):
            let status: HTTPResponse.Status = refused.reason == .noUsableQueryTerms ? .unprocessableContent : .serviceUnavailable
            throw HTTPProblem(
                status: status, error: refused.message,
                violations: refused.reason == .noUsableQueryTerms
                    ? [
                        SchemaViolation(
                            pointer: JSONPointer(tokens: ["phenotypes"]), message: "no term is a current phenotype of the serving release")
                    ]
                    : [])
        }
    }
}
