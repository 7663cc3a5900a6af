import Foundation
import PropertyBased
import Testing

@testable import PhenotypeRanking

@Suite struct InformationContentTests {
    @Test func handComputedInformationContent() throws {
        let kb = try Tiny.knowledgeBase()
        #expect(kb.diseaseCount == 4)
        #expect(isClose(kb.maxInformationContent, Tiny.ln4))
        let expected: [String: Double] = [
            "HP:0000001": 0, "HP:0000118": 0,
            "HP:0000100": Tiny.ln4over3,  // 3 of 4 diseases: −ln(3/4)
            "HP:0000101": Tiny.ln2,  // OMIM:1, OMIM:4
            "HP:0000102": Tiny.ln4,  // OMIM:2
            "HP:0000200": Tiny.ln2,  // OMIM:1, OMIM:3
            "HP:0000201": Tiny.ln2,
            "HP:0000202": Tiny.ln4,  // OMIM:3
            "HP:0000300": Tiny.ln4,  // unannotated → ln D
        ]
        for (id, ic) in expected {
            #expect(isClose(kb.informationContent(of: try term(kb, id)), ic), "\(id)")
        }
        #expect(kb.diseaseCountByTerm[try term(kb, "HP:0000100").int] == 3)
    }

    @Test func resnikSimilarityUsesTheMostInformativeCommonAncestor() throws {
        let kb = try Tiny.knowledgeBase()
        func sim(_ a: String, _ b: String) throws -> Double { kb.similarity(try term(kb, a), try term(kb, b)) }
        #expect(isClose(try sim("HP:0000101", "HP:0000101"), Tiny.ln2))  // MICA = A1 itself
        #expect(isClose(try sim("HP:0000101", "HP:0000102"), Tiny.ln4over3))  // MICA = A
        #expect(isClose(try sim("HP:0000101", "HP:0000202"), 0))  // MICA = Phenotypic abnormality
        // AB has two parents: with A2 the MICA is A, with B2 it is B.
        #expect(isClose(try sim("HP:0000300", "HP:0000102"), Tiny.ln4over3))
        #expect(isClose(try sim("HP:0000300", "HP:0000202"), Tiny.ln2))
        let mica = try #require(kb.mostInformativeCommonAncestor(try term(kb, "HP:0000300"), try term(kb, "HP:0000202")))
        #expect(kb.ontology.id(of: mica.term) == "HP:0000200")
    }

