import Foundation
import Testing

@testable import PhenotypeRanking

@Suite struct SearchTests {
    @Test func phenotypeSearchRanksIDThenNameThenPrefixThenWordsThenSynonyms() throws {
        let search = PhenotypeSearchIndex(knowledgeBase: try Fixture.knowledgeBase())
        let hits = search.searchPhenotypes("seizure", limit: 10)
        #expect(hits.first?.term.id == "HP:0001250")
        #expect(hits.first?.kind == .exactName)
        #expect(hits.map(\.kind) == hits.map(\.kind).sorted())
        // "Bilateral tonic-clonic seizure", "Focal-onset seizure", "Febrile seizure (...)": word prefix.
        let words = Set(hits.filter { $0.kind == .wordPrefix }.map(\.term.id))
        #expect(words.isSuperset(of: ["HP:0002069", "HP:0007359", "HP:0002373"]))

        #expect(search.searchPhenotypes("HP:0001250").first.map { ($0.term.id, $0.kind) } ?? ("", .idPrefix) == ("HP:0001250", .exactID))
        #expect(search.searchPhenotypes("0001250").first?.kind == .exactID)
        // An alt_id and an obsolete id find the current term.
        #expect(search.searchPhenotypes("HP:0001275").first?.term.id == "HP:0001250")
        #expect(search.searchPhenotypes("hp:0040168").first?.term.id == "HP:0007359")
        // "Grand mal" (exact) and "Grand mal seizures" (prefix) are synonyms of Bilateral
        // tonic-clonic seizure; the better synonym match is reported.
        let grand = search.searchPhenotypes("grand mal")
        #expect(grand.map(\.term.id) == ["HP:0002069"])
        #expect(grand.first?.kind == .synonym && grand.first?.matchedText == "Grand mal")
        #expect(search.searchPhenotypes("mal seiz").first?.matchedText == "Grand mal seizures")
        #expect(search.searchPhenotypes("HP:00012", limit: 50).allSatisfy { $0.kind == .idPrefix && $0.term.id.hasPrefix("HP:00012") })
        #expect(search.searchPhenotypes("   ").isEmpty)
    }

    @Test func rankingOrderOnTinyOntology() throws {
        let search = PhenotypeSearchIndex(knowledgeBase: try Tiny.knowledgeBase())
        // "a one": exact name "A one", then "A one and B one" (name prefix), then the synonym
        // "First "A" finding"? no ("a" and "one" must both start words) — "B one" has no "a…".
        let hits = search.searchPhenotypes("a one")
        #expect(hits.map(\.term.id) == ["HP:0000101", "HP:0000300"])
        #expect(hits.map(\.kind) == [.exactName, .namePrefix])
        // "one b": word prefixes in any order → "A one and B one" (word prefix), "B one" (word prefix;
        // shorter matched text first).
        #expect(search.searchPhenotypes("one b").map(\.term.id) == ["HP:0000201", "HP:0000300"])
        #expect(search.searchPhenotypes("bee").map(\.kind) == [.synonym])
        #expect(search.searchPhenotypes("Mode").isEmpty)  // not a phenotypic abnormality
        #expect(search.searchPhenotypes("Mode", phenotypesOnly: false).map(\.term.id) == ["HP:0000005"])
    }

    @Test func diseaseSearchAndPhenotypes() throws {
        let kb = try Fixture.knowledgeBase()
        let search = PhenotypeSearchIndex(knowledgeBase: kb)
        #expect(search.searchDiseases("marfan").map(\.diseaseID) == ["OMIM:154700"])
        #expect(search.searchDiseases("154700").first.map { ($0.diseaseID, $0.kind) } ?? ("", .idPrefix) == ("OMIM:154700", .exactID))
        #expect(search.searchDiseases("omim:154700").first?.kind == .exactID)
        let sotos = search.searchDiseases("sotos")
        #expect(Set(sotos.map(\.diseaseID)) == ["ORPHA:821"])
        #expect(search.searchDiseases("ORPHA:").allSatisfy { $0.kind == .idPrefix })

        let marfan = try #require(kb.phenotypes(ofDisease: "OMIM:154700"))
        #expect(Set(marfan.map(\.term.id)) == ["HP:0000098", "HP:0001166", "HP:0002650", "HP:0001083", "HP:0000545"])
        #expect(marfan.map(\.informationContent) == marfan.map(\.informationContent).sorted(by: >))
        #expect(kb.phenotypes(ofDisease: "OMIM:0") == nil)
    }
}

