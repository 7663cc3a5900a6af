import Foundation
import PropertyBased
import Testing

@testable import PhenotypeRanking

/// Every form the HPO annotation format allows in `phenotype.hpoa`'s frequency column, and what is not one.
@Suite struct AnnotationFrequencyTests {
    @Test func frequencyTermsReadAtTheMiddleOfTheirRange() {
        #expect(AnnotationFrequency.share("HP:0040280") == 1)  // Obligate
        #expect(AnnotationFrequency.share("HP:0040281") == 0.895)  // Very frequent, 80–99 %
        #expect(AnnotationFrequency.share("HP:0040282") == 0.545)  // Frequent, 30–79 %
        #expect(AnnotationFrequency.share("HP:0040283") == 0.17)  // Occasional, 5–29 %
        #expect(AnnotationFrequency.share("HP:0040284") == 0.025)  // Very rare, 1–4 %
        #expect(AnnotationFrequency.share("HP:0040285") == 0)  // Excluded, 0 %
        // The Frequency root and any other term are no share.
        #expect(AnnotationFrequency.share("HP:0040279") == nil)
        #expect(AnnotationFrequency.share("HP:0000118") == nil)
    }

    /// Counts are read by Laplace's rule of succession, (n + 1) / (m + 2): a handful of patients who all show a
    /// finding does not make it obligate.
    @Test func countsOfPatients() {
        #expect(AnnotationFrequency.share("7/13") == 8.0 / 15.0)
        #expect(AnnotationFrequency.share("0/5") == 1.0 / 7.0)
        #expect(AnnotationFrequency.share("3/3") == 0.8)
        #expect(AnnotationFrequency.share("27/27") == 28.0 / 29.0)
        for malformed in ["13/7", "7/0", "0/0", "/5", "5/", "1/2/3", "-1/5", "1.5/3", "a/b", "1 / 2", "1234567890/1234567891"] {
            #expect(AnnotationFrequency.share(malformed) == nil, "\(malformed)")
        }
    }

    @Test func percentages() {
        #expect(AnnotationFrequency.share("17%") == 0.17)
        #expect(AnnotationFrequency.share("12.5%") == 0.125)
        #expect(AnnotationFrequency.share("0%") == 0)
        #expect(AnnotationFrequency.share("100%") == 1)
        #expect(AnnotationFrequency.share(" 17% ") == 0.17)
        for malformed in ["%", "101%", "-5%", ".5%", "5.%", "1.2.3%", "17 %", "1e2%", "17"] {
            #expect(AnnotationFrequency.share(malformed) == nil, "\(malformed)")
        }
    }

    @Test func emptyIsUnknown() {
        #expect(AnnotationFrequency.share("") == nil)
        #expect(AnnotationFrequency.share("   ") == nil)
    }

    /// Several rows of one disease and term keep the highest share given; a row without one does not hide it.
    @Test func repeatedRowsKeepTheHighestShare() throws {
        let hpoa =
            (["#version: 2024-01-01", Tiny.header] + [
                Tiny.row("OMIM:1", "Disease one", "HP:0000101", frequency: "0/10"),
                Tiny.row("OMIM:1", "Disease one", "HP:0000101", frequency: "HP:0040282"),
                Tiny.row("OMIM:1", "Disease one", "HP:0000101"),
                Tiny.row("OMIM:1", "Disease one", "HP:0000201"),
                Tiny.row("OMIM:2", "Disease two", "HP:0000102", frequency: "nonsense"),
            ]).joined(separator: "\n") + "\n"
        let kb = try PhenotypeKnowledgeBase(obo: Tiny.obo, hpoa: hpoa)
        let one = try #require(kb.diseaseIndex(of: "OMIM:1"))
        let two = try #require(kb.diseaseIndex(of: "OMIM:2"))
        #expect(kb.annotatedShare(disease: one, term: try term(kb, "HP:0000101")) == Double(Float(0.545)))
        #expect(kb.annotatedShare(disease: one, term: try term(kb, "HP:0000201")) == nil)
        #expect(kb.annotatedShare(disease: two, term: try term(kb, "HP:0000102")) == nil)
        #expect(kb.annotatedShare(disease: two, term: try term(kb, "HP:0000101")) == nil)
    }
}

