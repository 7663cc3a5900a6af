import Foundation

/// Why a query or excluded term was mapped or dropped. Ranking continues; the warnings are
/// returned with the result.
public enum QueryWarning: Sendable, Hashable, CustomStringConvertible {
    /// Not an ontology identifier; dropped.
    case unknownTerm(String)
    /// Obsolete id mapped through `replaced_by`.
    case obsoleteTermReplaced(String, replacement: String)
    /// `alt_id` mapped to the term's primary id.
    case alternativeIDMapped(String, primary: String)
    /// Obsolete without a replacement; dropped. `consider` lists the curators' suggestions.
    case obsoleteWithoutReplacement(String, consider: [String])
    /// The same term (after mapping) was given twice; the repeat is dropped.
    case duplicateTerm(String)
    /// Not under Phenotypic abnormality (HP:0000118), e.g. a mode-of-inheritance term; dropped.
    case notPhenotypicAbnormality(String)
    /// A term is both queried and excluded; the exclusion is dropped.
    case excludedTermAlsoQueried(String)
    /// More query terms than the null distribution covers (`NullDistribution.covers(querySize:)`): p-values read the
    /// distribution of `used` terms, stretched in asymmetric scoring beyond the sizes that stretch was measured for.
    case querySizeExceedsNullModel(size: Int, used: Int)

    public var description: String {
        switch self {
        case .unknownTerm(let id): return "\(id): unknown term, ignored"
        case .obsoleteTermReplaced(let id, let replacement): return "\(id): obsolete, replaced by \(replacement)"
        case .alternativeIDMapped(let id, let primary): return "\(id): alternative id of \(primary)"
        case .obsoleteWithoutReplacement(let id, let consider):
            return "\(id): obsolete without replacement, ignored"
                + (consider.isEmpty ? "" : " (consider \(consider.joined(separator: ", ")))")
        case .duplicateTerm(let id): return "\(id): duplicate, ignored"
        case .notPhenotypicAbnormality(let id): return "\(id): not a phenotypic abnormality, ignored"
        case .excludedTermAlsoQueried(let id): return "\(id): both queried and excluded; exclusion ignored"
        case .querySizeExceedsNullModel(let size, let used):
            return "\(size) query terms; p-values are read from the null distribution for \(used) terms, less exact at this size"
        }
    }
}

/// What puts the diseases in order.
public enum RankingMethod: Sendable, Hashable {
    /// The Phenomizer's similarity and its p-value (`RankingOrdering.standard`), excluded findings as a penalty.
    case similarity
    /// The likelihood ratio of the present and excluded findings (`LikelihoodRatioScoring`); the similarity's p-value
    /// is still reported.
    case likelihoodRatio
}

/// Options of a ranking.
public struct RankingOptions: Sendable, Hashable {
    public var method: RankingMethod
    /// The constants of `.likelihoodRatio`.
    public var likelihoodRatio: LikelihoodRatioScoring.Parameters
    /// The similarity whose null distribution gives the p-values (and, with `.similarity`, the score).
    public var scoring: ScoringMode
    /// How many ranked diseases to return (all are scored and adjusted).
    public var maxResults: Int
    /// Weight `w ≥ 0` of the exclusion penalty (see ``PhenotypeRanker``); 0 disables it.
    public var exclusionPenaltyWeight: Double
    /// Whether an excluded finding costs a disease in proportion to how often the disease shows it (the annotation's
    /// frequency); false charges every annotated disease in full, as if each annotation were obligate.
    public var exclusionByFrequency: Bool
    /// The share of patients assumed to show an annotation whose frequency the annotation file does not give.
    public var unknownFrequencyShare: Double
    /// The least share of patients showing a finding for its absence to count against a disease.
    public var exclusionMinimumShare: Double
    /// The disease sources ranked (`OMIM`, `ORPHA`, `DECIPHER`: the prefixes of disease ids); nil for every one.
    /// All diseases are scored and counted in the adjustment of p-values either way.
    public var sources: Set<String>?