    /// The null builder's match table, the per-term best match of a ranking and the common ancestors of the exact
    /// rescoring agree with pairwise MICA on every pair of terms.
    @Test func fastPathsAgreeWithPairwiseSimilarity() throws {
        for kb in [try Tiny.knowledgeBase(), try Fixture.knowledgeBase()] {
            let phenotypes = (0..<kb.termCount).map(Int32.init).filter { kb.inPhenotypeSubtree[Int($0)] }
            var table = MatchTable(termCount: kb.termCount, width: phenotypes.count)
            for (i, q) in phenotypes.enumerated() { table.mark(kb, term: q, column: i) }
            let ancestry = QueryAncestry(knowledgeBase: kb, query: phenotypes)
            var common = [(term: Int32, value: Double)](repeating: (-1, 0), count: phenotypes.count)
            for t in phenotypes {
                var shared = ancestry.noAncestors
                ancestry.commonAncestors(of: t, kb, into: &common, shared: &shared)
                for (i, q) in phenotypes.enumerated() {
                    #expect(table.values[(i / 8) * kb.termCount + Int(t)][i % 8] == kb.mica(q, t).1)
                    let exact = kb.mica64(q, t)
                    #expect(common[i].term == exact.0 && common[i].value == exact.1)
                    // The walk up `t` notes exactly the query terms above it.
                    #expect(ancestry.contains(q, in: shared) == kb.ontology.isAncestor(q, of: Int(t)))
                }
            }
            for q in phenotypes.prefix(40) {
                let query = [q, phenotypes[phenotypes.count / 2]]
                let byTerm = kb.bestMatchByTerm(query: query)
                for t in phenotypes { #expect(byTerm[Int(t)] == query.map { kb.mica($0, t).1 }.max()) }
            }
        }
    }
}

@Suite struct ScoringTests {
    /// Query {A1, B2}. Asymmetric sim(Q→D) = mean over q of max over disease terms of IC(MICA):
    /// OMIM:1 {A1, B1}: A1→A1 ln2; B2→B1 via B ln2            → (ln2 + ln2)/2 = ln2
    /// OMIM:2 {A2}:     A1→A2 via A ln(4/3); B2→A2 0           → ln(4/3)/2 ≈ 0.14384
    /// OMIM:3 {B1, B2}: A1→ 0; B2→B2 ln4                        → ln4/2 = ln2
    /// OMIM:4 {A1}:     A1→A1 ln2; B2→ 0                        → ln2/2 ≈ 0.34657
    /// Symmetric adds sim(D→Q) = mean over disease terms of max over q:
    /// OMIM:1: A1→ln2, B1→ln2 (via B)       → ln2;          (ln2 + ln2)/2      = ln2       ≈ 0.69315
    /// OMIM:2: A2→ln(4/3)                  → ln(4/3);      (0.14384 + 0.28768)/2 ≈ 0.21576
    /// OMIM:3: B1→ln2, B2→ln4              → 1.5 ln2;      (ln2 + 1.5 ln2)/2  = 1.25 ln2  ≈ 0.86643
    /// OMIM:4: A1→ln2                      → ln2;          (ln2/2 + ln2)/2    = 0.75 ln2  ≈ 0.51986
    static let asymmetric = ["OMIM:1": Tiny.ln2, "OMIM:2": Tiny.ln4over3 / 2, "OMIM:3": Tiny.ln2, "OMIM:4": Tiny.ln2 / 2]
    static let symmetric = [
        "OMIM:1": Tiny.ln2, "OMIM:2": (Tiny.ln4over3 / 2 + Tiny.ln4over3) / 2,
        "OMIM:3": 1.25 * Tiny.ln2, "OMIM:4": 0.75 * Tiny.ln2,
    ]

    @Test(arguments: [ScoringMode.asymmetric, .symmetric])
    func handComputedScores(mode: ScoringMode) throws {
        let kb = try Tiny.knowledgeBase()
        let scores = kb.similarityScores(
            query: [try term(kb, "HP:0000101").rawValue, try term(kb, "HP:0000202").rawValue], mode: mode)
        let expected = mode == .asymmetric ? Self.asymmetric : Self.symmetric
        for (id, value) in expected {
            #expect(isClose(Double(scores[try #require(kb.diseaseIndex(of: id))]), value), "\(id)")
        }
    }

    /// Hand-made null distribution (N = 4 per disease and size; maxScore ln 4, 10,000 bins of
    /// width 1.4e-4, so no two listed values share a bin). For the size-2 query {A1, B2}:
    /// OMIM:1 score ln2 ≈ 0.693 vs [0.1, 0.2, 0.3, 0.4]: 0 null scores ≥ → p = (0+1)/(4+1) = 0.2
    /// OMIM:3 score ln2 vs the same → p = 0.2
    /// OMIM:2 score 0.14384 vs [0.0, 0.1, 0.2, 0.3]: 2 ≥ → p = 3/5 = 0.6
    /// OMIM:4 score 0.34657 vs [0.0, 0.35, 0.5, 0.9]: 3 ≥ → p = 4/5 = 0.8
    /// Order: score + 1.5 · (−log10 p) descending (`RankingOrdering.standard`): OMIM:1 and OMIM:3 0.693 + 1.048 =
    /// 1.742 (a tie, then id), OMIM:4 0.347 + 0.145 = 0.492, OMIM:2 0.144 + 0.333 = 0.477 → 1, 3, 4, 2: OMIM:4 fits
    /// the query better and comes first although its p-value is higher.
    /// Benjamini–Hochberg, m = 4, by p-value: p·m/rank = 0.8, 0.4, 0.8, 0.8; running minimum from the end
    /// → 0.4, 0.4, 0.8 (OMIM:2), 0.8 (OMIM:4).
    static func handNullRanker() throws -> PhenotypeRanker {
        let kb = try Tiny.knowledgeBase()
        let sizeOne = [0.0, 0.0, 0.0, 0.0]
        let null = try NullDistribution(
            scoring: .asymmetric,
            scores: [
                [sizeOne, [0.1, 0.2, 0.3, 0.4]],  // OMIM:1
                [sizeOne, [0.0, 0.1, 0.2, 0.3]],  // OMIM:2
                [sizeOne, [0.1, 0.2, 0.3, 0.4]],  // OMIM:3
                [sizeOne, [0.0, 0.35, 0.5, 0.9]],  // OMIM:4
            ],
            maxScore: Tiny.ln4, binCount: 10_000, fingerprint: kb.fingerprint)
        return try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
    }