/// What an excluded finding costs a disease, by how often the disease shows it.
@Suite struct ExclusionTests {
    /// The tiny ontology (see `Tiny`): A = HP:0000100 with A1 = HP:0000101, A2 = HP:0000102; B = HP:0000200 with
    /// B1 = HP:0000201, B2 = HP:0000202. OMIM:1 shows B1 always, OMIM:3 in 1 of 20 patients, OMIM:5 with no
    /// frequency given, OMIM:6 never (Excluded), OMIM:7 only the general B (obligate).
    static let hpoa =
        (["#version: 2024-01-01", Tiny.header] + [
            Tiny.row("OMIM:1", "Obligate", "HP:0000101"),
            Tiny.row("OMIM:1", "Obligate", "HP:0000201", frequency: "HP:0040280"),
            Tiny.row("OMIM:2", "Other", "HP:0000102"),
            Tiny.row("OMIM:3", "Rare", "HP:0000101"),
            Tiny.row("OMIM:3", "Rare", "HP:0000201", frequency: "1/20"),
            Tiny.row("OMIM:4", "Unaffected", "HP:0000101"),
            Tiny.row("OMIM:5", "Unknown", "HP:0000101"),
            Tiny.row("OMIM:5", "Unknown", "HP:0000201"),
            Tiny.row("OMIM:6", "Never", "HP:0000101"),
            Tiny.row("OMIM:6", "Never", "HP:0000201", frequency: "HP:0040285"),
            Tiny.row("OMIM:7", "General", "HP:0000101"),
            Tiny.row("OMIM:7", "General", "HP:0000200", frequency: "HP:0040280"),
        ]).joined(separator: "\n") + "\n"

    static func ranker() throws -> PhenotypeRanker {
        let kb = try PhenotypeKnowledgeBase(obo: Tiny.obo, hpoa: hpoa)
        let null = try NullDistribution(
            scoring: .asymmetric, scores: Array(repeating: [[0.0, 0.0], [0.0, 0.0]], count: kb.diseaseCount), maxScore: log(8.0),
            binCount: 1000, fingerprint: kb.fingerprint)
        return try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
    }

    /// Every share charged, in full weight: the frequency arithmetic alone.
    static let everyShare = RankingOptions(exclusionPenaltyWeight: 1, exclusionMinimumShare: 0)

    static func penalties(excluding: [String], options: RankingOptions = everyShare) throws -> [String: Double] {
        let ranker = try ranker()
        var options = options
        options.maxResults = 10
        let result = try ranker.rank(terms: ["HP:0000101"], excluding: excluding, options: options)
        return Dictionary(uniqueKeysWithValues: result.results.map { ($0.diseaseID, $0.penalty) })
    }

