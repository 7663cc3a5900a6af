import Foundation

/// How a disease's similarity to a query is scored (Köhler et al. 2009): query → disease only (asymmetric, the
/// paper's choice), or the mean of both directions.
public enum PhenotypeScoring: String, Codable, Sendable, CaseIterable {
    case asymmetric
    case symmetric
}

/// What puts the diseases of a ranking in order: the likelihood ratio of the present and excluded findings (LIRICAL's
/// manner; the default, measured best on published cases), or the Phenomizer's similarity and p-value.
public enum PhenotypeRankingMethod: String, Codable, Sendable, CaseIterable {
    case likelihoodRatio
    case similarity
}

/// Where a disease entry comes from: the prefix of its id. OMIM and Orphanet describe many of the same diseases
/// under different ids, so ranking both lists one disease twice; rankings take OMIM alone unless asked.
public enum DiseaseSource: String, Codable, Sendable, CaseIterable {
    case omim = "OMIM"
    case orpha = "ORPHA"
    case decipher = "DECIPHER"

    /// What a ranking takes when the request names no source.
    public static let rankedByDefault: [DiseaseSource] = [.omim]
}

/// What an ontology update imports: everything (terms, synonyms, is-a graph, diseases, annotations and the null
/// distributions of the p-values), or only terms and the graph.
public enum OntologyUpdateKind: String, Codable, Sendable, CaseIterable {
    case full
    case minimum
}

/// A pipeline asks diagnosis-service to rank diseases for a patient's phenotypes (`caretide.diagnosis-requests`).
/// The answer, `diagnosis.ranked` or `diagnosis.refused`, carries the same `requestId` on `caretide.diagnosis-results`.
public struct DiagnosisRequested: EventPayload {
    public static let eventType = EventType.diagnosisRequested

    /// Chosen by the requester; answers are correlated by it and a repeated request id is answered once.
    public var requestID: String
    /// HPO ids (`HP:0001250`) of the phenotypes observed.
    public var phenotypes: [String]
    /// HPO ids of phenotypes the doctor checked and found absent.
    public var excluded: [String]?
    /// `likelihoodRatio` when absent.
    public var method: PhenotypeRankingMethod?
    public var scoring: PhenotypeScoring?
    public var maxResults: Int?
    /// Whether to suggest the phenotypes that best separate the top candidates.
    public var suggestPhenotypes: Bool?
    /// The disease sources ranked (`DiseaseSource.rankedByDefault` when absent).
    public var sources: [DiseaseSource]?

    public init(
        requestID: String, phenotypes: [String], excluded: [String]? = nil, method: PhenotypeRankingMethod? = nil, scoring: PhenotypeScoring? = nil,
        maxResults: Int? = nil, suggestPhenotypes: Bool? = nil, sources: [DiseaseSource]? = nil
    ) {
        self.method = method
        self.sources = sources
        self.requestID = requestID
        self.phenotypes = phenotypes
        self.excluded = excluded
        self.scoring = scoring
        self.maxResults = maxResults
        self.suggestPhenotypes = suggestPhenotypes
    }

    enum CodingKeys: String, CodingKey {
        case requestID = "requestId"
        case phenotypes, excluded, method, scoring, maxResults, suggestPhenotypes, sources
    }
}

/// The ontology release an answer was computed with.
public struct OntologyReleaseReference: Codable, Sendable, Equatable {
    public var releaseID: Int
    public var kind: OntologyUpdateKind
    /// `data-version` of `hp.obo`, e.g. `hp/releases/2025-01-16`.
    public var ontologyVersion: String?
    /// `#version` of `phenotype.hpoa` (absent for a minimum update).
    public var annotationVersion: String?

    public init(releaseID: Int, kind: OntologyUpdateKind, ontologyVersion: String?, annotationVersion: String?) {
        self.releaseID = releaseID
        self.kind = kind
        self.ontologyVersion = ontologyVersion
        self.annotationVersion = annotationVersion
    }