    @Test func handComputedRankingAndPValues() throws {
        let ranker = try Self.handNullRanker()
        let result = try ranker.rank(terms: ["HP:0000101", "HP:0000202"])
        #expect(result.results.map(\.diseaseID) == ["OMIM:1", "OMIM:3", "OMIM:4", "OMIM:2"])
        #expect(result.results.map(\.rank) == [1, 2, 3, 4])
        let p = result.results.map(\.pValue)
        let adjusted = result.results.map(\.adjustedPValue)
        for (value, expected) in zip(p, [0.2, 0.2, 0.8, 0.6]) { #expect(isClose(value, expected)) }
        for (value, expected) in zip(adjusted, [0.4, 0.4, 0.8, 0.8]) { #expect(isClose(value, expected)) }
        #expect(isClose(result.results[0].score, Tiny.ln2))
        #expect(result.warnings.isEmpty)
        #expect(result.nullQuerySize == 2 && result.diseaseCount == 4)

        // The ranking's BH equals the standalone function on all p-values.
        let standalone = benjaminiHochberg(p)
        for (a, b) in zip(standalone, adjusted) { #expect(isClose(a, b)) }
    }

    @Test func matchesExplainTheScore() throws {
        let ranker = try Self.handNullRanker()
        let top = try #require(try ranker.rank(terms: ["HP:0000101", "HP:0000202"]).results.first)
        #expect(top.diseaseID == "OMIM:1")
        #expect(top.matches.map(\.queryTerm.id) == ["HP:0000101", "HP:0000202"])
        #expect(top.matches.map(\.diseaseTerm.id) == ["HP:0000101", "HP:0000201"])
        #expect(top.matches.map(\.commonAncestor.id) == ["HP:0000101", "HP:0000200"])
        #expect(top.matches.allSatisfy { isClose($0.informationContent, Tiny.ln2) })
        let mean = top.matches.map(\.informationContent).reduce(0, +) / Double(top.matches.count)
        #expect(isClose(mean, top.score))
    }

    /// Excluding B1 (IC ln2) from the query {A1, B2} (|Q| = 2), every annotation charged in full (the flat rule):
    /// OMIM:1 and OMIM:3 carry B1, so each loses ln2 / 2: OMIM:1 ln2 → ln2/2, OMIM:3 ln2 → ln2/2. OMIM:2 and
    /// OMIM:4 are unchanged.
    @Test func exclusionPenalty() throws {
        let ranker = try Self.handNullRanker()
        let flat = RankingOptions(exclusionPenaltyWeight: 1, exclusionByFrequency: false)
        let result = try ranker.rank(terms: ["HP:0000101", "HP:0000202"], excluding: ["HP:0000201"], options: flat)
        let byID = Dictionary(uniqueKeysWithValues: result.results.map { ($0.diseaseID, $0) })
        #expect(isClose(try #require(byID["OMIM:1"]).score, Tiny.ln2 / 2))
        #expect(isClose(try #require(byID["OMIM:1"]).penalty, Tiny.ln2 / 2))
        #expect(isClose(try #require(byID["OMIM:3"]).score, Tiny.ln2 / 2))
        #expect(isClose(try #require(byID["OMIM:2"]).score, Tiny.ln4over3 / 2))
        #expect(try #require(byID["OMIM:4"]).penalty == 0)
        #expect(byID["OMIM:1"]?.excludedTermsPresent.map(\.id) == ["HP:0000201"])
        #expect(result.excludedTerms.map(\.id) == ["HP:0000201"])
        // Excluding the parent B penalises the same diseases (annotated with a descendant).
        let parent = try ranker.rank(terms: ["HP:0000101", "HP:0000202"], excluding: ["HP:0000200"], options: flat)
        #expect(parent.results.filter { $0.penalty > 0 }.map(\.diseaseID).sorted() == ["OMIM:1", "OMIM:3"])
    }

    @Test func symmetricRankingOrdersByItsOwnScores() throws {
        let kb = try Tiny.knowledgeBase()
        // A flat null (N = 2 zeros): every positive score has p = (0 + 1)/(2 + 1) = 1/3, so the
        // order is by the symmetric scores computed in the comment above: 3, 1, 4, 2.
        let zeros = [[0.0, 0.0], [0.0, 0.0]]
        let null = try NullDistribution(
            scoring: .symmetric, scores: Array(repeating: zeros, count: 4), maxScore: Tiny.ln4, binCount: 1000,
            fingerprint: kb.fingerprint)
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        let result = try ranker.rank(terms: ["HP:0000101", "HP:0000202"], options: RankingOptions(scoring: .symmetric))
        #expect(result.results.map(\.diseaseID) == ["OMIM:3", "OMIM:1", "OMIM:4", "OMIM:2"])
        #expect(isClose(result.results[0].score, 1.25 * Tiny.ln2))
        #expect(result.results.allSatisfy { isClose($0.pValue, 1.0 / 3.0) })
        #expect {
            try ranker.rank(terms: ["HP:0000101"], options: RankingOptions(scoring: .asymmetric))
        } throws: { ($0 as? PhenotypeRankingError)?.code == .nullDistributionMissing }
    }

    @Test func queryWarningsAndErrors() throws {
        let ranker = try Self.handNullRanker()
        let result = try ranker.rank(
            terms: ["HP:0000999", "hp:0000101", "HP:7654321", "HP:0000103", "HP:0000005", "HP:0000998", " HP:0000202 "],
            excluding: ["HP:0000101"])
        #expect(result.queryTerms.map(\.id) == ["HP:0000101", "HP:0000102", "HP:0000202"])
        #expect(
            result.warnings == [
                .obsoleteTermReplaced("HP:0000999", replacement: "HP:0000101"),
                .duplicateTerm("hp:0000101"),
                .unknownTerm("HP:7654321"),
                .alternativeIDMapped("HP:0000103", primary: "HP:0000102"),
                .notPhenotypicAbnormality("HP:0000005"),
                .obsoleteWithoutReplacement("HP:0000998", consider: ["HP:0000202"]),
                .excludedTermAlsoQueried("HP:0000101"),
            ])
        #expect(result.nullQuerySize == 2)

        #expect {
            try ranker.rank(terms: [])
        } throws: { ($0 as? PhenotypeRankingError)?.code == .emptyQuery }
        #expect {
            try ranker.rank(terms: ["HP:7654321", "nonsense"])
        } throws: { error in
            let error = error as? PhenotypeRankingError
            return error?.code == .noUsableQueryTerms && error?.warnings.count == 2
        }
    }

