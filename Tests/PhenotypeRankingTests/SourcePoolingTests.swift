import Foundation
import Testing

@testable import PhenotypeRanking

/// The entries of different sources that name one disease are scored with the annotations of all of them; each keeps
/// its own list for display, and a release whose null distributions were drawn before still ranks as it did.
@Suite struct SourcePoolingTests {
    /// On the tiny ontology (see `Tiny`): OMIM:10 and ORPHA:10 are one disease under OMIM's inverted name and
    /// Orphanet's plain one; ORPHA:11 has the same name as OMIM:12 but for one word; OMIM:13 and OMIM:14 share a name
    /// within one source; OMIM:15 and ORPHA:15 are one disease once "type" is read as how the name is written.
    static let hpoa =
        (["#version: 2024-01-01", Tiny.header] + [
            Tiny.row("OMIM:10", "Apnea, central sleep", "HP:0000101", frequency: "HP:0040283"),
            Tiny.row("OMIM:10", "Apnea, central sleep", "HP:0000202"),
            Tiny.row("ORPHA:10", "Central sleep apnea", "HP:0000101", frequency: "HP:0040280"),
            Tiny.row("ORPHA:10", "Central sleep apnea", "HP:0000201", frequency: "1/2"),
            Tiny.row("ORPHA:11", "Pseudohypoaldosteronism type 2", "HP:0000102"),
            Tiny.row("OMIM:12", "Pseudohypoaldosteronism, type II", "HP:0000200"),
            Tiny.row("OMIM:13", "Twin syndrome", "HP:0000101"),
            Tiny.row("OMIM:14", "Twin syndrome", "HP:0000102"),
            Tiny.row("OMIM:15", "Mucolipidosis IV", "HP:0000101"),
            Tiny.row("ORPHA:15", "Mucolipidosis type IV", "HP:0000202"),
        ]).joined(separator: "\n") + "\n"

    static func knowledgeBase(pooling: SourcePooling = .current) throws -> PhenotypeKnowledgeBase {
        try PhenotypeKnowledgeBase(
            ontology: PhenotypeOntology(document: OBOParser.parse(Tiny.obo)), annotations: HPOAParser.parse(hpoa), pooling: pooling)
    }

    static func terms(_ kb: PhenotypeKnowledgeBase, _ id: String) throws -> [String] {
        try kb.annotations(ofDisease: #require(kb.diseaseIndex(of: id))).map { kb.ontology.id(of: $0) }
    }

    @Test("names are the same disease when their words are, in any order and case; never two entries of one source alone")
    func groups() {
        #expect(PhenotypeKnowledgeBase.nameWords("Apnea, central sleep") == PhenotypeKnowledgeBase.nameWords("Central  sleep-APNEA"))
        #expect(PhenotypeKnowledgeBase.nameWords("Sjögren syndrome") == ["sjögren", "syndrome"])
        let groups = PhenotypeKnowledgeBase.sameDiseaseGroups([
            "OMIM:10": "Apnea, central sleep", "ORPHA:10": "Central sleep apnea", "OMIM:13": "Twin syndrome", "OMIM:14": "Twin syndrome",
            "ORPHA:11": "Pseudohypoaldosteronism type 2", "OMIM:12": "Pseudohypoaldosteronism, type II",
            // Two OMIM entries of the same words and an Orphanet one: which OMIM disease it is cannot be told.
            "OMIM:20": "Alpha syndrome", "OMIM:21": "Syndrome, alpha", "ORPHA:20": "Alpha syndrome",
            // Names without a word name nothing.
            "OMIM:30": "", "ORPHA:30": "-", "DECIPHER:30": " ",
        ])
        #expect(groups == [["OMIM:10", "ORPHA:10"]])
    }

    @Test("words that only say how a name is written are read past, among the entries the full names left apart")
    func namingWords() {
        let names = [
            "OMIM:40": "Spastic paraplegia 76, autosomal recessive", "ORPHA:40": "Autosomal recessive spastic paraplegia type 76",
            "OMIM:41": "Galactosemia", "ORPHA:41": "Classic galactosemia",
            "OMIM:42": "Acyl-CoA dehydrogenase, short-chain, deficiency of", "ORPHA:42": "Short chain acyl-CoA dehydrogenase deficiency",
            // Grouped by their full names: Orphanet's classic form does not join them, nor take one's place.
            "OMIM:50": "Phenylketonuria", "ORPHA:50": "Phenylketonuria", "ORPHA:51": "Classic phenylketonuria",
            // A different number is a different disease, however the name is written.
            "OMIM:60": "Spastic paraplegia 7", "ORPHA:60": "Spastic paraplegia type 17",
            // Roman and Arabic numerals are not read as one (a known miss: these two are one disease).
            "OMIM:61": "Pseudohypoaldosteronism, type II", "ORPHA:61": "Pseudohypoaldosteronism type 2",
            // An entry grouped by its full name is not grouped again: were it, DECIPHER's entry could be either
            // Orphanet entry's disease.
            "OMIM:80": "Foo syndrome", "ORPHA:80": "Syndrome, foo", "ORPHA:81": "Classic foo syndrome", "DECIPHER:81": "Foo syndrome, type",
            // Nothing but naming words names nothing.
            "OMIM:70": "Type", "ORPHA:70": "Classic form",
        ]
        #expect(
            PhenotypeKnowledgeBase.sameDiseaseGroups(names) == [
                ["OMIM:40", "ORPHA:40"], ["OMIM:41", "ORPHA:41"], ["OMIM:42", "ORPHA:42"], ["OMIM:50", "ORPHA:50"], ["OMIM:80", "ORPHA:80"],
            ])
        // The rule before read full names only.
        #expect(PhenotypeKnowledgeBase.sameDiseaseGroups(names, by: .sameWords) == [["OMIM:50", "ORPHA:50"], ["OMIM:80", "ORPHA:80"]])
    }