    public init(
        method: RankingMethod = .similarity, likelihoodRatio: LikelihoodRatioScoring.Parameters = .standard, scoring: ScoringMode = .asymmetric,
        maxResults: Int = 20, exclusionPenaltyWeight: Double = RankingOptions.defaultExclusionPenaltyWeight,
        exclusionByFrequency: Bool = true, unknownFrequencyShare: Double = RankingOptions.defaultUnknownFrequencyShare,
        exclusionMinimumShare: Double = RankingOptions.defaultExclusionMinimumShare, sources: Set<String>? = nil
    ) {
        self.method = method
        self.likelihoodRatio = likelihoodRatio
        self.exclusionMinimumShare = exclusionMinimumShare
        self.sources = sources
        self.scoring = scoring
        self.maxResults = maxResults
        self.exclusionPenaltyWeight = exclusionPenaltyWeight
        self.exclusionByFrequency = exclusionByFrequency
        self.unknownFrequencyShare = unknownFrequencyShare
    }

    /// The order `method` ranks in.
    var ordering: RankingOrdering {
        method == .likelihoodRatio ? (likelihoodRatio.pValueWeight > 0 ? .combined(weight: likelihoodRatio.pValueWeight) : .score) : .standard
    }

    public static let defaultUnknownFrequencyShare = 0.5
    /// The weight measured best on published cases (docs/clinical-rules.md §11).
    public static let defaultExclusionPenaltyWeight = 0.2
    /// The least share of patients showing a finding for its absence to count against a disease (see
    /// ``exclusionMinimumShare``): Obligate, counts of at least 8 of 8 patients, 90 % and more.
    public static let defaultExclusionMinimumShare = 0.9

    /// The share of patients with a disease expected to show an excluded finding, given the frequency shares of the
    /// disease's annotations at or below it (NaN: none given): the highest, since a patient who shows a more specific
    /// finding shows the excluded one too. Nil when no annotation lies at or below the finding, or when the share is
    /// below ``exclusionMinimumShare``: the absence of a finding the disease only sometimes shows says little.
    func chargedShare(of shares: some Sequence<Float>) -> Double? {
        var expected: Double?
        for share in shares {
            let value = exclusionByFrequency ? (share.isNaN ? unknownFrequencyShare : Double(share)) : 1
            expected = max(expected ?? 0, value)
        }
        guard let expected, expected >= (exclusionByFrequency ? exclusionMinimumShare : 0) else { return nil }
        return expected
    }
}

/// A term with its identifier and name.
public struct TermReference: Sendable, Hashable, CustomStringConvertible {
    public let index: TermIndex
    public let id: String
    public let name: String

    public var description: String { "\(id) \(name)" }
}

/// One query term's best match in a disease: the annotation with the most informative common
/// ancestor, that ancestor (MICA) and its information content (the Resnik similarity).
public struct TermMatch: Sendable, Hashable {
    public let queryTerm: TermReference
    public let diseaseTerm: TermReference
    public let commonAncestor: TermReference
    public let informationContent: Double
}

/// One disease in a ranking.
public struct RankedDisease: Sendable, Hashable {
    /// 1-based position in the ranking.
    public let rank: Int
    public let diseaseIndex: Int
    public let diseaseID: String
    public let diseaseName: String
    /// The entries of other sources that name the same disease and whose annotations it was scored with (sorted; empty
    /// when none): the answer names every id of the disease, though the list holds it once.
    public let pooledWith: [String]
    /// Similarity score after the exclusion penalty.
    public let score: Double
    /// The exclusion penalty that was subtracted (0 without exclusions).
    public let penalty: Double
    public let pValue: Double
    /// Benjamini–Hochberg adjusted p-value over all diseases.
    public let adjustedPValue: Double
    /// One entry per query term (query → disease direction), explaining the score.
    public let matches: [TermMatch]
    /// Excluded terms the disease is annotated with (directly or through a descendant).
    public let excludedTermsPresent: [TermReference]
    /// The disease's likelihood ratio and each finding's, when the ranking is by likelihood ratio.
    public let likelihoodRatio: LikelihoodRatioExplanation?
}

/// The answer to a query.
public struct RankingResult: Sendable, Hashable {
    /// The top diseases in ``RankingOrdering/standard``: score + 1.5 × −log10(p), then p-value, then score, then id.
    public let results: [RankedDisease]
    /// The query terms used, after mapping and deduplication, in input order.
    public let queryTerms: [TermReference]
    public let excludedTerms: [TermReference]
    public let warnings: [QueryWarning]
    public let method: RankingMethod
    public let scoring: ScoringMode
    /// The query size whose null distribution gave the p-values (for a longer query in asymmetric scoring, the
    /// distribution its score was stretched onto: `NullDistribution`, "Longer queries").
    public let nullQuerySize: Int
    /// Number of diseases scored (the `m` of the Benjamini–Hochberg adjustment).
    public let diseaseCount: Int
}