    @Test func maxResultsLimitsTheList() throws {
        let ranker = try Self.handNullRanker()
        let result = try ranker.rank(terms: ["HP:0000101", "HP:0000202"], options: RankingOptions(maxResults: 2))
        #expect(result.results.map(\.diseaseID) == ["OMIM:1", "OMIM:3"])
        #expect(result.diseaseCount == 4)
        #expect {
            try ranker.rank(terms: ["HP:0000101"], options: RankingOptions(exclusionPenaltyWeight: -1))
        } throws: { ($0 as? PhenotypeRankingError)?.code == .invalidOption }
    }

    @Test func nullFromOtherDataIsRejected() throws {
        let kb = try Tiny.knowledgeBase()
        let null = try NullDistribution(
            scoring: .asymmetric, scores: Array(repeating: [[0.0]], count: 4), maxScore: 1, binCount: 10,
            fingerprint: kb.fingerprint &+ 1)
        #expect {
            try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        } throws: { ($0 as? PhenotypeRankingError)?.code == .nullDistributionMismatch }
    }

    /// Query {A1}: known = A1 and its ancestors. Candidate terms and the diseases carrying them:
    /// B and B1 {OMIM:1, OMIM:3} → split 2/4, H = 1 bit; B1 kept (same IC ln2, deeper than B);
    /// A2 {OMIM:2} and B2 {OMIM:3} → 1/4, H(0.25) ≈ 0.8113 bits; both IC ln4 → by id.
    @Test func suggestionsSplitTheCandidates() throws {
        let ranker = try Self.handNullRanker()
        let result = try ranker.rank(terms: ["HP:0000101"])
        let suggestions = ranker.suggestPhenotypes(after: result, candidateCount: 4, limit: 5)
        #expect(suggestions.map(\.term.id) == ["HP:0000201", "HP:0000102", "HP:0000202"])
        #expect(isClose(suggestions[0].splitEntropy, 1))
        #expect(isClose(suggestions[1].splitEntropy, -(0.25 * log2(0.25) + 0.75 * log2(0.75))))
        #expect(Set(suggestions[0].presentIn) == ["OMIM:1", "OMIM:3"])
        #expect(Set(suggestions[0].absentIn) == ["OMIM:2", "OMIM:4"])
        // With B1 excluded, B1 and its descendants are no longer suggested; B still splits.
        let excluded = try ranker.rank(terms: ["HP:0000101"], excluding: ["HP:0000201"])
        let next = ranker.suggestPhenotypes(after: excluded, candidateCount: 4, limit: 5)
        #expect(!next.contains { $0.term.id == "HP:0000201" })
        #expect(next.contains { $0.term.id == "HP:0000200" })
    }
}