    enum CodingKeys: String, CodingKey {
        case releaseID = "releaseId"
        case kind, ontologyVersion, annotationVersion
    }
}

/// An ontology term by id and name.
public struct PhenotypeTermReference: Codable, Sendable, Equatable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A query term that was mapped or dropped before ranking.
public struct PhenotypeQueryWarning: Codable, Sendable, Equatable {
    /// unknownTerm, obsoleteTermReplaced, alternativeIdMapped, obsoleteWithoutReplacement, duplicateTerm,
    /// notPhenotypicAbnormality, excludedTermAlsoQueried or querySizeExceedsNullModel.
    public var code: String
    public var termID: String?
    public var message: String

    public init(code: String, termID: String?, message: String) {
        self.code = code
        self.termID = termID
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case code
        case termID = "termId"
        case message
    }
}

/// Why a query term scores what it does against a disease: its best-matching annotation and their most informative
/// common ancestor, whose information content is the Resnik similarity.
public struct PhenotypeTermMatch: Codable, Sendable, Equatable {
    public var queryTerm: PhenotypeTermReference
    public var diseaseTerm: PhenotypeTermReference
    public var commonAncestor: PhenotypeTermReference
    public var informationContent: Double

    public init(
        queryTerm: PhenotypeTermReference, diseaseTerm: PhenotypeTermReference, commonAncestor: PhenotypeTermReference,
        informationContent: Double
    ) {
        self.queryTerm = queryTerm
        self.diseaseTerm = diseaseTerm
        self.commonAncestor = commonAncestor
        self.informationContent = informationContent
    }
}

/// How one finding weighed for one disease in a ranking by likelihood ratio.
public struct FindingLikelihoodRatio: Codable, Sendable, Equatable {
    public var term: PhenotypeTermReference
    /// Checked and found absent (else present).
    public var excluded: Bool
    /// The term of the disease's annotations the ratio was read at: the finding itself, or, for a present finding the
    /// disease is not annotated with, the ancestor that counted (discounted); absent for an excluded finding the
    /// disease is not annotated with.
    public var readAt: PhenotypeTermReference?
    /// The share of the disease's patients expected to show the term at `readAt`.
    public var share: Double?
    /// log10 of the finding's likelihood ratio: above 0 speaks for the disease, below against it.
    public var log10Ratio: Double

    public init(term: PhenotypeTermReference, excluded: Bool, readAt: PhenotypeTermReference?, share: Double?, log10Ratio: Double) {
        self.term = term
        self.excluded = excluded
        self.readAt = readAt
        self.share = share
        self.log10Ratio = log10Ratio
    }
}

/// A disease's likelihood ratio in a ranking by likelihood ratio, and what made it.
public struct DiseaseLikelihoodRatio: Codable, Sendable, Equatable {
    /// log10 of the product of the findings' ratios.
    public var log10Ratio: Double
    /// log10 of the factor the similarity's p-value adds in the order (docs/clinical-rules.md §11).
    public var log10PValueFactor: Double
    /// The disease's share of the weights (ratio times p-value factor) of every ranked disease, with equal pre-test
    /// probabilities: it follows the order.
    public var posteriorProbability: Double
    /// The present findings in query order, then the excluded ones.
    public var findings: [FindingLikelihoodRatio]

    public init(log10Ratio: Double, log10PValueFactor: Double, posteriorProbability: Double, findings: [FindingLikelihoodRatio]) {
        self.log10Ratio = log10Ratio
        self.log10PValueFactor = log10PValueFactor
        self.posteriorProbability = posteriorProbability
        self.findings = findings
    }
}