@Suite struct FixtureRankingTests {
    /// Marfan syndrome and homocystinuria both carry all five query terms and tie on score, but
    /// homocystinuria has many more annotations, so random queries score higher against it and its
    /// p-value is larger — ranking by p-value puts Marfan first (the point of the paper's model).
    @Test func marfanQueryRanksMarfanFirst() throws {
        let ranker = try Fixture.ranker()
        // Arachnodactyly, ectopia lentis, tall stature, scoliosis, myopia.
        let query = ["HP:0001166", "HP:0001083", "HP:0000098", "HP:0002650", "HP:0000545"]
        let result = try ranker.rank(terms: query)
        let marfan = result.results[0]
        #expect(marfan.diseaseID == "OMIM:154700")
        #expect(marfan.pValue < 0.05)
        let homocystinuria = try #require(result.results.first { $0.diseaseID == "OMIM:236200" })
        #expect(homocystinuria.score == marfan.score && homocystinuria.pValue > marfan.pValue)
        #expect(result.results.map(\.score).max() == marfan.score)
        // In the standard order: score plus 1.5 × the p-value's evidence (−log10 p), never rising down the list.
        let keys = result.results.map { $0.score - 1.5 * log10($0.pValue) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 >= $1 - 1e-9 })
        #expect(result.results.allSatisfy { $0.adjustedPValue >= $0.pValue && $0.adjustedPValue <= 1 })
        let suggestions = ranker.suggestPhenotypes(after: result, candidateCount: 5, limit: 3)
        #expect(!suggestions.isEmpty)
        #expect(suggestions.allSatisfy { !$0.presentIn.isEmpty && !$0.absentIn.isEmpty })
        #expect(suggestions.allSatisfy { s in !query.contains(s.term.id) })
    }

    @Test func recallCheckIsDeterministic() throws {
        let ranker = try Fixture.ranker()
        let options = RecallCheckOptions(diseaseCount: 12, termsPerQuery: 3, imprecision: 0.3, noiseTerms: 1, seed: 3)
        let first = try ranker.recallCheck(options)
        #expect(first == (try ranker.recallCheck(options)))
        #expect(first.evaluated == 12)
        #expect(Set(first.diseaseIDs).count == 12)
        #expect((0...1).contains(first.rankedFirst) && first.inTopTen >= first.rankedFirst)
        #expect(first.ranks.allSatisfy { (1...12).contains($0) })
        // Noise-free queries of all annotations: every disease scores its maximum, so the fixture
        // puts most diseases in the top 10 of 12.
        let exact = try ranker.recallCheck(RecallCheckOptions(diseaseCount: 12, termsPerQuery: 20, seed: 3))
        #expect(exact.inTopTen >= 0.75)
        #expect {
            try ranker.recallCheck(RecallCheckOptions(termsPerQuery: 0))
        } throws: { ($0 as? PhenotypeRankingError)?.code == .invalidOption }
    }
}

/// The scores reported to a caller are exact: computed again in `Double` from the terms' information content, equal
/// to the last bit to a direct computation of the definition, whatever the `Float` search found; and each result's
/// explanation is ordered by what weighed most.
@Suite struct ExactScoreTests {
    /// The definition, directly: for each query term the best Resnik similarity over the disease's annotations
    /// (`Double` information content), averaged; symmetric mode also averages the other direction.
    static func definition(_ kb: PhenotypeKnowledgeBase, disease: String, query: [TermIndex], symmetric: Bool) throws -> Double {
        let d = try #require(kb.diseaseIndex(of: disease))
        let annotations = kb.annotations(ofDisease: d)
        var toDisease = 0.0
        for q in query { toDisease += annotations.map { kb.similarity(q, $0) }.max() ?? 0 }
        toDisease /= Double(query.count)
        guard symmetric else { return toDisease }
        var toQuery = 0.0
        for t in annotations { toQuery += query.map { kb.similarity($0, t) }.max() ?? 0 }
        return (toDisease + toQuery / Double(annotations.count)) / 2
    }

    @Test("every reported score equals the definition computed in Double, in both modes, for random queries")
    func exactScores() throws {
        let ranker = try Fixture.ranker()
        let kb = ranker.knowledgeBase
        var random = Xoshiro256StarStar(seed: 11)
        let universe = (0..<kb.diseaseCount).flatMap { kb.annotations(ofDisease: $0) }
        for _ in 0..<30 {
            let query = Array(Set((0..<(1 + random.nextInt(below: 5))).map { _ in universe[random.nextInt(below: universe.count)] })).sorted()
            let ids = query.map { kb.ontology.id(of: $0) }
            for scoring in ScoringMode.allCases where ranker.nullDistribution(for: scoring) != nil {
                let result = try ranker.rank(terms: ids, options: RankingOptions(scoring: scoring, maxResults: 12))
                let resolved = result.queryTerms.map(\.index)
                for disease in result.results {
                    let expected = try Self.definition(kb, disease: disease.diseaseID, query: resolved, symmetric: scoring == .symmetric)
                    #expect(disease.score == expected, "\(ids) \(scoring) \(disease.diseaseID)")
                }
            }
        }
    }

    @Test("each result's matches: the most informative first, ties in query order, and they add up to the score")
    func explanationsByContribution() throws {
        let ranker = try Fixture.ranker()
        let query = ["HP:0001166", "HP:0001083", "HP:0000098", "HP:0002650", "HP:0000545"]
        let result = try ranker.rank(terms: query)
        for disease in result.results {
            let values = disease.matches.map(\.informationContent)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 >= $1 })
            #expect(Set(disease.matches.map(\.queryTerm.id)) == Set(result.queryTerms.map(\.id)))
            #expect(abs(values.reduce(0, +) / Double(values.count) - disease.score) < 1e-12)
        }
    }
}