@Suite struct BenjaminiHochbergTests {
    /// p = [0.01, 0.04, 0.03, 0.005, 0.2], m = 5. Sorted: 0.005, 0.01, 0.03, 0.04, 0.2.
    /// p·m/rank: 0.025, 0.025, 0.05, 0.05, 0.2; running min from the end: same.
    @Test func handComputedExample() {
        let adjusted = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.2])
        for (a, e) in zip(adjusted, [0.025, 0.05, 0.05, 0.025, 0.2]) { #expect(isClose(a, e, tolerance: 1e-12)) }
    }

    /// p = [0.5, 0.9, 0.04], m = 3. Sorted 0.04, 0.5, 0.9 → 0.12, 0.75, 0.9; min from the end →
    /// 0.12, 0.75, 0.9. And a capped case: [0.6, 0.6] → 1.2/1 capped, 0.6·2/2 = 0.6 → both 0.6.
    @Test func monotoneAndCapped() {
        for (a, e) in zip(benjaminiHochberg([0.5, 0.9, 0.04]), [0.75, 0.9, 0.12]) { #expect(isClose(a, e, tolerance: 1e-12)) }
        #expect(benjaminiHochberg([0.6, 0.6]) == [0.6, 0.6])
        #expect(benjaminiHochberg([1.0]) == [1.0])
        #expect(benjaminiHochberg([]) == [])
    }
}

/// A ranking adjusts only the p-values it reports, and each is what adjusting every disease's p-value gives.
@Suite struct SurvivalGroupTests {
    @Test("the adjusted p-values of some survival counts are those of the full Benjamini–Hochberg procedure")
    func adjustedAtSomeCountsIsTheFullProcedure() async {
        await propertyCheck(count: 300, input: Gen.int(in: 1...60), Gen.int(in: 1...40).array(of: 1...80), Gen.int(in: 0...79).array(of: 1...20)) {
            sampleCount, draws, picks in
            let survival = draws.map { UInt32($0 % (sampleCount + 1)) }
            let groups = SurvivalGroups(survival: survival, sampleCount: sampleCount)
            let full = benjaminiHochberg(survival.map { (Double($0) + 1) / Double(sampleCount + 1) })
            let asked = picks.map { $0 % survival.count }
            let adjusted = groups.adjustedPValues(at: asked.map { survival[$0] })
            for (value, d) in zip(adjusted, asked) { #expect(isClose(value, full[d], tolerance: 1e-12), "\(survival) at \(d)") }
        }
        // Strong evidence stops the walk early; the answer is still the full procedure's.
        let strong = SurvivalGroups(survival: [0, 0, 0, 1, 900, 1000], sampleCount: 1000)
        #expect(strong.adjustedPValues(at: [0, 1]).map { ($0 * 1e6).rounded() } == [1998, 2997])
        #expect(strong.adjustedPValues(at: []) == [])
    }
}

/// The post-test probabilities' normaliser, computed eight at a time in single precision.
@Suite struct WeightSumTests {
    @Test("e^x in single precision is within 3e-7 of e^x, and 0 below −40")
    func exponentials() {
        var x: Float = -40
        while x <= 0 {
            let lanes = LikelihoodRatioContext.exponentials(SIMD8(repeating: x))
            #expect(abs(Double(lanes[0]) / exp(Double(x)) - 1) < 3e-7, "\(x)")
            x += 0.001_37
        }
        let below = LikelihoodRatioContext.exponentials(SIMD8(-40.001, -1e30, -.infinity, .nan, 0, -1, -41, -100))
        #expect(below == SIMD8(0, 0, 0, 0, 1, below[5], 0, 0) && abs(below[5] - 0.367_879_44) < 1e-7)
    }