/// One disease of a ranking.
public struct RankedDiseaseCandidate: Codable, Sendable, Equatable {
    public var rank: Int
    public var diseaseID: String
    public var diseaseName: String
    /// The entries of other sources naming the same disease, whose annotations it was scored with (version 2; nil in a
    /// version 1 answer).
    public var pooledWith: [String]?
    public var score: Double
    /// Subtracted from the similarity because the disease is annotated with excluded phenotypes.
    public var penalty: Double
    public var pValue: Double
    /// Benjamini–Hochberg adjusted over every disease scored.
    public var adjustedPValue: Double
    public var matches: [PhenotypeTermMatch]
    public var excludedTermsPresent: [PhenotypeTermReference]
    /// The ratio and its findings, in a ranking by likelihood ratio.
    public var likelihoodRatio: DiseaseLikelihoodRatio?

    public init(
        rank: Int, diseaseID: String, diseaseName: String, pooledWith: [String]? = nil, score: Double, penalty: Double, pValue: Double,
        adjustedPValue: Double,
        matches: [PhenotypeTermMatch], excludedTermsPresent: [PhenotypeTermReference], likelihoodRatio: DiseaseLikelihoodRatio? = nil
    ) {
        self.likelihoodRatio = likelihoodRatio
        self.pooledWith = pooledWith
        self.rank = rank
        self.diseaseID = diseaseID
        self.diseaseName = diseaseName
        self.score = score
        self.penalty = penalty
        self.pValue = pValue
        self.adjustedPValue = adjustedPValue
        self.matches = matches
        self.excludedTermsPresent = excludedTermsPresent
    }

    enum CodingKeys: String, CodingKey {
        case rank
        case diseaseID = "diseaseId"
        case diseaseName, pooledWith, score, penalty, pValue, adjustedPValue, matches, excludedTermsPresent, likelihoodRatio
    }
}

/// A phenotype worth checking next: whether the patient has it best separates the top candidates.
public struct PhenotypeSuggestionEntry: Codable, Sendable, Equatable {
    public var term: PhenotypeTermReference
    public var informationContent: Double
    /// Binary entropy (bits) of the split of the top candidates: 1 when half of them have the phenotype.
    public var splitEntropy: Double
    /// Top candidates annotated with the phenotype (directly or through a more specific term), in ranking order.
    public var presentIn: [String]
    /// The other top candidates, in ranking order.
    public var absentIn: [String]

    public init(term: PhenotypeTermReference, informationContent: Double, splitEntropy: Double, presentIn: [String], absentIn: [String]) {
        self.term = term
        self.informationContent = informationContent
        self.splitEntropy = splitEntropy
        self.presentIn = presentIn
        self.absentIn = absentIn
    }
}

/// Diseases ranked for a query (`caretide.diagnosis-results`); also the body of `POST /v1/rankings`.
public struct DiagnosisRanked: EventPayload {
    public static let eventType = EventType.diagnosisRanked

    public var requestID: String
    public var release: OntologyReleaseReference
    /// What put the results in order (absent in answers made before the likelihood ratio: `similarity`).
    public var method: PhenotypeRankingMethod?
    public var scoring: PhenotypeScoring
    /// The query terms used, after mapping and deduplication.
    public var queryTerms: [PhenotypeTermReference]
    public var excludedTerms: [PhenotypeTermReference]
    public var warnings: [PhenotypeQueryWarning]
    /// The query size whose null distribution gave the p-values.
    public var nullQuerySize: Int
    /// How many diseases were scored (the m of the Benjamini–Hochberg adjustment).
    public var diseaseCount: Int
    /// By likelihood ratio, or by score + 1.5 × −log10(p-value) (`method`).
    public var results: [RankedDiseaseCandidate]
    public var suggestions: [PhenotypeSuggestionEntry]?

