import CaretideCharts
import CaretideSchemas
import Foundation
import PhenotypeRanking
import Testing

@testable import DiagnosisService

/// A ranking exported for a patient's notes: every result with its explanation, the release and the method, and
/// nothing a spreadsheet or a browser would run.
@Suite struct RankingExportTests {
    static func term(_ id: String, _ name: String) -> PhenotypeTermReference { PhenotypeTermReference(id: id, name: name) }

    static let ranked = DiagnosisRanked(
        requestID: "r-1",
        release: OntologyReleaseReference(releaseID: 3, kind: .full, ontologyVersion: "hp/releases/2025-01-16", annotationVersion: "2025-01-16"),
        method: .similarity, scoring: .asymmetric, queryTerms: [term("HP:0001166", "Arachnodactyly"), term("HP:0001083", "Ectopia lentis")],
        excludedTerms: [term("HP:0001249", "Intellectual disability")], warnings: [], nullQuerySize: 2, diseaseCount: 12,
        results: [
            RankedDiseaseCandidate(
                rank: 1, diseaseID: "OMIM:154700", diseaseName: "Marfan syndrome, \"classic\"", pooledWith: ["ORPHA:558"], score: 3.25, penalty: 0,
                pValue: 0.0001,
                adjustedPValue: 0.0012,
                matches: [
                    PhenotypeTermMatch(
                        queryTerm: term("HP:0001083", "Ectopia lentis"), diseaseTerm: term("HP:0001083", "Ectopia lentis"),
                        commonAncestor: term("HP:0001083", "Ectopia lentis"), informationContent: 3.6),
                    PhenotypeTermMatch(
                        queryTerm: term("HP:0001166", "Arachnodactyly"), diseaseTerm: term("HP:0001166", "Arachnodactyly"),
                        commonAncestor: term("HP:0001166", "Arachnodactyly"), informationContent: 2.9),
                ], excludedTermsPresent: []),
            RankedDiseaseCandidate(
                rank: 2, diseaseID: "OMIM:1", diseaseName: "=HYPERLINK(\"http://evil\")<script>", score: 1, penalty: 0.5, pValue: 0.2,
                adjustedPValue: 0.4, matches: [], excludedTermsPresent: [term("HP:0001249", "Intellectual disability")]),
        ], suggestions: nil)

    @Test("CSV: a header, a row per disease and query phenotype, quotes doubled, formulas defused, CRLF lines")
    func csv() {
        let text = RankingExport.csv(Self.ranked)
        let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 + 2 + 1)
        #expect(
            lines[0].hasPrefix(
                "rank,disease_id,disease_name,pooled_with,score,p_value,adjusted_p_value,disease_log10_likelihood_ratio,log10_p_value_factor,posterior_probability,finding,query_term_id"
            ))
        #expect(
            lines[1].hasPrefix("1,OMIM:154700,\"Marfan syndrome, \"\"classic\"\"\",ORPHA:558,3.25,0.0001,0.0012,,,,present,HP:0001083,Ectopia lentis")
        )
        #expect(lines[1].hasSuffix(",3,hp/releases/2025-01-16,2025-01-16,asymmetric,\(RankingOrdering.standard)"))
        #expect(lines[3].hasPrefix("2,OMIM:1,\"'=HYPERLINK(\"\"http://evil\"\")<script>\",,1,"))
        #expect(RankingExport.field("-3") == "-3" && RankingExport.field("-x") == "'-x" && RankingExport.field("@cmd") == "'@cmd")
    }

    /// The same ranking ordered by likelihood ratio: each finding's ratio beside its match, a row for each excluded
    /// finding, and the ratios' table on the page.
    @Test("by likelihood ratio: each finding's ratio in the CSV and on the page, excluded findings included")
    func likelihoodRatio() {
        var ranked = Self.ranked
        ranked.method = .likelihoodRatio
        ranked.results[0].likelihoodRatio = DiseaseLikelihoodRatio(
            log10Ratio: 2.5, log10PValueFactor: 0.5, posteriorProbability: 0.875,
            findings: [
                FindingLikelihoodRatio(
                    term: Self.term("HP:0001166", "Arachnodactyly"), excluded: false, readAt: Self.term("HP:0001166", "Arachnodactyly"), share: 0.5,
                    log10Ratio: 1.25),
                FindingLikelihoodRatio(
                    term: Self.term("HP:0001083", "Ectopia lentis"), excluded: false, readAt: Self.term("HP:0001083", "Ectopia lentis"), share: 0.75,
                    log10Ratio: 1.5),
                FindingLikelihoodRatio(
                    term: Self.term("HP:0001249", "Intellectual disability"), excluded: true, readAt: nil, share: nil, log10Ratio: -0.25),
            ])
        let lines = RankingExport.csv(ranked).components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 + 3 + 1)
        #expect(lines[1].contains(",2.5,0.5,0.875,present,HP:0001083,Ectopia lentis,") && lines[1].contains(",1.5,HP:0001083,0.75,"))
        #expect(lines[3].hasPrefix("1,OMIM:154700,") && lines[3].contains(",excluded,HP:0001249,Intellectual disability,,,,,,-0.25,,,"))
        #expect(lines[3].hasSuffix(",asymmetric,likelihood ratio × p-value factor"))
        let html = RankingExport.page(ranked, generatedAt: Date(timeIntervalSince1970: 1_795_517_658)).html
        #expect(html.contains("LIRICAL") && html.contains("ordered by likelihood ratio × p-value factor"))
        #expect(html.contains("Post-test probability") && html.contains("absent: Intellectual disability (HP:0001249)"))
        #expect(html.contains("not annotated"))
    }

    @Test("the page: query, release and method, each result explained, every text escaped")
    func page() {
        let html = RankingExport.page(Self.ranked, generatedAt: Date(timeIntervalSince1970: 1_795_517_658)).html
        #expect(html.contains("HPO release 3 (ontology hp/releases/2025-01-16, annotations 2025-01-16)"))
        #expect(html.contains("Phenomizer") && html.contains("ordered by \(RankingOrdering.standard)"))
        #expect(html.contains("<h2>1. Marfan syndrome, &quot;classic&quot;</h2>") || html.contains("<h2>1. Marfan syndrome, \"classic\"</h2>"))
        #expect(html.contains("Ectopia lentis (HP:0001083)") && html.contains("Intellectual disability (HP:0001249)"))
        // A disease pooled with another source's entry names both ids.
        #expect(html.contains("(OMIM:154700, ORPHA:558)") && html.contains("(OMIM:1)"))
        #expect(!html.contains("<script>") && html.contains("&lt;script&gt;"))
        #expect(html.contains("it is not a diagnosis"))
    }
}
