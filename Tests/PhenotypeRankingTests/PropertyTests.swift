import Foundation
import PropertyBased
import Testing

@testable import PhenotypeRanking

@Suite struct PropertyTests {
    /// For any disease and any non-empty subset of its own annotations, in asymmetric mode the
    /// disease scores the maximum possible for that query (each q matches itself with IC(q), and
    /// no MICA of q can exceed IC(q)), so no disease scores higher; every score lies in
    /// [0, max IC], in both modes.
    @Test func ownAnnotationsScoreTiedFirstAndScoresAreBounded() async throws {
        let kb = try Fixture.knowledgeBase()
        let maxIC = Float(kb.maxInformationContent) + 1e-5
        await propertyCheck(count: 200, input: Gen.int(in: 0..<kb.diseaseCount), Gen.uint64().array(of: 1...8)) { d, picks in
            let own = Array(kb.annotationSlice(d))
            var query: [Int32] = []
            for pick in picks where !query.contains(own[Int(pick % UInt64(own.count))]) {
                query.append(own[Int(pick % UInt64(own.count))])
            }
            var scores = kb.similarityScores(query: query, mode: .asymmetric)
            let best = scores.max()!
            #expect(scores[d] == best)
            let expected = query.map { kb.ic[Int($0)] }.reduce(0, +) / Float(query.count)
            #expect(abs(scores[d] - expected) < 1e-5)
            #expect(scores.allSatisfy { $0 >= 0 && $0 <= maxIC })
            scores = kb.similarityScores(query: query, mode: .symmetric)
            #expect(scores.allSatisfy { $0 >= 0 && $0 <= maxIC })
        }
    }

    /// For any query, every disease's score is, to the bit, the definition computed pair by pair with the sums in the
    /// null builders' order (so p-values read a query's score as they read a random one's); and the reported,
    /// exact score is the same definition in double precision.
    @Test func scoresAreTheDefinitionToTheBit() async throws {
        let ranker = try Fixture.ranker(sampleCount: 200)
        let kb = ranker.knowledgeBase
        let universe = kb.samplingUniverse
        await propertyCheck(count: 60, input: Gen.uint64().array(of: 1...12)) { picks in
            var query: [Int32] = []
            for pick in picks where !query.contains(universe[Int(pick % UInt64(universe.count))]) {
                query.append(universe[Int(pick % UInt64(universe.count))])
            }
            let ancestry = QueryAncestry(knowledgeBase: kb, query: query)
            for mode in ScoringMode.allCases {
                let scores = kb.similarityScores(query: query, mode: mode)
                for d in 0..<kb.diseaseCount {
                    let annotations = Array(kb.annotationSlice(d))
                    var sum: Float = 0
                    for q in query { sum += annotations.map { kb.mica(q, $0).1 }.max()! }
                    var expected = sum / Float(query.count)
                    var sum64 = 0.0
                    for q in query { sum64 += annotations.map { kb.mica64(q, $0).1 }.max()! }
                    var exact = sum64 / Double(query.count)
                    if mode == .symmetric {
                        var reverse: Float = 0
                        var reverse64 = 0.0
                        for t in annotations {
                            reverse += query.map { kb.mica($0, t).1 }.max()!
                            reverse64 += query.map { kb.mica64($0, t).1 }.max()!
                        }
                        expected = (expected + reverse / Float(annotations.count)) / 2
                        exact = (exact + reverse64 / Double(annotations.count)) / 2
                    }
                    #expect(scores[d] == expected, "disease \(d), \(mode)")
                    let reported = ranker.exactScore(
                        disease: d, query: PhenotypeRanker.ResolvedQuery(terms: query), ancestry: ancestry,
                        options: RankingOptions(scoring: mode))
                    #expect(reported.score == exact, "disease \(d), \(mode)")
                }
            }
            // The asymmetric score reads each of a disease's ancestors once; the symmetric one walks every annotation in
            // full: both name the same match for every query term and find the same ancestors of the query.
            for d in 0..<kb.diseaseCount {
                let query = PhenotypeRanker.ResolvedQuery(terms: query)
                let once = ranker.exactScore(disease: d, query: query, ancestry: ancestry, options: RankingOptions(scoring: .asymmetric))
                let full = ranker.exactScore(disease: d, query: query, ancestry: ancestry, options: RankingOptions(scoring: .symmetric))
                #expect(once.matches == full.matches, "disease \(d)")
                #expect(once.diseaseAncestors.bits == full.diseaseAncestors.bits, "disease \(d)")
                // An explanation looks the disease up only under the query ancestors the walk found it under: exactly
                // those it is under.
                for q in query.terms {
                    for a in kb.ontology.ancestorSlice(Int(q)) {
                        let looked = kb.underPosition(disease: d, term: a).map { kb.underLogRatios[$0] }
                        #expect(ancestry.logRatio(of: d, at: a, in: once.diseaseAncestors, kb) == looked, "disease \(d), term \(a)")
                        #expect(ancestry.logRatio(of: d, at: a, in: full.diseaseAncestors, kb) == looked, "disease \(d), term \(a)")
                    }
                }
            }
        }
    }

    /// Benjamini–Hochberg never lowers a p-value, never exceeds 1, and preserves the order of the
    /// raw p-values.
    @Test func benjaminiHochbergIsMonotone() async {
        await propertyCheck(input: Gen.double(in: 0...1).array(of: 1...40)) { p in
            let adjusted = benjaminiHochberg(p)
            #expect(zip(p, adjusted).allSatisfy { $0 <= $1 + 1e-12 && $1 <= 1 })
            for i in p.indices {
                for j in p.indices where p[i] < p[j] {
                    #expect(adjusted[i] <= adjusted[j] + 1e-12)
                }
            }
        }
    }

    /// Any explicit null distribution survives encoding, and its p-values are in (0, 1] and
    /// non-increasing in the score.
    @Test func nullEncodingRoundTripsAndPValuesAreMonotone() async throws {
        let generator = Gen.double(in: 0...3).array(of: 5).array(of: 2).array(of: 1...4)
        await propertyCheck(input: generator, Gen.double(in: 0...3), Gen.double(in: 0...3)) { scores, a, b in
            guard
                let null = try? NullDistribution(
                    scoring: .asymmetric, scores: scores, maxScore: 3, binCount: 64, fingerprint: 7)
            else {
                Issue.record("valid input rejected")
                return
            }
            #expect((try? NullDistribution(decoding: null.encoded())) == null)
            for d in scores.indices {
                for k in 1...2 {
                    let low = null.pValue(diseaseIndex: d, querySize: k, score: min(a, b))
                    let high = null.pValue(diseaseIndex: d, querySize: k, score: max(a, b))
                    #expect(high <= low && high > 0 && low <= 1)
                }
            }
        }
    }
}
