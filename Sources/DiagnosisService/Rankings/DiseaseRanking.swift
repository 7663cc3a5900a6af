import CaretideSchemas
import PhenotypeRanking

/// A ranking request as HTTP and Kafka both ask it.
struct RankingQuery: Sendable, Equatable {
    var phenotypes: [String]
    var excluded: [String] = []
    var method: PhenotypeRankingMethod = .likelihoodRatio
    var scoring: PhenotypeScoring = .asymmetric
    var maxResults: Int = 20
    var suggestPhenotypes: Bool = false
    var sources: [DiseaseSource] = DiseaseSource.rankedByDefault

    init(
        phenotypes: [String], excluded: [String]? = nil, method: PhenotypeRankingMethod? = nil, scoring: PhenotypeScoring? = nil,
        maxResults: Int? = nil, suggestPhenotypes: Bool? = nil, sources: [DiseaseSource]? = nil
    ) {
        self.method = method ?? .likelihoodRatio
        self.sources = sources ?? DiseaseSource.rankedByDefault
        self.phenotypes = phenotypes
        self.excluded = excluded ?? []
        self.scoring = scoring ?? .asymmetric
        self.maxResults = maxResults ?? 20
        self.suggestPhenotypes = suggestPhenotypes ?? false
    }

    init(_ request: DiagnosisRequested) {
        self.init(
            phenotypes: request.phenotypes, excluded: request.excluded, method: request.method, scoring: request.scoring,
            maxResults: request.maxResults,
            suggestPhenotypes: request.suggestPhenotypes, sources: request.sources)
    }
}

/// The answer to a ranking request: diseases ranked, or a refusal saying why not.
enum RankingOutcome: Sendable {
    case ranked(DiagnosisRanked)
    case refused(DiagnosisRefused)
}

extension ReleaseCatalog {
    /// Ranks diseases with the release serving now, by likelihood ratio unless the query asks for the similarity
    /// (Phenomizer: Köhler et al. 2009; see `PhenotypeRanker`).
    func rank(_ query: RankingQuery, requestID: String) -> RankingOutcome {
        guard let release else {
            return .refused(
                DiagnosisRefused(
                    requestID: requestID, reason: .ontologyNotLoaded,
                    message: "no ontology is loaded; a full update (caretide hpo import) is needed before ranking"))
        }
        guard let ranker = release.ranker else {
            return .refused(
                DiagnosisRefused(
                    requestID: requestID, reason: .fullUpdateNeeded,
                    message:
                        "only the ontology is loaded (minimum update, release \(release.reference.releaseID)); ranking needs a full update with disease annotations"
                ))
        }
        do {
            let options = RankingOptions(
                method: query.method.method, scoring: query.scoring.mode, maxResults: query.maxResults, sources: Set(query.sources.map(\.rawValue)))
            let result = try ranker.rank(terms: query.phenotypes, excluding: query.excluded, options: options)
            let suggestions = query.suggestPhenotypes ? ranker.suggestPhenotypes(after: result).map(PhenotypeSuggestionEntry.init) : nil
            return .ranked(DiagnosisRanked(requestID: requestID, release: release.reference, result: result, suggestions: suggestions))
        } catch {
            // Only the query can be at fault here: the null distributions of a release are built with it.
            return .refused(DiagnosisRefused(requestID: requestID, reason: .noUsableQueryTerms, message: error.description))
        }
    }
}

// MARK: - From the ranking module's types to the wire types

extension PhenotypeRankingMethod {
    init(_ method: RankingMethod) {
        switch method {
        case .likelihoodRatio: self = .likelihoodRatio
        case .similarity: self = .similarity
        }
    }

    var method: RankingMethod {
        switch self {
        case .likelihoodRatio: .likelihoodRatio
        case .similarity: .similarity
        }
    }
}

extension DiseaseLikelihoodRatio {
    init(_ explanation: LikelihoodRatioExplanation) {
        self.init(
            log10Ratio: explanation.log10Ratio, log10PValueFactor: explanation.log10PValueFactor,
            posteriorProbability: explanation.posteriorProbability,
            findings: explanation.findings.map { finding in
                FindingLikelihoodRatio(
                    term: PhenotypeTermReference(finding.term), excluded: finding.excluded, readAt: finding.readAt.map(PhenotypeTermReference.init),
                    share: finding.share, log10Ratio: finding.log10Ratio)
            })
    }
}

extension PhenotypeTermReference {
    init(_ term: TermReference) { self.init(id: term.id, name: term.name) }
}

extension PhenotypeQueryWarning {
    init(_ warning: QueryWarning) {
        let (code, termID): (String, String?) =
            switch warning {
            case .unknownTerm(let id): ("unknownTerm", id)
            case .obsoleteTermReplaced(let id, _): ("obsoleteTermReplaced", id)
            case .alternativeIDMapped(let id, _): ("alternativeIdMapped", id)
            case .obsoleteWithoutReplacement(let id, _): ("obsoleteWithoutReplacement", id)
            case .duplicateTerm(let id): ("duplicateTerm", id)
            case .notPhenotypicAbnormality(let id): ("notPhenotypicAbnormality", id)
            case .excludedTermAlsoQueried(let id): ("excludedTermAlsoQueried", id)
            case .querySizeExceedsNullModel: ("querySizeExceedsNullModel", nil)
            }
        self.init(code: code, termID: termID, message: warning.description)
    }
}

extension PhenotypeSuggestionEntry {
    init(_ suggestion: PhenotypeSuggestion) {
        self.init(
            term: PhenotypeTermReference(suggestion.term), informationContent: suggestion.informationContent,
            splitEntropy: suggestion.splitEntropy, presentIn: suggestion.presentIn, absentIn: suggestion.absentIn)
    }
}

extension DiagnosisRanked {
    init(requestID: String, release: OntologyReleaseReference, result: RankingResult, suggestions: [PhenotypeSuggestionEntry]?) {
        self.init(
            requestID: requestID, release: release, method: PhenotypeRankingMethod(result.method), scoring: PhenotypeScoring(result.scoring),
            queryTerms: result.queryTerms.map(PhenotypeTermReference.init), excludedTerms: result.excludedTerms.map(PhenotypeTermReference.init),
            warnings: result.warnings.map(PhenotypeQueryWarning.init), nullQuerySize: result.nullQuerySize,
            diseaseCount: result.diseaseCount,
            results: result.results.map { disease in
                RankedDiseaseCandidate(
                    rank: disease.rank, diseaseID: disease.diseaseID, diseaseName: disease.diseaseName, pooledWith: disease.pooledWith,
                    score: disease.score,
                    penalty: disease.penalty, pValue: disease.pValue, adjustedPValue: disease.adjustedPValue,
                    matches: disease.matches.map { match in
                        PhenotypeTermMatch(
                            queryTerm: PhenotypeTermReference(match.queryTerm), diseaseTerm: PhenotypeTermReference(match.diseaseTerm),
                            commonAncestor: PhenotypeTermReference(match.commonAncestor), informationContent: match.informationContent)
                    },
                    excludedTermsPresent: disease.excludedTermsPresent.map(PhenotypeTermReference.init),
                    likelihoodRatio: disease.likelihoodRatio.map(DiseaseLikelihoodRatio.init))
            },
            suggestions: suggestions)
    }
}