/// Ranks diseases for a set of phenotype terms, by the likelihood ratio of the findings (`RankingMethod.likelihoodRatio`,
/// see ``LikelihoodRatioScoring``) or with the Phenomizer method (Köhler S, Schulz
/// MH, Krawitz P, et al. "Clinical diagnostics in human genetics with semantic similarity
/// searches in ontologies." Am J Hum Genet 2009;85(4):457-64):
///
/// - `sim(q, t) = IC(MICA(q, t))` (Resnik), with `IC` from ``PhenotypeKnowledgeBase``;
/// - asymmetric score `sim(Q→D) = (1/|Q|) Σ_{q∈Q} max_{t∈D} sim(q, t)`; symmetric score the
///   mean of `sim(Q→D)` and `sim(D→Q)`;
/// - a p-value per disease from its ``NullDistribution`` for the query size, and the
///   Benjamini–Hochberg adjustment across all diseases.
///
/// **Excluded phenotypes** (ranking by similarity; the likelihood ratio weighs them itself). A disease annotated with an excluded term `e` or one of its descendants loses
/// `w · IC(e) / |Q| · f(e, d)` per such term, where `f(e, d)` is how often patients with the disease show the finding:
/// the highest frequency share of its annotations at or below `e` (`AnnotationFrequency`), and only when it is at least
/// ``RankingOptions/exclusionMinimumShare`` (0.9: an obligate or nearly obligate feature that is absent is evidence
/// against the disease; the absence of one it shows in some patients says little). `w` =
/// ``RankingOptions/exclusionPenaltyWeight`` (0.2). Both defaults were measured on published cases
/// (docs/clinical-rules.md §11): charging every annotated disease in full, or in proportion to any frequency, put the
/// true disease lower, because case reports list as absent many features their own disease shows at some frequency.
/// The p-value is that of the present findings; the penalty lowers the score the order reads after it, so a disease
/// moves down by the size of its penalty and never above a disease the exclusion left alone. The reported score is
/// floored at 0. LIRICAL weighs excluded findings by frequency in the same spirit (Robinson PN et al., Am J Hum
/// Genet 2020;107(3):403-17).
///
/// Cost per query of `k` terms: for each, a write per disease annotated under each of its ancestors that not every
/// query term shares (those are read once per query), plus `O(T + E + A)` in symmetric mode (see
/// `PhenotypeKnowledgeBase.scores(present:absent:mode:likelihoodRatio:)`), one p-value look-up per disease, one pass
/// keeping the top results, and for each reported disease one read of each of its ancestors (`firstAncestors`).
public struct PhenotypeRanker: Sendable {
    public let knowledgeBase: PhenotypeKnowledgeBase
    private let nulls: [ScoringMode: NullDistribution]
    /// −log10 p of each survival count, per null distribution (`OrderingInput.evidence`).
    private let evidence: [ScoringMode: [Double]]

    /// - Parameter nullDistributions: at most one per scoring mode, built from this knowledge base.
    public init(knowledgeBase: PhenotypeKnowledgeBase, nullDistributions: [NullDistribution])
        throws(PhenotypeRankingError)
    {
        self.knowledgeBase = knowledgeBase
        var nulls: [ScoringMode: NullDistribution] = [:]
        for null in nullDistributions {
            guard null.fingerprint == knowledgeBase.fingerprint, null.diseaseCount == knowledgeBase.diseaseCount else {
                throw PhenotypeRankingError(
                    .nullDistributionMismatch, "the null distribution was built from different data")
            }
            nulls[null.scoring] = null
        }
        self.nulls = nulls
        evidence = nulls.mapValues { OrderingInput.evidence(sampleCount: $0.sampleCount) }
    }

    public func nullDistribution(for scoring: ScoringMode) -> NullDistribution? { nulls[scoring] }

    // MARK: Query resolution

    struct ResolvedQuery {
        var terms: [Int32] = []
        var excluded: [Int32] = []
        var warnings: [QueryWarning] = []
    }

