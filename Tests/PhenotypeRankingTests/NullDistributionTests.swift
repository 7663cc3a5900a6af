import Foundation
import Testing

@testable import PhenotypeRanking

@Suite struct NullDistributionTests {
    @Test func seededBuildIsDeterministic() throws {
        let kb = try Fixture.knowledgeBase()
        let options = NullDistributionOptions(sampleCount: 1_000, maxQuerySize: 5, binCount: 512, seed: 99)
        let first = try NullDistribution.build(for: kb, options: options)
        let second = try NullDistribution.build(for: kb, options: options)
        var parallel = options
        parallel.concurrency = 3
        let third = try NullDistribution.build(for: kb, options: parallel)
        #expect(first == second)
        #expect(first.encoded() == second.encoded())
        #expect(first == third)
        var reseeded = options
        reseeded.seed = 100
        #expect(try NullDistribution.build(for: kb, options: reseeded) != first)
    }

    @Test func symmetricBuildIsDeterministicAcrossThreads() throws {
        let kb = try Fixture.knowledgeBase()
        let options = NullDistributionOptions(scoring: .symmetric, sampleCount: 200, maxQuerySize: 4, seed: 5)
        var parallel = options
        parallel.concurrency = 2
        #expect(try NullDistribution.build(for: kb, options: options) == NullDistribution.build(for: kb, options: parallel))
    }

    /// The random sequences come from xoshiro256** seeded through SplitMix64; pin the first
    /// outputs so a change of generator cannot go unnoticed (stored nulls would silently differ).
    @Test func generatorIsPinned() {
        var splitMix = SplitMix64(seed: 0)
        #expect(splitMix.next() == 0xE220_A839_7B1D_CDAF)
        var rng = Xoshiro256StarStar(seed: 42)
        let first = (0..<3).map { _ in rng.next() }
        var again = Xoshiro256StarStar(seed: 42)
        #expect((0..<3).map { _ in again.next() } == first)
        var bounded = Xoshiro256StarStar(seed: 1)
        let draws = (0..<10_000).map { _ in bounded.nextInt(below: 7) }
        #expect(Set(draws) == Set(0..<7))
    }

    /// Universe below HP:0000118 = {A, A1, A2, B, B1, B2, AB}: 7 terms. With queries of all 7
    /// terms every random query is the same set, so each disease's null is a single value equal to
    /// the score of that query: p = (N + 1)/(N + 1) = 1 for it, and a higher score gets 1/(N + 1).
    @Test func exhaustiveQuerySizeGivesExactPValues() throws {
        let kb = try Tiny.knowledgeBase()
        #expect(kb.samplingUniverseSize == 7)
        let null = try NullDistribution.build(for: kb, options: NullDistributionOptions(sampleCount: 50, maxQuerySize: 7))
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        let all = ["HP:0000100", "HP:0000101", "HP:0000102", "HP:0000200", "HP:0000201", "HP:0000202", "HP:0000300"]
        let result = try ranker.rank(terms: all)
        #expect(result.results.allSatisfy { $0.pValue == 1 })
        let d = try #require(kb.diseaseIndex(of: "OMIM:1"))
        let score = try #require(result.results.first { $0.diseaseID == "OMIM:1" }).score
        #expect(null.pValue(diseaseIndex: d, querySize: 7, score: score + 0.01) == 1.0 / 51.0)
        #expect(null.survivalCount(diseaseIndex: d, querySize: 7, score: score) == 50)
    }

    /// Size 1, OMIM:2 {A2}: a random term q scores max IC over q's ancestors in {A2, A, 118, All}:
    /// A, A1, AB → ln(4/3); A2 → ln4; B, B1, B2 → 0. The query {A1} scores ln(4/3), so
    /// P(null ≥ observed) = 4/7; with N = 20,000 the estimate is within ±0.02 (≈ 6 SD).
    @Test func sampledPValueMatchesTheExactProbability() throws {
        let kb = try Tiny.knowledgeBase()
        let null = try NullDistribution.build(for: kb, options: NullDistributionOptions(sampleCount: 20_000, maxQuerySize: 2))
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        let result = try ranker.rank(terms: ["HP:0000101"])
        let omim2 = try #require(result.results.first { $0.diseaseID == "OMIM:2" })
        #expect(isClose(omim2.score, Tiny.ln4over3))
        #expect(abs(omim2.pValue - 4.0 / 7.0) < 0.02)
    }