    @Test("each entry of a disease is scored with the annotations of both; its own share wins where both give the finding")
    func pooled() throws {
        let kb = try Self.knowledgeBase()
        #expect(kb.pooling == .current && kb.sameDisease == [["OMIM:10", "ORPHA:10"], ["OMIM:15", "ORPHA:15"]])
        #expect(kb.pooledWith == ["OMIM:10": ["ORPHA:10"], "ORPHA:10": ["OMIM:10"], "OMIM:15": ["ORPHA:15"], "ORPHA:15": ["OMIM:15"]])
        #expect(try Self.terms(kb, "OMIM:10") == ["HP:0000101", "HP:0000201", "HP:0000202"])
        #expect(try Self.terms(kb, "OMIM:15") == ["HP:0000101", "HP:0000202"])
        #expect(try Self.terms(kb, "ORPHA:10") == ["HP:0000101", "HP:0000201", "HP:0000202"])
        let omim = try #require(kb.diseaseIndex(of: "OMIM:10"))
        let orpha = try #require(kb.diseaseIndex(of: "ORPHA:10"))
        let a1 = try #require(kb.ontology.resolve("HP:0000101").term)
        let b1 = try #require(kb.ontology.resolve("HP:0000201").term)
        // Occasional (0.17) in OMIM, obligate in Orphanet: each keeps its own.
        #expect(kb.annotatedShare(disease: omim, term: a1) == Double(Float(0.17)))
        #expect(kb.annotatedShare(disease: orpha, term: a1) == 1)
        // Given by Orphanet alone: OMIM's entry takes Orphanet's share, 1 of 2 read as (1 + 1) / (2 + 2).
        #expect(kb.annotatedShare(disease: omim, term: b1) == Double(Float(0.5)))
        // The other names stay apart.
        #expect(try Self.terms(kb, "OMIM:13") == ["HP:0000101"] && Self.terms(kb, "OMIM:14") == ["HP:0000102"])
        #expect(try Self.terms(kb, "OMIM:12") == ["HP:0000200"] && Self.terms(kb, "ORPHA:11") == ["HP:0000102"])
    }