    func resolve(terms: [String], excluding: [String]) throws(PhenotypeRankingError) -> ResolvedQuery {
        guard !terms.isEmpty else {
            throw PhenotypeRankingError(.emptyQuery, "the query has no terms")
        }
        var query = ResolvedQuery()
        var seen = Set<Int32>()
        for raw in terms {
            guard let t = resolveOne(raw, warnings: &query.warnings) else { continue }
            guard seen.insert(t).inserted else {
                query.warnings.append(.duplicateTerm(raw))
                continue
            }
            query.terms.append(t)
        }
        var seenExcluded = Set<Int32>()
        for raw in excluding {
            guard let t = resolveOne(raw, warnings: &query.warnings) else { continue }
            if seen.contains(t) {
                query.warnings.append(.excludedTermAlsoQueried(raw))
                continue
            }
            guard seenExcluded.insert(t).inserted else {
                query.warnings.append(.duplicateTerm(raw))
                continue
            }
            query.excluded.append(t)
        }
        guard !query.terms.isEmpty else {
            throw PhenotypeRankingError(
                .noUsableQueryTerms, "none of the query terms is a usable phenotype term", warnings: query.warnings)
        }
        return query
    }

    private func resolveOne(_ raw: String, warnings: inout [QueryWarning]) -> Int32? {
        let id = Self.normalizedID(raw)
        let ontology = knowledgeBase.ontology
        let term: TermIndex
        switch ontology.resolve(id) {
        case .current(let t): term = t
        case .alternative(let t):
            warnings.append(.alternativeIDMapped(raw, primary: ontology.id(of: t)))
            term = t
        case .replaced(let t):
            warnings.append(.obsoleteTermReplaced(raw, replacement: ontology.id(of: t)))
            term = t
        case .obsoleteWithoutReplacement(let consider):
            warnings.append(.obsoleteWithoutReplacement(raw, consider: consider))
            return nil
        case .unknown:
            warnings.append(.unknownTerm(raw))
            return nil
        }
        guard knowledgeBase.isPhenotype(term) else {
            warnings.append(.notPhenotypicAbnormality(raw))
            return nil
        }
        return term.rawValue
    }

    /// Trims whitespace and upper-cases the prefix (`hp:0001250` → `HP:0001250`).
    static func normalizedID(_ raw: String) -> String {
        let trimmed = raw.trimmingWhitespace()
        guard let colon = trimmed.firstIndex(of: ":") else { return trimmed }
        return trimmed[..<colon].uppercased() + trimmed[colon...]
    }

    // MARK: Scoring

    struct Scored {
        var scores: [Float]
        var penalties: [Float]
        /// Null scores ≥ each disease's score; `p = (count + 1) / (N + 1)`.
        var survival: [UInt32]
        var groups: SurvivalGroups
        var querySize: Int
        var null: NullDistribution
        /// −log10 p of each survival count of `null`.
        var evidence: [Double]

        /// The diseases of the sources asked for; nil for all.
        var included: [Bool]?

        var orderingInput: OrderingInput { OrderingInput(scores: scores, survival: survival, evidence: evidence, included: included) }
    }