    @Test func encodeDecodeRoundTripAndCorruption() throws {
        let kb = try Fixture.knowledgeBase()
        let null = try NullDistribution.build(for: kb, options: NullDistributionOptions(sampleCount: 300, maxQuerySize: 3))
        let bytes = null.encoded()
        #expect(Array(bytes.prefix(4)) == Array("PRNL".utf8))
        let decoded = try NullDistribution(decoding: bytes)
        #expect(decoded == null)
        #expect(try NullDistribution(decoding: null.encodedData()) == null)
        var corrupted = bytes
        corrupted[60] ^= 0x01
        #expect { try NullDistribution(decoding: corrupted) } throws: {
            ($0 as? PhenotypeRankingError)?.code == .invalidEncoding
        }
        #expect { try NullDistribution(decoding: Array(bytes.dropLast(3))) } throws: {
            ($0 as? PhenotypeRankingError)?.code == .invalidEncoding
        }
    }

    /// Every disease's null distribution by hand, for sizes 1 and 2, in both scorings: 0 for one term, and 0.1, 0.2,
    /// 0.3 and 0.4 for two.
    static func sizeTwoNulls(_ kb: PhenotypeKnowledgeBase) throws -> (asymmetric: NullDistribution, symmetric: NullDistribution) {
        let scores = (0..<kb.diseaseCount).map { _ in [[0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]] }
        let build = { (scoring: ScoringMode) in
            try NullDistribution(scoring: scoring, scores: scores, maxScore: Tiny.ln4, binCount: 10_000, fingerprint: kb.fingerprint)
        }
        return (try build(.asymmetric), try build(.symmetric))
    }

    /// A hand-made size-2 distribution of one disease, scores 0.1, 0.2, 0.3, 0.4 (mean 0.25). A query of 8 terms in
    /// asymmetric scoring is read √(8/2) = 2 times as far from the mean: 0.3 at 0.35 (one null score at or above it,
    /// p = 2/5, where reading the size-2 distribution as it is gave 3/5), 0.2 at 0.15 (p = 4/5 either way), 0.26 at
    /// 0.27 (p = 3/5). Symmetric scoring is not stretched.
    @Test(arguments: [(0.3, 0.4, 0.6), (0.2, 0.8, 0.8), (0.26, 0.6, 0.6)])
    func longerAsymmetricQueriesAreStretchedAboutTheMean(score: Double, stretched: Double, asTheyAre: Double) throws {
        let (asymmetric, symmetric) = try Self.sizeTwoNulls(try Tiny.knowledgeBase())
        #expect(abs(asymmetric.largestSizeMeans[0] - 0.25) < 0.001)
        #expect(isClose(asymmetric.pValue(diseaseIndex: 0, querySize: 8, score: score), stretched))
        #expect(isClose(asymmetric.pValue(diseaseIndex: 0, querySize: 2, score: score), asTheyAre))
        #expect(isClose(symmetric.pValue(diseaseIndex: 0, querySize: 8, score: score), asTheyAre))
    }

    /// Asymmetric p-values are warning-free up to the size the stretch was measured for; symmetric ones up to the
    /// largest size sampled. Beyond, a ranking says so.
    @Test func theWarningMarksSizesNoMeasurementCovers() throws {
        let kb = try Tiny.knowledgeBase()
        let (asymmetric, symmetric) = try Self.sizeTwoNulls(kb)
        let measured = NullDistribution.extrapolationMeasuredUpTo
        #expect(asymmetric.covers(querySize: measured) && !asymmetric.covers(querySize: measured + 1))
        #expect(symmetric.covers(querySize: 2) && !symmetric.covers(querySize: 3))
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [asymmetric, symmetric])
        let terms = ["HP:0000101", "HP:0000102", "HP:0000202"]
        #expect(try ranker.rank(terms: terms, options: RankingOptions(scoring: .asymmetric)).warnings.isEmpty)
        let symmetricResult = try ranker.rank(terms: terms, options: RankingOptions(scoring: .symmetric))
        #expect(symmetricResult.warnings == [.querySizeExceedsNullModel(size: 3, used: 2)] && symmetricResult.nullQuerySize == 2)
    }

    @Test func invalidOptionsAreRejected() throws {
        let kb = try Tiny.knowledgeBase()
        for options in [
            NullDistributionOptions(sampleCount: 0),
            NullDistributionOptions(sampleCount: 70_000),
            NullDistributionOptions(maxQuerySize: 8),  // only 7 terms to sample from
            NullDistributionOptions(binCount: 1),
        ] {
            #expect { try NullDistribution.build(for: kb, options: options) } throws: {
                ($0 as? PhenotypeRankingError)?.code == .invalidOption
            }
        }
    }
}
