import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import Foundation
import Hummingbird
import PhenotypeRanking

/// Browsing and search over the serving release:
/// - `GET /v1/phenotypes?q=…&limit=…`: phenotypes by name, synonym or HPO id (exact id, name, name prefix, word
///   prefixes, synonym, id prefix — best first);
/// - `GET /v1/phenotypes/{termId}`: one term with its synonyms, parents and children (browsing the hierarchy from
///   `HP:0000118`); obsolete and alternative ids answer the term they map to;
/// - `GET /v1/diseases?q=…`: diseases by name or id (`OMIM:154700`, or the bare accession);
/// - `GET /v1/diseases/{diseaseId}/phenotypes`: a disease's phenotypes as its own source gives them (not those pooled
///   from the same disease's entry in another source), most informative first (to pick a query from a known disease).
/// With no ontology loaded, searches answer an empty list and a message saying an update is needed.
struct SearchRoutes: Sendable {
    let catalog: ReleaseCatalog

    struct SearchAnswer<Hit: Encodable>: Encodable {
        let release: OntologyReleaseReference?
        let results: [Hit]
        /// Set when results are empty because data is missing, saying which update is needed.
        let message: String?
    }

    struct PhenotypeHit: Encodable {
        let id: String
        let name: String
        let match: String
        let matchedText: String
    }

    struct DiseaseHit: Encodable {
        let id: String
        let name: String
        let match: String
    }

    struct TermDetail: Encodable {
        let release: OntologyReleaseReference
        let id: String
        let name: String
        /// Set when the requested id was obsolete or an alternative id.
        let requestedId: String?
        let synonyms: [Synonym]
        let parents: [PhenotypeTermReference]
        let children: [PhenotypeTermReference]
        /// −ln(fraction of diseases annotated with the term or a descendant); absent without annotations.
        let informationContent: Double?
        let diseaseCount: Int?

        struct Synonym: Encodable {
            let text: String
            let scope: String
        }
    }

    struct DiseasePhenotypes: Encodable {
        let release: OntologyReleaseReference
        let disease: PhenotypeTermReference
        let phenotypes: [Phenotype]

        struct Phenotype: Encodable {
            let id: String
            let name: String
            let informationContent: Double
        }
    }