    func scoreAll(_ query: ResolvedQuery, options: RankingOptions) throws(PhenotypeRankingError) -> Scored {
        guard options.exclusionPenaltyWeight >= 0, options.exclusionPenaltyWeight.isFinite else {
            throw PhenotypeRankingError(.invalidOption, "exclusionPenaltyWeight must be a finite number ≥ 0")
        }
        guard (0...1).contains(options.unknownFrequencyShare), (0...1).contains(options.exclusionMinimumShare) else {
            throw PhenotypeRankingError(.invalidOption, "unknownFrequencyShare and exclusionMinimumShare must lie in 0...1")
        }
        let ratio = options.likelihoodRatio
        guard ratio.unmatchedFactor > 0, ratio.unmatchedFactor <= 1, ratio.absentOutsideSpectrum > 0, ratio.absentOutsideSpectrum <= 1,
            ratio.leastAbsentShare > 0, ratio.leastAbsentShare <= ratio.absentOutsideSpectrum, ratio.pValueWeight >= 0, ratio.pValueWeight.isFinite
        else {
            throw PhenotypeRankingError(
                .invalidOption,
                "the likelihood ratio's factors must lie in (0, 1] with leastAbsentShare ≤ absentOutsideSpectrum, and pValueWeight be finite ≥ 0")
        }
        guard let null = nulls[options.scoring] else {
            throw PhenotypeRankingError(
                .nullDistributionMissing, "no null distribution for \(options.scoring) scoring")
        }
        let kb = knowledgeBase
        let rated = options.method == .likelihoodRatio
        let computed = kb.scores(
            present: query.terms, absent: query.excluded, mode: options.scoring, likelihoodRatio: rated ? options.likelihoodRatio : nil)
        var scores = computed.similarity
        let diseaseCount = kb.diseaseCount
        var penalties = [Float](repeating: 0, count: diseaseCount)
        let penalised = options.method == .similarity && !query.excluded.isEmpty
        if penalised {
            let k = Float(query.terms.count)
            let weight = Float(options.exclusionPenaltyWeight)
            var marks = [Bool](repeating: false, count: kb.termCount)
            for e in query.excluded {
                for i in marks.indices { marks[i] = false }
                kb.ontology.markDescendants(of: Int(e), in: &marks)
                let amount = weight * kb.ic[Int(e)] / k
                for d32 in kb.diseasesUnder[Int(kb.diseasesUnderOffsets[Int(e)])..<Int(kb.diseasesUnderOffsets[Int(e) + 1])] {
                    let d = Int(d32)
                    let shares = zip(kb.annotationSlice(d), kb.shareSlice(d)).lazy.filter { term, _ in marks[Int(term)] }.map(\.1)
                    if let share = options.chargedShare(of: shares) { penalties[d] += amount * Float(share) }
                }
            }
        }
        // The p-value is that of the present findings; the penalty lowers the score the order reads after it.
        let size = query.terms.count
        var survival = [UInt32](repeating: 0, count: diseaseCount)
        null.survivalCounts(querySize: size, scores: scores, diseases: 0..<diseaseCount, into: &survival)
        if penalised {
            for d in 0..<diseaseCount { scores[d] -= penalties[d] }
        }
        if rated { scores = computed.logRatios }
        return Scored(
            scores: scores, penalties: penalties, survival: survival,
            groups: SurvivalGroups(survival: survival, sampleCount: null.sampleCount), querySize: size, null: null,
            evidence: evidence[options.scoring] ?? OrderingInput.evidence(sampleCount: null.sampleCount),
            included: kb.sourceMask(options.sources))
    }

    // MARK: Ranking

    /// Ranks every disease for the query.
    ///
    /// - Parameters:
    ///   - terms: HPO ids such as `HP:0001250` (alt_ids and obsolete ids are mapped; unknown,
    ///     duplicate and non-phenotype ids are dropped with a warning).
    ///   - excluding: phenotypes the patient is known not to have.
    /// - Throws: ``PhenotypeRankingError/Code/emptyQuery`` for an empty list,
    ///   ``PhenotypeRankingError/Code/noUsableQueryTerms`` when every term was dropped,
    ///   ``PhenotypeRankingError/Code/nullDistributionMissing`` without a null for the mode.
    public func rank(
        terms: [String], excluding: [String] = [], options: RankingOptions = RankingOptions()
    ) throws(PhenotypeRankingError) -> RankingResult {
        var query = try resolve(terms: terms, excluding: excluding)
        let scored = try scoreAll(query, options: options)
        let kb = knowledgeBase
        let n = Double(scored.null.sampleCount + 1)
        let m = kb.diseaseCount
        let nullSize = min(scored.querySize, scored.null.maxQuerySize)
        if !scored.null.covers(querySize: scored.querySize) {
            query.warnings.append(.querySizeExceedsNullModel(size: scored.querySize, used: scored.null.maxQuerySize))
        }

        let limit = max(0, min(options.maxResults, m))
        let input = scored.orderingInput
        let keys = options.ordering.keys(input)
        let top = options.ordering.top(limit, input, keys: keys)
        let adjusted = scored.groups.adjustedPValues(at: top.map { scored.survival[Int($0)] })
        let ancestry = QueryAncestry(knowledgeBase: kb, query: query.terms)
        let ratios =
            options.method == .likelihoodRatio
            ? LikelihoodRatioContext(
                input: input, keys: keys ?? input.scores.map(Double.init), query: query, knowledgeBase: kb, parameters: options.likelihoodRatio)
            : nil
        var results: [RankedDisease] = []
        results.reserveCapacity(limit)
        for (position, (d32, adjustedPValue)) in zip(top, adjusted).enumerated() {
            let d = Int(d32)
            let exact = exactScore(disease: d, query: query, ancestry: ancestry, options: options)
            results.append(
                RankedDisease(
                    rank: position + 1, diseaseIndex: d, diseaseID: kb.diseaseIDs[d], diseaseName: kb.diseaseNames[d],
                    pooledWith: kb.pooledWith[kb.diseaseIDs[d]] ?? [],
                    score: exact.score, penalty: exact.penalty,
                    pValue: (Double(scored.survival[d]) + 1) / n,
                    adjustedPValue: adjustedPValue,
                    matches: exact.matches,
                    excludedTermsPresent: query.excluded.filter { e in
                        kb.annotationSlice(d).contains { kb.ontology.isAncestor(e, of: Int($0)) }
                    }.map(reference),
                    likelihoodRatio: ratios.map {
                        $0.explanation(disease: d, reference: reference) { ancestry.logRatio(of: d, at: $0, in: exact.diseaseAncestors, kb) }
                    }))
        }
        return RankingResult(
            results: results, queryTerms: query.terms.map(reference), excludedTerms: query.excluded.map(reference),
            warnings: query.warnings, method: options.method, scoring: options.scoring, nullQuerySize: nullSize, diseaseCount: m)
    }

