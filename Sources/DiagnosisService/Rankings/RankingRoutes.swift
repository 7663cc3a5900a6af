import CaretideCharts
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /v1/rankings`: diseases ranked for a set of phenotypes (body: `Schemas/api/ranking.request.schema.json`).
/// The answer has the shape of the `diagnosis.ranked` event. An empty phenotype list is a 400; with no ontology, or
/// only a minimum update, the answer is a 503 saying which update is needed; a query whose every term was dropped
/// (unknown, obsolete without replacement, not a phenotype) is a 422.
struct RankingRoutes: Sendable {
    let catalog: ReleaseCatalog
    let printer: PDFPrinter

    struct Body: SchemaBody {
        static let schema: RequestSchema = .ranking
        let phenotypes: [String]
        let excluded: [String]?
        let method: PhenotypeRankingMethod?
        let scoring: PhenotypeScoring?
        let maxResults: Int?
        let suggestPhenotypes: Bool?
        let sources: [DiseaseSource]?
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/rankings", access: .clinicalTools,
            summary: "Rank diseases by the likelihood ratio of the findings (or the Phenomizer's similarity), with p-values", body: [.ranking],
            bodyLimit: 64 * 1024
        ) { request, context in
            try Self.response(try await rank(request, context))
        }
        // The same ranking to file with the patient's notes: a spreadsheet, or a page to print.
        routes.post(
            "v1/rankings.csv", access: .clinicalTools,
            summary: "The same ranking as CSV: one row per disease and query phenotype, with the release and the method", body: [.ranking],
            bodyLimit: 64 * 1024, mediaType: "text/csv"
        ) { request, context in
            let ranked = try Self.ranked(try await rank(request, context))
            return DocumentResponse.make(
                ByteBuffer(string: RankingExport.csv(ranked)), contentType: "text/csv; charset=utf-8", disposition: .attachment("ranking.csv"))
        }
        routes.post(
            "v1/rankings.html", access: .clinicalTools,
            summary: "The same ranking as a page to print: the query, the release, the method, and each result with its explanation",
            body: [.ranking], bodyLimit: 64 * 1024, mediaType: "text/html"
        ) { request, context in
            let ranked = try Self.ranked(try await rank(request, context))
            return DocumentResponse.make(
                ByteBuffer(string: RankingExport.page(ranked, generatedAt: Date()).html), contentType: "text/html; charset=utf-8", language: "en")
        }
        routes.post(
            "v1/rankings.pdf", access: .clinicalTools,
            summary: "The same page printed to PDF, as the patient reports are (a headless Chromium)", body: [.ranking],
            bodyLimit: 64 * 1024, mediaType: "application/pdf"
        ) { request, context in
            let ranked = try Self.ranked(try await rank(request, context))
            return try await printer.response(
                RankingExport.page(ranked, generatedAt: Date()).html, language: "en", name: "ranking.pdf", htmlRoute: "POST /v1/rankings.html")
        }
    }

    private func rank(_ request: Request, _ context: CaretideRequestContext) async throws -> RankingOutcome {
        let body = try await request.decode(as: Body.self, context: context)
        let query = RankingQuery(
            phenotypes: body.phenotypes, excluded: body.excluded, method: body.method, scoring: body.scoring, maxResults: body.maxResults,
            suggestPhenotypes: body.suggestPhenotypes, sources: body.sources)
        return catalog.rank(query, requestID: UUID().uuidString.lowercased())
    }

    /// The ranking, or the refusal as the JSON answer gives it.
    static func ranked(_ outcome: RankingOutcome) throws -> DiagnosisRanked {
        if case .ranked(let ranked) = outcome { return ranked }
        _ = try response(outcome)
        throw HTTPProblem(status: .internalServerError, error: "the ranking was neither made nor refused")
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
