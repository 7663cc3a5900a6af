import Foundation
import PropertyBased
import Testing

@testable import PhenotypeRanking

/// The likelihood-ratio ranking (`LikelihoodRatioScoring`): present findings weighed by how often each disease shows
/// them, absent ones by how often it would, at every boundary of the rule.
@Suite struct LikelihoodRatioTests {
    static let byRatio = RankingOptions(method: .likelihoodRatio, maxResults: 20)
    static let parameters = LikelihoodRatioScoring.Parameters.standard

    /// `ExclusionTests.hpoa`'s seven diseases, ranked for A1 with `excluded`.
    static func ranked(_ terms: [String] = ["HP:0000101"], excluding excluded: [String]) throws -> [String: RankedDisease] {
        let result = try ExclusionTests.ranker().rank(terms: terms, excluding: excluded, options: byRatio)
        #expect(result.method == .likelihoodRatio)
        return Dictionary(uniqueKeysWithValues: result.results.map { ($0.diseaseID, $0) })
    }

    static func finding(_ disease: RankedDisease?, _ id: String) throws -> FindingRatio {
        try #require(disease?.likelihoodRatio?.findings.first { $0.term.id == id })
    }

    /// Excluding B1 (HP:0000201): each disease's weight is `1 − f` where it is annotated at or below B1, `r` elsewhere,
    /// over the mean weight of the seven diseases.
    @Test func anAbsentFindingWeighsByHowOftenTheDiseaseShowsIt() throws {
        let ranked = try Self.ranked(excluding: ["HP:0000201"])
        let weights: [String: Double] = [
            "OMIM:1": Self.parameters.leastAbsentShare,  // obligate: 1 − f floored at δ
            "OMIM:3": 1 - 2.0 / 22,  // 1 of 20 patients, read as (1 + 1) / (20 + 2)
            "OMIM:5": 0.5,  // no frequency given
            "OMIM:6": 1,  // annotated as never shown: its absence fits the disease best
            "OMIM:2": Self.parameters.absentOutsideSpectrum, "OMIM:4": Self.parameters.absentOutsideSpectrum,
            // B1 is more specific than OMIM:7's annotation B: not in its annotations.
            "OMIM:7": Self.parameters.absentOutsideSpectrum,
        ]
        let background = weights.values.reduce(0, +) / 7
        for (id, weight) in weights {
            let finding = try Self.finding(ranked[id], "HP:0000201")
            #expect(finding.excluded)
            #expect(isClose(finding.log10Ratio, log10(weight / background), tolerance: 1e-4), "\(id)")
            #expect((finding.readAt == nil) == (weight == Self.parameters.absentOutsideSpectrum), "\(id)")
        }
        // The obligate feature that is absent puts its disease last of those that show A1 (OMIM:2 shows only its sibling
        // A2, which costs it more); the one it never shows, first.
        let order = try ExclusionTests.ranker().rank(terms: ["HP:0000101"], excluding: ["HP:0000201"], options: Self.byRatio).results.map(\.diseaseID)
        #expect(order.first == "OMIM:6")
        #expect(order.dropLast().last == "OMIM:1" && order.last == "OMIM:2")
        #expect(order.firstIndex(of: "OMIM:3")! < order.firstIndex(of: "OMIM:5")!)
        #expect(order.firstIndex(of: "OMIM:5")! < order.firstIndex(of: "OMIM:4")!)
    }

    /// Excluding the general B excludes everything below it: OMIM:7 (B, obligate) and OMIM:1 (B1, obligate) are charged
    /// in full.
    @Test func anExcludedAncestorCoversItsDescendants() throws {
        let ranked = try Self.ranked(excluding: ["HP:0000200"])
        let obligate = try Self.finding(ranked["OMIM:1"], "HP:0000200")
        #expect(try Self.finding(ranked["OMIM:7"], "HP:0000200").log10Ratio == obligate.log10Ratio)
        #expect(obligate.share == 1)
        #expect(try Self.finding(ranked["OMIM:3"], "HP:0000200").log10Ratio > obligate.log10Ratio)
        #expect(try Self.finding(ranked["OMIM:4"], "HP:0000200").readAt == nil)
    }