    @Test("a disease's own list of phenotypes is what its source gives, pooled or not")
    func ownPhenotypes() throws {
        for pooling in SourcePooling.allCases {
            let kb = try Self.knowledgeBase(pooling: pooling)
            #expect(try #require(kb.phenotypes(ofDisease: "OMIM:10")).map(\.term.id).sorted() == ["HP:0000101", "HP:0000202"])
            #expect(try #require(kb.phenotypes(ofDisease: "ORPHA:10")).map(\.term.id).sorted() == ["HP:0000101", "HP:0000201"])
        }
    }

    @Test("without pooling each entry keeps its own annotations, and the two knowledge bases tell themselves apart")
    func separate() throws {
        let kb = try Self.knowledgeBase(pooling: .separate)
        #expect(kb.pooling == .separate && kb.sameDisease == [["OMIM:10", "ORPHA:10"], ["OMIM:15", "ORPHA:15"]])
        #expect(try Self.terms(kb, "OMIM:10") == ["HP:0000101", "HP:0000202"])
        let fingerprints = try SourcePooling.allCases.map { try Self.knowledgeBase(pooling: $0).fingerprint }
        #expect(Set(fingerprints).count == SourcePooling.allCases.count)
    }

    @Test("a release is built under the rule its null distributions were drawn under; a new one under the current rule")
    func matchingNullDistributions() throws {
        let ontology = try PhenotypeOntology(document: OBOParser.parse(Tiny.obo))
        let annotations = try HPOAParser.parse(Self.hpoa)
        let options = NullDistributionOptions(sampleCount: 20, maxQuerySize: 2, seed: 3)
        for rule in SourcePooling.allCases {
            let drawn = try NullDistribution.build(for: Self.knowledgeBase(pooling: rule), options: options)
            let kb = try PhenotypeKnowledgeBase.matching([drawn], ontology: ontology, annotations: annotations)
            #expect(kb.pooling == rule)
            _ = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [drawn])
        }
        #expect(try PhenotypeKnowledgeBase.matching([], ontology: ontology, annotations: annotations).pooling == .current)
    }

    @Test("simulated patients count the entries of one disease as one: the first of them found is the patient's disease")
    func recallCountsOneDiseaseOnce() throws {
        let kb = try Self.knowledgeBase()
        let null = try NullDistribution.build(for: kb, options: NullDistributionOptions(sampleCount: 50, maxQuerySize: 5, seed: 5))
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        let report = try ranker.recallCheck(RecallCheckOptions(diseaseCount: kb.diseaseCount, termsPerQuery: 3, seed: 9))
        // The two entries of the pooled disease score alike: neither stands behind the other.
        for (id, rank) in zip(report.diseaseIDs, report.ranks) where id.hasSuffix(":10") {
            #expect(rank == 1, "\(id)")
        }
    }

    @Test("a ranked disease names the entries it was pooled with; one pooled with none names none")
    func rankingNamesPooledEntries() throws {
        let kb = try Self.knowledgeBase()
        let null = try NullDistribution.build(for: kb, options: NullDistributionOptions(sampleCount: 50, maxQuerySize: 5, seed: 5))
        let ranker = try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [null])
        let result = try ranker.rank(terms: ["HP:0000101"], options: RankingOptions(maxResults: kb.diseaseCount))
        let named = Dictionary(uniqueKeysWithValues: result.results.map { ($0.diseaseID, $0.pooledWith) })
        #expect(named["OMIM:10"] == ["ORPHA:10"] && named["ORPHA:10"] == ["OMIM:10"])
        #expect(named["OMIM:13"] == [])
        let apart = try Self.knowledgeBase(pooling: .separate)
        let separate = try PhenotypeRanker(
            knowledgeBase: apart,
            nullDistributions: [NullDistribution.build(for: apart, options: NullDistributionOptions(sampleCount: 50, maxQuerySize: 5, seed: 5))])
        let unpooled = try separate.rank(terms: ["HP:0000101"], options: RankingOptions(maxResults: apart.diseaseCount)).results
        #expect(unpooled.contains { $0.diseaseID == "OMIM:10" } && unpooled.allSatisfy { $0.pooledWith.isEmpty })
    }
}
