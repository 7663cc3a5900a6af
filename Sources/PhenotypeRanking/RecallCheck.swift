/// Options of ``PhenotypeRanker/recallCheck(_:)``, the simulation of Köhler et al. (2009):
/// patients are simulated from the annotations of known diseases, optionally made imprecise
/// and noisy, and the rank of the source disease is recorded.
public struct RecallCheckOptions: Sendable, Hashable {
    /// How many diseases to simulate (sampled without replacement; all if larger).
    public var diseaseCount: Int
    /// Annotated terms sampled per disease (all of them if the disease has fewer).
    public var termsPerQuery: Int
    /// Probability that each sampled term is replaced by one of its parents (chosen uniformly
    /// among parents below the phenotype root; kept if it has none).
    public var imprecision: Double
    /// Unrelated terms added per query: drawn uniformly from the phenotype terms that are not
    /// annotated to the disease (directly or through a descendant).
    public var noiseTerms: Int
    public var seed: UInt64
    public var scoring: ScoringMode
    /// What gives the scores the orderings read: the similarity, or the likelihood ratio (read with `.score`).
    public var method: RankingMethod

    public init(
        diseaseCount: Int = 100, termsPerQuery: Int = 5, imprecision: Double = 0, noiseTerms: Int = 0,
        seed: UInt64 = 42, scoring: ScoringMode = .asymmetric, method: RankingMethod = .similarity
    ) {
        self.method = method
        self.diseaseCount = diseaseCount
        self.termsPerQuery = termsPerQuery
        self.imprecision = imprecision
        self.noiseTerms = noiseTerms
        self.seed = seed
        self.scoring = scoring
    }
}

/// Outcome of a recall check.
public struct RecallCheckReport: Sendable, Hashable {
    /// Diseases simulated.
    public let evaluated: Int
    /// Fraction whose source disease was ranked first.
    public let rankedFirst: Double
    /// Fraction whose source disease was in the first three.
    public let inTopThree: Double
    /// Fraction whose source disease was in the first ten.
    public let inTopTen: Double
    /// The source disease's 1-based position in each ranking (in the ordering measured, ties broken by disease id), the
    /// entries of different sources that name one disease counted as one, in simulation order.
    public let ranks: [Int]
    /// The disease ids simulated, in simulation order.
    public let diseaseIDs: [String]
}

extension PhenotypeRanker {
    /// Simulates patients and reports how often their source disease ranks first, in the top three or in the top
    /// ten, in the order of `options.method`. Pure and deterministic for a given seed.
    public func recallCheck(_ options: RecallCheckOptions) throws(PhenotypeRankingError) -> RecallCheckReport {
        try recallCheck(options, orderings: [RankingOptions(method: options.method).ordering])[0]
    }

    /// The same simulated patients ranked in each of `orderings` (each patient scored once): a report per ordering,
    /// in the order given, so orderings are compared on exactly the same queries.
    public func recallCheck(_ options: RecallCheckOptions, orderings: [RankingOrdering]) throws(PhenotypeRankingError) -> [RecallCheckReport] {
        guard options.termsPerQuery >= 1 else {
            throw PhenotypeRankingError(.invalidOption, "termsPerQuery must be at least 1")
        }
        let kb = knowledgeBase
        let ontology = kb.ontology
        var rng = Xoshiro256StarStar(seed: options.seed)
        // Partial Fisher–Yates to pick diseases without replacement.
        var pool = Array(0..<kb.diseaseCount)
        let count = min(max(options.diseaseCount, 0), pool.count)
        for i in 0..<count {
            pool.swapAt(i, i + rng.nextInt(below: pool.count - i))
        }
        var ranks = [[Int]](repeating: [], count: orderings.count)
        var ids: [String] = []
        var closure = [Bool](repeating: false, count: kb.termCount)
        let rankingOptions = RankingOptions(method: options.method, scoring: options.scoring, maxResults: 0)
        // One disease, one entry: the entries of different sources that name the same disease count once, wherever
        // the first of them stands (each entry's group is its lowest index among them).
        var group = Array(0..<kb.diseaseCount)
        var entries: [Int: [Int]] = [:]
        for ids in kb.sameDisease {
            let members = ids.compactMap(kb.diseaseIndex(of:))
            for member in members { group[member] = members[0] }
            entries[members[0]] = members
        }
        for d in pool.prefix(count) {
            var annotations = Array(kb.annotationSlice(d))
            let take = min(options.termsPerQuery, annotations.count)
            for i in 0..<take { annotations.swapAt(i, i + rng.nextInt(below: annotations.count - i)) }
            var terms: [Int32] = []
            for t in annotations.prefix(take) {
                var term = t
                if options.imprecision > 0, rng.nextUnitDouble() < options.imprecision {
                    let parents = ontology.parentSlice(Int(t)).filter {
                        kb.inPhenotypeSubtree[Int($0)] && $0 != kb.phenotypeRoot.rawValue
                    }
                    if !parents.isEmpty { term = parents[rng.nextInt(below: parents.count)] }
                }
                if !terms.contains(term) { terms.append(term) }
            }
            if options.noiseTerms > 0 {
                for i in closure.indices { closure[i] = false }
                kb.markClosure(ofDisease: d, in: &closure)
                let candidates = kb.samplingUniverse.filter { !closure[Int($0)] && !terms.contains($0) }
                var added = 0
                var remaining = candidates
                while added < options.noiseTerms, !remaining.isEmpty {
                    let pick = rng.nextInt(below: remaining.count)
                    terms.append(remaining[pick])
                    remaining.swapAt(pick, remaining.count - 1)
                    remaining.removeLast()
                    added += 1
                }
            }
            let scored = try scoreAll(ResolvedQuery(terms: terms), options: rankingOptions)
            let input = scored.orderingInput
            let same = entries[group[d]] ?? [d]
            for (index, ordering) in orderings.enumerated() {
                // The diseases ahead of the first entry of the patient's, each counted once.
                let first = same.min { ordering.before($0, $1, input) }!
                var ahead = Set<Int>()
                for other in input.scores.indices where group[other] != group[d] && input.includes(other) && ordering.before(other, first, input) {
                    ahead.insert(group[other])
                }
                ranks[index].append(ahead.count + 1)
            }
            ids.append(kb.diseaseIDs[d])
        }
        return ranks.map { ranks in
            let denominator = Double(max(ranks.count, 1))
            func share(within k: Int) -> Double { Double(ranks.filter { $0 <= k }.count) / denominator }
            return RecallCheckReport(
                evaluated: ranks.count, rankedFirst: share(within: 1), inTopThree: share(within: 3), inTopTen: share(within: 10), ranks: ranks,
                diseaseIDs: ids)
        }
    }
}