    /// Where the disease `diseaseID` lands for the query (1 = first), in the order ``rank(terms:excluding:options:)``
    /// answers in, without building the answer: what evaluations on published cases ask of every case. Nil for a
    /// disease the knowledge base does not hold.
    public func position(
        of diseaseID: String, terms: [String], excluding: [String] = [], options: RankingOptions = RankingOptions()
    ) throws(PhenotypeRankingError) -> Int? {
        guard let d = knowledgeBase.diseaseIndex(of: diseaseID) else { return nil }
        let scored = try scoreAll(try resolve(terms: terms, excluding: excluding), options: options)
        return options.ordering.position(of: d, scored.orderingInput)
    }

    func reference(_ t: Int32) -> TermReference {
        let ontology = knowledgeBase.ontology
        return TermReference(index: TermIndex(t), id: ontology.termIDs[Int(t)], name: ontology.termNames[Int(t)])
    }

    /// A reported disease's score, penalty and explanation in full precision (`Double` information content), the
    /// search over all diseases having used `Float`: every query term against every annotation, the common ancestors
    /// read from `ancestry`, so the score is exact by construction.
    ///
    /// The explanation holds, per query term, the annotation it matched best (the first of equals), their most
    /// informative common ancestor and its information content, most informative first (ties in query order): what a
    /// clinician reads first is what weighed most.
    func exactScore(disease d: Int, query: ResolvedQuery, ancestry: QueryAncestry, options: RankingOptions)
        -> (score: Double, penalty: Double, matches: [TermMatch], diseaseAncestors: QueryAncestry.Ancestors)
    {
        let kb = knowledgeBase
        let annotations = kb.annotationSlice(d)
        let k = query.terms.count
        var best = [(term: Int32, ancestor: Int32, value: Double)](repeating: (-1, -1, -1), count: k)
        var diseaseToQuery = 0.0
        var diseaseAncestors = ancestry.noAncestors
        if options.scoring == .asymmetric {
            ancestry.bestMatches(of: d, kb, into: &best, shared: &diseaseAncestors)
        } else {
            // The symmetric score also needs each annotation's own best match.
            var common = [(term: Int32, value: Double)](repeating: (-1, 0), count: k)
            for t in annotations {
                ancestry.commonAncestors(of: t, kb, into: &common, shared: &diseaseAncestors)
                var rowBest = 0.0
                for i in 0..<k {
                    if common[i].value > best[i].value { best[i] = (t, common[i].term, common[i].value) }
                    rowBest = max(rowBest, common[i].value)
                }
                diseaseToQuery += rowBest
            }
        }
        // Any two phenotypes share the phenotype root, so every query term has a match.
        let matches = zip(query.terms, best).map { q, match in
            TermMatch(
                queryTerm: reference(q), diseaseTerm: reference(match.term), commonAncestor: reference(match.ancestor),
                informationContent: match.value)
        }
        var raw = best.reduce(0) { $0 + $1.value } / Double(k)
        if options.scoring == .symmetric {
            raw = (raw + (annotations.isEmpty ? 0 : diseaseToQuery / Double(annotations.count))) / 2
        }
        var penalty = 0.0
        for e in query.excluded where options.method == .similarity {
            let shares = zip(annotations, kb.shareSlice(d)).lazy.filter { term, _ in kb.ontology.isAncestor(e, of: Int(term)) }.map(\.1)
            if let share = options.chargedShare(of: shares) { penalty += options.exclusionPenaltyWeight * kb.ic64[Int(e)] / Double(k) * share }
        }
        let ordered = matches.enumerated().sorted {
            ($0.element.informationContent, -$0.offset) > ($1.element.informationContent, -$1.offset)
        }
        return (max(0, raw - penalty), penalty, ordered.map(\.element), diseaseAncestors)
    }
}