    @Test("the normaliser is Σ e^(key − largest) over the diseases taking part, within 1e-6")
    func sum() async {
        await propertyCheck(count: 200, input: Gen.double(in: -60...0).array(of: 1...70), Gen.bool.array(of: 70...70)) { keys, taking in
            // The largest is that of a disease taking part, as in a ranking: the sum is at least its own 1.
            var included = Array(taking.prefix(keys.count))
            included[keys.indices.max { keys[$0] < keys[$1] }!] = true
            let largest = zip(keys, included).filter(\.1).map(\.0).max()!
            let expected = zip(keys, included).filter { $0.1 && $0.0 > largest - 40 }.reduce(0.0) { $0 + exp($1.0 - largest) }
            let all = keys.filter { $0 > largest - 40 }.reduce(0.0) { $0 + exp($1 - largest) }
            #expect(abs(LikelihoodRatioContext.weightSum(keys, largest: largest, included: included) / expected - 1) < 1e-6)
            #expect(abs(LikelihoodRatioContext.weightSum(keys, largest: largest, included: nil) / all - 1) < 1e-6)
        }
    }
}

/// The orderings a ranking can be put in: each total and consistent.
@Suite struct RankingOrderingTests {
    static let orderings: [RankingOrdering] = [
        .pValueThenScore, .score, .scoreThenPValue, .combined(weight: 1.5), .pValueFloorThenScore(floor: 0.01),
    ]

    /// A random ranking of `count` diseases: scores on a coarse grid (so ties happen) and survival counts out of 99.
    static func ranking(count: Int, seed: UInt64) -> OrderingInput {
        var random = Xoshiro256StarStar(seed: seed)
        let scores = (0..<count).map { _ in Float(random.nextInt(below: 8)) / 4 }
        let survival = (0..<count).map { _ in UInt32(random.nextInt(below: 100)) }
        return OrderingInput(scores: scores, survival: survival, evidence: OrderingInput.evidence(sampleCount: 99))
    }

    @Test("every ordering is a strict total order: top is the sorted prefix, and positions are 1...n once each")
    func totalOrders() {
        for seed in 1...20 {
            let ranking = Self.ranking(count: 60, seed: UInt64(seed))
            for ordering in Self.orderings {
                let sorted = ranking.scores.indices.sorted { ordering.before($0, $1, ranking) }
                #expect(ordering.top(10, ranking).map(Int.init) == Array(sorted.prefix(10)), "\(ordering)")
                let positions = ranking.scores.indices.map { ordering.position(of: $0, ranking) }
                #expect(Set(positions) == Set(1...60), "\(ordering)")
                #expect(sorted.enumerated().allSatisfy { positions[$0.element] == $0.offset + 1 }, "\(ordering)")
            }
        }
    }

    @Test("combined: a better score outweighs a worse p-value only by more than the weighted evidence between them")
    func combinedTradeOff() {
        // p = 1/100 (evidence 2) against p = 10/100 (evidence 1): weight 1.5 gives the first 1.5 points of score.
        let evidence = OrderingInput.evidence(sampleCount: 99)
        let ranking = OrderingInput(scores: [1.0, 2.4, 2.6], survival: [0, 9, 9], evidence: evidence)
        let ordering = RankingOrdering.combined(weight: 1.5)
        #expect(ordering.before(0, 1, ranking))  // 1.0 + 3.0 > 2.4 + 1.5
        #expect(ordering.before(2, 0, ranking))  // 2.6 + 1.5 > 1.0 + 3.0
        #expect(abs(evidence[0] - 2) < 1e-12 && abs(evidence[9] - 1) < 1e-12)
    }
}