    /// A present finding: `f / b` where the disease is annotated at or below it; elsewhere the best ratio of its
    /// ancestors, discounted by ρ.
    @Test func aPresentFindingWeighsByFrequencyAndFallsBackToItsAncestors() throws {
        let ranked = try Self.ranked(excluding: [])
        // A1 is annotated, without frequencies (read as 1), to six of the seven diseases: b = 6/7.
        let matched = try Self.finding(ranked["OMIM:4"], "HP:0000101")
        #expect(isClose(matched.log10Ratio, log10(7.0 / 6), tolerance: 1e-6))
        let matchedShare = try #require(matched.share)
        #expect(matched.readAt?.id == "HP:0000101" && isClose(matchedShare, 1, tolerance: 1e-6))
        // OMIM:2 has A2, a sibling: read at A, whose background is 1, times ρ.
        let sibling = try Self.finding(ranked["OMIM:2"], "HP:0000101")
        #expect(sibling.readAt?.id == "HP:0000100")
        #expect(isClose(sibling.log10Ratio, log10(Self.parameters.unmatchedFactor), tolerance: 1e-6))

        let hpoa =
            (["#version: 2024-01-01", Tiny.header] + [
                Tiny.row("OMIM:10", "Often", "HP:0000101", frequency: "9/10"),
                Tiny.row("OMIM:11", "Seldom", "HP:0000101", frequency: "1/10"),
                Tiny.row("OMIM:12", "Other", "HP:0000201"),
            ]).joined(separator: "\n") + "\n"
        let kb = try PhenotypeKnowledgeBase(obo: Tiny.obo, hpoa: hpoa)
        let null = try NullDistribution(
            scoring: .asymmetric, scores: Array(repeating: [[0.0, 0.0], [0.0, 0.0]], count: kb.diseaseCount), maxScore: log(4.0),
            binCount: 100, fingerprint: kb.fingerprint)
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        let result = try ranker.rank(terms: ["HP:0000101"], options: Self.byRatio)
        #expect(result.results.map(\.diseaseID) == ["OMIM:10", "OMIM:11", "OMIM:12"])
        let often = try Self.finding(result.results.first, "HP:0000101")
        let background = (10.0 / 12 + 2.0 / 12 + 0) / 3
        #expect(isClose(often.log10Ratio, log10((10.0 / 12) / background), tolerance: 1e-5))
        // The order adds the similarity's p-value as evidence: (1/p)^(w / ln 10).
        let first = try #require(result.results.first)
        #expect(isClose(try #require(first.likelihoodRatio).log10PValueFactor, -log10(first.pValue) * Self.parameters.pValueWeight / log(10)))
        // Equal pre-test probabilities: the post-test probabilities of every disease add up to 1, in the order.
        let posteriors = result.results.compactMap { $0.likelihoodRatio?.posteriorProbability }
        #expect(isClose(posteriors.reduce(0, +), 1, tolerance: 1e-6))
        #expect(posteriors == posteriors.sorted(by: >))
    }

    /// The similarity ranking knows nothing of ratios; the likelihood ratio charges no similarity penalty.
    @Test func eachMethodReportsItsOwnExplanation() throws {
        let ranker = try ExclusionTests.ranker()
        let similarity = try ranker.rank(terms: ["HP:0000101"], excluding: ["HP:0000201"], options: RankingOptions(maxResults: 20))
        #expect(similarity.method == .similarity)
        #expect(similarity.results.allSatisfy { $0.likelihoodRatio == nil })
        #expect(try Self.ranked(excluding: ["HP:0000201"]).values.allSatisfy { $0.penalty == 0 })
        // Constants outside their ranges are refused, not turned into infinite scores.
        for parameters in [
            LikelihoodRatioScoring.Parameters(unmatchedFactor: 0), LikelihoodRatioScoring.Parameters(absentOutsideSpectrum: 0.005),
            LikelihoodRatioScoring.Parameters(pValueWeight: -1),
        ] {
            #expect(throws: PhenotypeRankingError.self) {
                try ranker.rank(terms: ["HP:0000101"], options: RankingOptions(method: .likelihoodRatio, likelihoodRatio: parameters))
            }
        }
    }

    /// On the HPO fixture: the reported ratios, summed in `Double` from each disease's annotations, follow the order
    /// the search over all diseases made in `Float`; and adding an absent finding that a disease always shows never
    /// moves that disease up.
    @Test func explanationsFollowTheOrderAndAnAbsentObligateFindingNeverHelps() async throws {
        // The fixture's "very frequent" annotations made obligate, so that the rule's strongest case occurs.
        let hpoa = try Fixture.text("phenotype", "hpoa").replacingOccurrences(of: "\tHP:0040281\t", with: "\tHP:0040280\t")
        let kb = try PhenotypeKnowledgeBase(obo: Fixture.text("hp", "obo"), hpoa: hpoa)
        let null = try NullDistribution.build(for: kb, options: NullDistributionOptions(sampleCount: 200, maxQuerySize: 6, seed: 11))
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        var obligate: [(disease: Int, term: Int32)] = []
        for d in 0..<kb.diseaseCount {
            for (t, share) in zip(kb.annotationSlice(d), kb.shareSlice(d)) where share >= Float(1 - Self.parameters.leastAbsentShare) {
                obligate.append((d, t))
            }
        }
        try #require(!obligate.isEmpty)
        await propertyCheck(count: 60, input: Gen.int(in: 0..<obligate.count), Gen.uint64().array(of: 1...8)) { pick, picks in
            let (d, e) = obligate[pick]
            let query = unrelatedQuery(kb, avoiding: e, picks: picks)
            guard !query.isEmpty else { return }
            var options = Self.byRatio
            options.maxResults = 50
            guard let ranked = try? ranker.rank(terms: query, options: options) else { return }
            // The order reads the ratio times the p-value's factor.
            let ratios = ranked.results.compactMap { $0.likelihoodRatio.map { $0.log10Ratio + $0.log10PValueFactor } }
            #expect(ratios.count == ranked.results.count)
            for (higher, lower) in zip(ratios, ratios.dropFirst()) { #expect(higher >= lower - 1e-3) }

            let target = kb.diseaseIDs[d]
            let eID = kb.ontology.termIDs[Int(e)]
            guard let before = try? ranker.position(of: target, terms: query, options: Self.byRatio),
                let after = try? ranker.position(of: target, terms: query, excluding: [eID], options: Self.byRatio)
            else { return }
            #expect(after >= before, "\(target) excluding \(eID)")
        }
    }
}
