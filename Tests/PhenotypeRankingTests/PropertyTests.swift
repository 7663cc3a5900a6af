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
            let table = MatchTable(knowledgeBase: kb, query: query)
            var scores: [Float] = []
            table.scoreAll(kb, mode: .asymmetric, into: &scores)
            let best = scores.max()!
            #expect(scores[d] == best)
            let expected = query.map { kb.ic[Int($0)] }.reduce(0, +) / Float(query.count)
            #expect(abs(scores[d] - expected) < 1e-5)
            #expect(scores.allSatisfy { $0 >= 0 && $0 <= maxIC })
            table.scoreAll(kb, mode: .symmetric, into: &scores)
            #expect(scores.allSatisfy { $0 >= 0 && $0 <= maxIC })
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