/// What explaining a ranking by likelihood ratio needs once per query: each disease's key in the order (ln of its ratio
/// plus the p-value's evidence), the normaliser of the post-test probabilities, and each excluded finding's background.
struct LikelihoodRatioContext {
    let knowledgeBase: PhenotypeKnowledgeBase
    let query: PhenotypeRanker.ResolvedQuery
    let input: OrderingInput
    /// `ln LR + w · (−log10 p)` per disease: the keys of the order the diseases are ranked in.
    let keys: [Double]
    /// ln of the sum of the ranked diseases' weights, in the scale of `keys`.
    let logTotal: Double
    let absentBackgrounds: [Double]
    let parameters: LikelihoodRatioScoring.Parameters

    init(
        input: OrderingInput, keys: [Double], query: PhenotypeRanker.ResolvedQuery, knowledgeBase: PhenotypeKnowledgeBase,
        parameters: LikelihoodRatioScoring.Parameters
    ) {
        self.knowledgeBase = knowledgeBase
        self.parameters = parameters
        self.query = query
        self.input = input
        self.keys = keys
        var largest = -Double.infinity
        for d in keys.indices where input.includes(d) { largest = max(largest, keys[d]) }
        logTotal = largest + log(Self.weightSum(keys, largest: largest, included: input.included))
        absentBackgrounds = query.excluded.map { knowledgeBase.absentBackground($0, parameters: parameters) }
    }

    /// `Σ e^(key − largest)` over the diseases taking part: the normaliser of the post-test probabilities.
    ///
    /// A weight below e^−40 of the largest is left out: all of them together move the sum (at least 1, the largest's
    /// own) by under 1e-13 of itself. The rest are computed eight at a time in single precision (every disease of the
    /// release takes part, and a call of `exp` for each was a tenth of a ranking's time); the sum, and so each
    /// post-test probability, is within 1e-6 of itself in double precision, far below the digits any answer shows.
    static func weightSum(_ keys: [Double], largest: Double, included: [Bool]?) -> Double {
        // The loop below reads `included` eight at a time without bounds checks.
        precondition(included.map { $0.count == keys.count } ?? true, "one inclusion flag per disease")
        var sum = 0.0
        keys.withUnsafeBufferPointer { keys in
            var d = 0
            while d + 8 <= keys.count {
                let x = SIMD8<Float>(UnsafeRawPointer(keys.baseAddress! + d).loadUnaligned(as: SIMD8<Double>.self) - largest)
                var weights = exponentials(x)
                if let included {
                    let taking = included.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress! + d).loadUnaligned(as: SIMD8<UInt8>.self) }
                    weights.replace(with: 0, where: SIMD8<Int32>(truncatingIfNeeded: taking) .== 0)
                }
                sum += Double(weights.sum())
                d += 8
            }
            for rest in d..<keys.count where included?[rest] ?? true {
                sum += Double(exponentials(SIMD8(repeating: Float(keys[rest] - largest)))[0])
            }
        }
        return sum
    }

    /// `e^x` of each lane, 0 below −40 (and for NaN): `x = n·ln 2 + r` with `n` an integer and `r` within ±½ ln 2,
    /// `e^r` by its Taylor polynomial of degree 7 (error under 1e-8 of it), `2^n` written into the exponent.
    @inline(__always)
    static func exponentials(_ x: SIMD8<Float>) -> SIMD8<Float> {
        // Adding 1.5 · 2^23 rounds to an integer, which then sits in the low bits of the sum.
        let shifter = SIMD8<Float>(repeating: 12_582_912)
        let shifted = x * 1.442_695_040_888_963_4 + shifter
        let n = shifted - shifter
        // ln 2 in two parts, the first with few enough bits that `n` times it is exact.
        let r = (x - n * 0.693_145_751_953_125) - n * 1.428_606_765_330_187_0e-6
        var p = SIMD8<Float>(repeating: 1.0 / 5040)
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        let power = unsafeBitCast((unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- 0x4B40_0000 &+ 127) &<< 23, to: SIMD8<Float>.self)
        var result = p * power
        result.replace(with: 0, where: .!(x .>= -40))
        return result
    }

    /// Disease `d`'s explanation; `logRatio(a)` is the disease's log ratio at `a`, a present finding or one of its
    /// ancestors, nil when none of the disease's annotations lies at or below it.
    func explanation(disease d: Int, reference: (Int32) -> TermReference, logRatio: (Int32) -> Float?) -> LikelihoodRatioExplanation {
        let findings = knowledgeBase.likelihoodRatioFindings(
            disease: d, present: query.terms, absent: query.excluded, absentBackgrounds: absentBackgrounds, parameters: parameters,
            reference: reference, logRatio: logRatio)
        return LikelihoodRatioExplanation(
            log10Ratio: findings.reduce(0) { $0 + $1.log10Ratio },
            log10PValueFactor: parameters.pValueWeight * input.evidence[Int(input.survival[d])] / log(10),
            posteriorProbability: exp(keys[d] - logTotal), findings: findings)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let first = s.first, first.isWhitespace { s.removeFirst() }
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return String(s)
    }
}