    public init(
        requestID: String, release: OntologyReleaseReference, method: PhenotypeRankingMethod?, scoring: PhenotypeScoring,
        queryTerms: [PhenotypeTermReference],
        excludedTerms: [PhenotypeTermReference], warnings: [PhenotypeQueryWarning], nullQuerySize: Int, diseaseCount: Int,
        results: [RankedDiseaseCandidate], suggestions: [PhenotypeSuggestionEntry]?
    ) {
        self.requestID = requestID
        self.release = release
        self.method = method
        self.scoring = scoring
        self.queryTerms = queryTerms
        self.excludedTerms = excludedTerms
        self.warnings = warnings
        self.nullQuerySize = nullQuerySize
        self.diseaseCount = diseaseCount
        self.results = results
        self.suggestions = suggestions
    }

    enum CodingKeys: String, CodingKey {
        case requestID = "requestId"
        case release, method, scoring, queryTerms, excludedTerms, warnings, nullQuerySize, diseaseCount, results,
            suggestions
    }
}

/// Why a well-formed diagnosis request could not be ranked.
public enum DiagnosisRefusalReason: String, Codable, Sendable, CaseIterable {
    /// No ontology has been imported yet.
    case ontologyNotLoaded
    /// Only a minimum update (terms and graph) is loaded; ranking needs diseases and annotations.
    case fullUpdateNeeded
    /// Every query term was unknown, obsolete without replacement or not a phenotypic abnormality.
    case noUsableQueryTerms
}

/// A diagnosis request that could not be ranked, and why (`caretide.diagnosis-results`).
public struct DiagnosisRefused: EventPayload {
    public static let eventType = EventType.diagnosisRefused

    public var requestID: String
    public var reason: DiagnosisRefusalReason
    public var message: String
    public var warnings: [PhenotypeQueryWarning]

    public init(requestID: String, reason: DiagnosisRefusalReason, message: String, warnings: [PhenotypeQueryWarning] = []) {
        self.requestID = requestID
        self.reason = reason
        self.message = message
        self.warnings = warnings
    }

    enum CodingKeys: String, CodingKey {
        case requestID = "requestId"
        case reason, message, warnings
    }
}

/// An operator asks diagnosis-service to import a new HPO release from files it can read (a mounted volume)
/// (`caretide.diagnosis-requests`). `caretide hpo import` does the same from the command line.
public struct OntologyUpdateRequested: EventPayload {
    public static let eventType = EventType.ontologyUpdateRequested

    public var updateID: String
    public var kind: OntologyUpdateKind
    /// Path of `hp.obo` on the service's file system.
    public var ontologyFile: String
    /// Path of `phenotype.hpoa`; required for a full update.
    public var annotationFile: String?

    public init(updateID: String, kind: OntologyUpdateKind, ontologyFile: String, annotationFile: String?) {
        self.updateID = updateID
        self.kind = kind
        self.ontologyFile = ontologyFile
        self.annotationFile = annotationFile
    }

    enum CodingKeys: String, CodingKey {
        case updateID = "updateId"
        case kind, ontologyFile, annotationFile
    }
}

/// A new ontology release is imported and serving (`caretide.diagnosis-results`), with its counts and accuracy report.
public struct OntologyReleaseImported: EventPayload {
    public static let eventType = EventType.ontologyReleaseImported

    /// The update request it answers, when it was started by an event.
    public var updateID: String?
    public var release: OntologyReleaseReference
    public var termCount: Int
    public var diseaseCount: Int
    public var annotationCount: Int
    /// Fraction of simulated patients whose disease ranked first / in the top ten (absent for a minimum update).
    public var recallFirst: Double?
    public var recallTopTen: Double?

    public init(
        updateID: String?, release: OntologyReleaseReference, termCount: Int, diseaseCount: Int, annotationCount: Int,
        recallFirst: Double?, recallTopTen: Double?
    ) {
        self.updateID = updateID
        self.release = release
        self.termCount = termCount
        self.diseaseCount = diseaseCount
        self.annotationCount = annotationCount
        self.recallFirst = recallFirst
        self.recallTopTen = recallTopTen
    }

    enum CodingKeys: String, CodingKey {
        case updateID = "updateId"
        case release, termCount, diseaseCount, annotationCount, recallFirst, recallTopTen
    }
}