    static let noOntology = "no ontology is loaded; an ontology update is needed (caretide hpo import, or an ontology-update.requested event)"
    static let noAnnotations = "only the ontology is loaded (minimum update); disease search needs a full update"

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/phenotypes", access: .referenceData,
            summary:
                "Search phenotypes by id, name, synonym or prefix, best first (q); without q, every phenotype by name, paged (limit, cursor), as a Features tab lists them",
            query: [
                .init("q", "the search text (1 to 200 characters); without it the phenotypes are listed by name"),
                .init("limit", "searching: at most this many results (1 to 100; default 20); listing: a page's size (1 to 500; default 50)"),
                .init("cursor", "listing: the nextCursor of the page before"),
            ]
        ) { request, _ in
            guard request.uri.queryParameters.get("q") != nil else { return try Self.phenotypeList(request, release: catalog.release) }
            let (query, limit) = try Self.searchParameters(request)
            guard let release = catalog.release else {
                return try jsonResponse(SearchAnswer<PhenotypeHit>(release: nil, results: [], message: Self.noOntology))
            }
            let hits = release.search.searchPhenotypes(query, limit: limit).map {
                PhenotypeHit(id: $0.term.id, name: $0.term.name, match: $0.kind.name, matchedText: $0.matchedText)
            }
            return try jsonResponse(SearchAnswer(release: release.reference, results: hits, message: nil))
        }

        routes.get("v1/phenotypes/:termId", access: .referenceData, summary: "A phenotype term with synonyms, parents and children") {
            _, context in
            guard let release = catalog.release else { throw HTTPProblem(status: .notFound, error: Self.noOntology) }
            let requested = context.parameters.get("termId") ?? ""
            guard let term = release.ontology.resolve(requested).term else {
                throw HTTPProblem(status: .notFound, error: "no current phenotype has this id")
            }
            let ontology = release.ontology
            let reference = { (t: TermIndex) in PhenotypeTermReference(id: ontology.id(of: t), name: ontology.name(of: t)) }
            let kb = release.knowledgeBase
            return try jsonResponse(
                TermDetail(
                    release: release.reference, id: ontology.id(of: term), name: ontology.name(of: term),
                    requestedId: ontology.id(of: term) == requested ? nil : requested,
                    synonyms: ontology.termSynonyms[Int(term.rawValue)].map { TermDetail.Synonym(text: $0.text, scope: $0.scope.rawValue) },
                    parents: ontology.parents(of: term).map(reference), children: ontology.children(of: term).map(reference),
                    informationContent: kb?.informationContent(of: term), diseaseCount: kb.map { Int($0.diseaseCountByTerm[Int(term.rawValue)]) }))
        }

        routes.get(
            "v1/diseases", access: .referenceData,
            summary: "Search diseases by name or id (q); without q, every disease by name, paged (limit, cursor), as a Diseases tab lists them",
            query: [
                .init("q", "the search text (1 to 200 characters); without it the diseases are listed by name"),
                .init("limit", "searching: at most this many results (1 to 100; default 20); listing: a page's size (1 to 500; default 50)"),
                .init("cursor", "listing: the nextCursor of the page before"),
            ]
        ) { request, _ in
            guard request.uri.queryParameters.get("q") != nil else { return try Self.diseaseList(request, release: catalog.release) }
            let (query, limit) = try Self.searchParameters(request)
            guard let release = catalog.release else {
                return try jsonResponse(SearchAnswer<DiseaseHit>(release: nil, results: [], message: Self.noOntology))
            }
            guard release.knowledgeBase != nil else {
                return try jsonResponse(SearchAnswer<DiseaseHit>(release: release.reference, results: [], message: Self.noAnnotations))
            }
            let hits = release.search.searchDiseases(query, limit: limit).map {
                DiseaseHit(id: $0.diseaseID, name: $0.diseaseName, match: $0.kind.name)
            }
            return try jsonResponse(SearchAnswer(release: release.reference, results: hits, message: nil))
        }

        routes.get(
            "v1/diseases/:diseaseId/phenotypes", access: .referenceData,
            summary: "A disease's phenotypes as its source gives them, most informative first"
        ) { _, context in
            guard let release = catalog.release else { throw HTTPProblem(status: .notFound, error: Self.noOntology) }
            guard let kb = release.knowledgeBase else { throw HTTPProblem(status: .notFound, error: Self.noAnnotations) }
            let id = context.parameters.get("diseaseId") ?? ""
            guard let index = kb.diseaseIndex(of: id), let phenotypes = kb.phenotypes(ofDisease: id) else {
                throw HTTPProblem(status: .notFound, error: "no disease has this id in the serving release")
            }
            return try jsonResponse(
                DiseasePhenotypes(
                    release: release.reference, disease: PhenotypeTermReference(id: id, name: kb.diseaseNames[index]),
                    phenotypes: phenotypes.map { .init(id: $0.term.id, name: $0.term.name, informationContent: $0.informationContent) }))
        }
    }

    /// `q` (required, 1–200 characters) and `limit` (1–100, default 20), or a 400 naming each bad parameter.
    /// A page of the serving release's diseases by name: `{"release", "items": [{"id", "name"}], "nextCursor"}`;
    /// empty, with the reason, while no release with annotations is loaded.
    static func diseaseList(_ request: Request, release: ServingRelease?) throws -> Response {
        let page = try PageRequest.from(request)
        guard let release, let kb = release.knowledgeBase else {
            return try jsonResponse(
                ReferenceListPage(
                    release: release?.reference, items: [], nextCursor: nil, message: release == nil ? Self.noOntology : Self.noAnnotations))
        }
        let order = release.diseasesByName
        return try listPage(
            page, order: order, release: release.reference, position: { id in kb.diseaseIndex(of: id).flatMap { order.firstIndex(of: $0) } },
            item: { ReferenceListItem(id: kb.diseaseIDs[$0], name: kb.diseaseNames[$0]) })
    }

    /// Every phenotype by name, a page at a time (the Features list); an empty page saying why without an ontology.
    static func phenotypeList(_ request: Request, release: ServingRelease?) throws -> Response {
        let page = try PageRequest.from(request)
        guard let release else {
            return try jsonResponse(ReferenceListPage(release: nil, items: [], nextCursor: nil, message: Self.noOntology))
        }
        let order = release.phenotypesByName
        let ontology = release.ontology
        return try listPage(
            page, order: order, release: release.reference, position: { id in ontology.resolve(id).term.flatMap { order.firstIndex(of: $0) } },
            item: { ReferenceListItem(id: ontology.id(of: $0), name: ontology.name(of: $0)) })
    }

    /// The page of `order` after the entry the cursor names, found by `position`: the cursor names the last entry shown,
    /// and one this release does not have is a cursor of another release (400).
    private static func listPage<Entry>(
        _ page: PageRequest, order: [Entry], release: OntologyReleaseReference, position: (String) -> Int?,
        item: (Entry) -> ReferenceListItem
    ) throws -> Response {
        guard let shown = pageRange(after: page.after?.id, limit: page.limit, count: order.count, position: position) else {
            throw PageRequest.badCursor
        }
        let items = order[shown].map(item)
        let next = shown.upperBound < order.count ? items.last.map { PageRequest.Cursor(position: "", id: $0.id).encoded } : nil
        return try jsonResponse(ReferenceListPage(release: release, items: items, nextCursor: next, message: nil))
    }

    /// The positions in a list of `count` entries that a page of `limit` shows: from the start, or after the entry
    /// named `after` (found by `position`); nil when this list has no such entry (a cursor of another release). A
    /// next page exists while the range ends before `count`.
    static func pageRange(after: String?, limit: Int, count: Int, position: (String) -> Int?) -> Range<Int>? {
        var start = 0
        if let after {
            guard let at = position(after) else { return nil }
            start = at + 1
        }
        return min(start, count)..<min(start + limit, count)
    }

    struct ReferenceListItem: Encodable {
        let id: String
        let name: String
    }

    struct ReferenceListPage: Encodable {
        let release: OntologyReleaseReference?
        let items: [ReferenceListItem]
        let nextCursor: String?
        let message: String?
    }

    static func searchParameters(_ request: Request) throws -> (String, Int) {
        let read = readSearchParameters(query: request.uri.queryParameters.get("q"), limit: request.uri.queryParameters.get("limit"))
        guard read.violations.isEmpty else {
            throw HTTPProblem(status: .badRequest, error: "the search parameters are invalid", violations: read.violations)
        }
        return (read.query, read.limit)
    }

    /// `searchParameters` on the query's texts: the search text, the limit (20 unless a valid one is given) and a
    /// violation for each bad parameter, by pointer; the route answers a 400 when there is any.
    static func readSearchParameters(query text: String?, limit limitText: String?) -> (query: String, limit: Int, violations: [SchemaViolation]) {
        var violations: [SchemaViolation] = []
        let query = text ?? ""
        if query.trimmingCharacters(in: .whitespaces).isEmpty || query.count > 200 {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["q"]), message: "must be 1 to 200 characters"))
        }
        var limit = 20
        if let limitText {
            if let value = Int(limitText), (1...100).contains(value) {
                limit = value
            } else {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["limit"]), message: "must be an integer from 1 to 100"))
            }
        }
        return (query, limit, violations.sorted { $0.pointer < $1.pointer })
    }
}

extension SearchMatchKind {
    var name: String {
        switch self {
        case .exactID: "exactId"
        case .exactName: "exactName"
        case .namePrefix: "namePrefix"
        case .wordPrefix: "wordPrefix"
        case .synonym: "synonym"
        case .idPrefix: "idPrefix"
        }
    }
}