/// How many diseases have each survival count (null scores at least as high as theirs), as running totals: what
/// Benjamini–Hochberg needs, since diseases of one count share a p-value. The order of the results is
/// `RankingOrdering`'s.
struct SurvivalGroups {
    let survival: [UInt32]
    let sampleCount: Int
    /// `groupStart[c]` = number of diseases with a survival count below `c` (size `N + 2`).
    let groupStart: [Int32]

    init(survival: [UInt32], sampleCount: Int) {
        self.survival = survival
        self.sampleCount = sampleCount
        var start = [Int32](repeating: 0, count: sampleCount + 2)
        for c in survival { start[Int(c) + 1] += 1 }
        for c in 1..<start.count { start[c] += start[c - 1] }
        groupStart = start
    }

    /// The Benjamini–Hochberg adjusted p-values of diseases with the survival counts `counts`, in their order: for a
    /// count `c`, `min(1, min over the counts c' ≥ c that some disease has of p(c') · m / G(c'))`, with `G(c')` the
    /// number of diseases whose count is at most `c'` and `p(c') = (c' + 1) / (N + 1)`.
    ///
    /// One walk down the counts, from `N` to the lowest asked for, keeps the least `(c' + 1) / G(c')` as a fraction,
    /// compared by cross-multiplying: no division in the walk, and only the counts asked for are written. Counts that no
    /// disease has are not told apart: such a count has the `G` of the highest count below it that a disease has, and
    /// a larger `c' + 1`, so it never holds the least value for a count that a disease has (and only those are asked).
    func adjustedPValues(at counts: [UInt32]) -> [Double] {
        let asked = Set(counts.map(Int.init)).sorted(by: >)
        guard let lowest = asked.last else { return [] }
        let (m, n1) = (Double(survival.count), Double(sampleCount + 1))
        // Exact: counts below 2^16 times disease numbers below 2^31.
        var (numerator, denominator) = (Int64(sampleCount + 1), Int64(survival.count))
        var adjusted: [Int: Double] = [:]
        var next = 0
        groupStart.withUnsafeBufferPointer { start in
            for c in stride(from: sampleCount, through: lowest, by: -1) {
                let (candidate, through) = (Int64(c + 1), Int64(start[c + 1]))
                // Which fraction is less flips from count to count as often as not: a select, not a branch.
                let less = candidate * denominator < numerator * through
                numerator = less ? candidate : numerator
                denominator = less ? through : denominator
                if c == asked[next] {
                    adjusted[c] = min(1, Double(numerator) / Double(denominator) * m / n1)
                    next += 1
                }
            }
        }
        return counts.map { adjusted[Int($0)] ?? 1 }
    }
}