    /// Excluding B1 with the query {A1} (|Q| = 1): IC(B1) = ln(7/4) here (OMIM:1, 3, 5, 6 carry it).
    @Test func penaltyFollowsTheAnnotatedFrequency() throws {
        let kb = try Self.ranker().knowledgeBase
        let full = kb.informationContent(of: try term(kb, "HP:0000201"))
        let penalties = try Self.penalties(excluding: ["HP:0000201"])
        #expect(isClose(try #require(penalties["OMIM:1"]), full))  // obligate: charged in full
        #expect(isClose(try #require(penalties["OMIM:3"]), full * 2 / 22))  // 1 of 20: almost nothing
        #expect(isClose(try #require(penalties["OMIM:5"]), full * RankingOptions.defaultUnknownFrequencyShare))
        #expect(penalties["OMIM:6"] == 0)  // annotated as never shown
        #expect(penalties["OMIM:4"] == 0)
        // An excluded finding more specific than the disease's annotation (B1 below B) costs nothing.
        #expect(penalties["OMIM:7"] == 0)
        // The unknown share is the caller's to set; the flat rule charges every annotation in full.
        var assumed = Self.everyShare
        assumed.unknownFrequencyShare = 0.2
        #expect(isClose(try #require(try Self.penalties(excluding: ["HP:0000201"], options: assumed)["OMIM:5"]), full * 0.2))
        let flat = try Self.penalties(
            excluding: ["HP:0000201"], options: RankingOptions(exclusionPenaltyWeight: 1, exclusionByFrequency: false))
        for id in ["OMIM:1", "OMIM:3", "OMIM:5", "OMIM:6"] { #expect(isClose(try #require(flat[id]), full), "\(id)") }
        #expect(throws: PhenotypeRankingError.self) {
            try Self.ranker().rank(terms: ["HP:0000101"], options: RankingOptions(unknownFrequencyShare: 1.5))
        }
        #expect(throws: PhenotypeRankingError.self) {
            try Self.ranker().rank(terms: ["HP:0000101"], options: RankingOptions(exclusionMinimumShare: -0.1))
        }
    }

    /// By default only a finding the disease shows in at least 90 % of patients counts, at weight 0.2: here only
    /// OMIM:1's obligate B1; the 1-in-20 and the unknown frequency cost nothing.
    @Test func byDefaultOnlyANearlyObligateFindingCounts() throws {
        let kb = try Self.ranker().knowledgeBase
        let full = kb.informationContent(of: try term(kb, "HP:0000201"))
        let penalties = try Self.penalties(excluding: ["HP:0000201"], options: RankingOptions())
        #expect(isClose(try #require(penalties["OMIM:1"]), RankingOptions.defaultExclusionPenaltyWeight * full))
        for id in ["OMIM:2", "OMIM:3", "OMIM:4", "OMIM:5", "OMIM:6", "OMIM:7"] { #expect(penalties[id] == 0, "\(id)") }
        // The p-value stays that of the present findings: OMIM:1 and OMIM:4 match A1 alike and share it.
        let result = try Self.ranker().rank(terms: ["HP:0000101"], excluding: ["HP:0000201"])
        let byID = Dictionary(uniqueKeysWithValues: result.results.map { ($0.diseaseID, $0) })
        #expect(byID["OMIM:1"]?.pValue == byID["OMIM:4"]?.pValue)
        #expect(result.results.firstIndex { $0.diseaseID == "OMIM:4" }! < result.results.firstIndex { $0.diseaseID == "OMIM:1" }!)
    }

    /// Excluding the general B excludes all of it: a disease annotated with B or any finding below it is charged by
    /// the most frequent of those annotations.
    @Test func anExcludedAncestorCoversItsDescendants() throws {
        let kb = try Self.ranker().knowledgeBase
        let full = kb.informationContent(of: try term(kb, "HP:0000200"))
        let penalties = try Self.penalties(excluding: ["HP:0000200"])
        #expect(isClose(try #require(penalties["OMIM:1"]), full))
        #expect(isClose(try #require(penalties["OMIM:3"]), full * 2 / 22))
        #expect(isClose(try #require(penalties["OMIM:7"]), full))
        #expect(penalties["OMIM:6"] == 0)
    }

    /// Adding an excluded finding never raises a score, charges a disease that nearly always shows it by that share,
    /// and never lifts that disease above one the exclusion left alone (on the HPO fixture, whose annotations give
    /// frequencies).
    @Test func anExcludedCharacteristicFindingNeverHelpsTheDiseaseThatHasIt() async throws {
        let ranker = try Fixture.ranker(sampleCount: 200)
        let kb = ranker.knowledgeBase
        let weight = RankingOptions.defaultExclusionPenaltyWeight
        var characteristic: [(disease: Int, term: Int32, share: Float)] = []
        for d in 0..<kb.diseaseCount {
            for (t, share) in zip(kb.annotationSlice(d), kb.shareSlice(d)) where share >= 0.9 { characteristic.append((d, t, share)) }
        }
        try #require(!characteristic.isEmpty)
        await propertyCheck(count: 60, input: Gen.int(in: 0..<characteristic.count), Gen.uint64().array(of: 1...6)) { pick, picks in
            let (d, e, _) = characteristic[pick]
            let query = unrelatedQuery(kb, avoiding: e, picks: picks)
            guard !query.isEmpty else { return }
            let eID = kb.ontology.termIDs[Int(e)]
            let options = RankingOptions(maxResults: kb.diseaseCount)
            guard let before = try? ranker.rank(terms: query, options: options),
                let after = try? ranker.rank(terms: query, excluding: [eID], options: options)
            else { return }
            let scoreBefore = Dictionary(uniqueKeysWithValues: before.results.map { ($0.diseaseID, $0.score) })
            let target = kb.diseaseIDs[d]
            let full = weight * kb.ic64[Int(e)] / Double(after.queryTerms.count)
            for r in after.results {
                #expect(r.score <= (scoreBefore[r.diseaseID] ?? 0) + 1e-9)
                #expect(r.penalty <= full + 1e-9)
            }
            // Its highest share at or below the finding, which is at least the share of this annotation.
            let penalty = after.results.first { $0.diseaseID == target }?.penalty ?? 0
            #expect(penalty >= full * 0.9 - 1e-6)
            // Those the exclusion left alone and that ranked above the disease still do.
            let untouched = Set(after.results.filter { $0.penalty == 0 }.map(\.diseaseID))
            let aboveBefore = before.results.prefix { $0.diseaseID != target }.map(\.diseaseID).filter(untouched.contains)
            let aboveAfter = Set(after.results.prefix { $0.diseaseID != target }.map(\.diseaseID))
            #expect(aboveBefore.allSatisfy(aboveAfter.contains))
        }
    }
}
