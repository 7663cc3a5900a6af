import Foundation
import Testing

@testable import PhenotypeRanking

/// The entries of different sources that name one disease are scored with the annotations of all of them; each keeps
/// its own list for display, and a release whose null distributions were drawn before still ranks as it did.
@Suite struct SourcePoolingTests {
    /// On the tiny ontology (see `Tiny`): OMIM:10 and ORPHA:10 are one disease under OMIM's inverted name and
    /// Orphanet's plain one; ORPHA:11 has the same name as OMIM:12 but for one word; OMIM:13 and OMIM:14 share a name
    /// within one source.
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
        ]).joined(separator: "\n") + "\n"

    static func knowledgeBase(pooling: Bool = true) throws -> PhenotypeKnowledgeBase {
        try PhenotypeKnowledgeBase(
            ontology: PhenotypeOntology(document: OBOParser.parse(Tiny.obo)), annotations: HPOAParser.parse(hpoa), poolingSources: pooling)
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

    @Test("each entry of a disease is scored with the annotations of both; its own share wins where both give the finding")
    func pooled() throws {
        let kb = try Self.knowledgeBase()
        #expect(kb.poolsSources && kb.sameDisease == [["OMIM:10", "ORPHA:10"]])
        #expect(try Self.terms(kb, "OMIM:10") == ["HP:0000101", "HP:0000201", "HP:0000202"])
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
        for pooling in [true, false] {
            let kb = try Self.knowledgeBase(pooling: pooling)
            #expect(try #require(kb.phenotypes(ofDisease: "OMIM:10")).map(\.term.id).sorted() == ["HP:0000101", "HP:0000202"])
            #expect(try #require(kb.phenotypes(ofDisease: "ORPHA:10")).map(\.term.id).sorted() == ["HP:0000101", "HP:0000201"])
        }
    }

    @Test("without pooling each entry keeps its own annotations, and the two knowledge bases tell themselves apart")
    func separate() throws {
        let kb = try Self.knowledgeBase(pooling: false)
        #expect(!kb.poolsSources && kb.sameDisease == [["OMIM:10", "ORPHA:10"]])
        #expect(try Self.terms(kb, "OMIM:10") == ["HP:0000101", "HP:0000202"])
        #expect(kb.fingerprint != (try Self.knowledgeBase()).fingerprint)
    }

    @Test("a release whose null distributions were drawn without pooling is built without it; a new one with it")
    func matchingNullDistributions() throws {
        let ontology = try PhenotypeOntology(document: OBOParser.parse(Tiny.obo))
        let annotations = try HPOAParser.parse(Self.hpoa)
        let options = NullDistributionOptions(sampleCount: 20, maxQuerySize: 2, seed: 3)
        let before = try NullDistribution.build(for: Self.knowledgeBase(pooling: false), options: options)
        let old = try PhenotypeKnowledgeBase.matching([before], ontology: ontology, annotations: annotations)
        #expect(!old.poolsSources)
        _ = try PhenotypeRanker(knowledgeBase: old, nullDistributions: [before])
        let now = try NullDistribution.build(for: Self.knowledgeBase(), options: options)
        #expect(try PhenotypeKnowledgeBase.matching([now], ontology: ontology, annotations: annotations).poolsSources)
        #expect(try PhenotypeKnowledgeBase.matching([], ontology: ontology, annotations: annotations).poolsSources)
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
}
