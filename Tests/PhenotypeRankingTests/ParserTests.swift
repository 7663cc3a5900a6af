import Foundation
import Testing

@testable import PhenotypeRanking

@Suite struct OBOParserTests {
    @Test func parsesTermsAndSkipsTypedefs() throws {
        let document = try OBOParser.parse(Tiny.obo)
        #expect(document.formatVersion == "1.2")
        #expect(document.dataVersion == "tiny/2024-01-01")
        #expect(document.terms.count == 12)
        #expect(!document.terms.contains { $0.id == "part_of" })
        let b1 = try #require(document.terms.first { $0.id == "HP:0000201" })
        #expect(b1.name == "B one")
        #expect(b1.isA == ["HP:0000200"])  // "! Abnormality B" comment removed
        let a1 = try #require(document.terms.first { $0.id == "HP:0000101" })
        #expect(a1.synonyms == [OBOSynonym(text: "First \"A\" finding", scope: .exact)])
        let obsolete = try #require(document.terms.first { $0.id == "HP:0000999" })
        #expect(obsolete.isObsolete && obsolete.replacedBy == ["HP:0000101"])
        #expect(document.terms.first { $0.id == "HP:0000998" }?.consider == ["HP:0000202"])
    }

    @Test func resolvesObsoleteAndAlternativeIDs() throws {
        let ontology = try PhenotypeOntology(document: OBOParser.parse(Tiny.obo))
        #expect(ontology.termCount == 10)  // 12 stanzas minus 2 obsolete
        let a1 = try #require(ontology.resolve("HP:0000101").term)
        #expect(ontology.resolve("HP:0000101") == .current(a1))
        #expect(ontology.resolve("HP:0000999") == .replaced(a1))
        let a2 = try #require(ontology.resolve("HP:0000102").term)
        #expect(ontology.resolve("HP:0000103") == .alternative(a2))
        #expect(ontology.resolve("HP:0000998") == .obsoleteWithoutReplacement(consider: ["HP:0000202"]))
        #expect(ontology.resolve("HP:1234567") == .unknown)
    }

    @Test("a replaced_by chain 200,000 terms long resolves to its current term, without the thread's stack")
    func longReplacedByChain() throws {
        var obo = "format-version: 1.2\n\n[Term]\nid: HP:0000001\nname: All\n"
        let length = 200_000
        for step in 0..<length {
            let target = step + 1 < length ? "X:\(step + 1)" : "HP:0000001"
            obo += "\n[Term]\nid: X:\(step)\nname: obsolete \(step)\nis_obsolete: true\nreplaced_by: \(target)\n"
        }
        let ontology = try PhenotypeOntology(document: OBOParser.parse(obo))
        let root = try #require(ontology.resolve("HP:0000001").term)
        #expect(ontology.resolve("X:0") == .replaced(root))
        #expect(ontology.resolve("X:199999") == .replaced(root))
    }

    @Test func fixtureObsoleteTermsResolveThroughReplacedBy() throws {
        let ontology = try PhenotypeOntology(document: OBOParser.parse(Fixture.text("hp", "obo")))
        // Real HPO 2025-01-16: HP:0040168 "obsolete Focal seizures, afebril" → HP:0007359.
        let focal = try #require(ontology.resolve("HP:0007359").term)
        #expect(ontology.resolve("HP:0040168") == .replaced(focal))
        // HP:0001275 is an alt_id of Seizure (HP:0001250).
        let seizure = try #require(ontology.resolve("HP:0001250").term)
        #expect(ontology.resolve("HP:0001275") == .alternative(seizure))
        #expect(ontology.termCount == 59)
        // Every term reaches the root HP:0000001.
        let root = try #require(ontology.resolve("HP:0000001").term)
        for t in 0..<ontology.termCount {
            #expect(ontology.isAncestor(root, of: TermIndex(Int32(t))))
        }
    }

    @Test func ancestorsIncludeSelfAndFollowEveryParent() throws {
        let kb = try Tiny.knowledgeBase()
        let ontology = kb.ontology
        let ab = try term(kb, "HP:0000300")
        let ids = Set(ontology.ancestors(of: ab).map { ontology.id(of: $0) })
        #expect(ids == ["HP:0000300", "HP:0000101", "HP:0000100", "HP:0000201", "HP:0000200", "HP:0000118", "HP:0000001"])
        let descendants = Set(ontology.descendants(of: try term(kb, "HP:0000200")).map { ontology.id(of: $0) })
        #expect(descendants == ["HP:0000200", "HP:0000201", "HP:0000202", "HP:0000300"])
    }

    @Test(arguments: [
        ("[Term]\nid: HP:0000001\nname: All\nthis line has no colon\n", 4, PhenotypeRankingError.Code.malformedLine),
        ("[Term]\nid: HP:0000001\nsynonym: \"unterminated EXACT []\n", 3, .invalidSynonym),
        ("[Term]\nid: HP:0000001\nsynonym: \"x\" SIDEWAYS []\n", 3, .invalidSynonym),
        ("[Term]\nid: HP:0000001\nis_obsolete: maybe\n", 3, .invalidBoolean),
        ("\n[Term]\nname: no id\n", 2, .missingTermID),
        ("[Term]\nid: HP:0000001\n\n[Term]\nid: HP:0000001\n", 4, .duplicateTermID),
        ("[Term]\nid: HP:0000001\nis_a: notanid\n", 3, .invalidTermID),
        ("[Term\nid: HP:0000001\n", 1, .malformedLine),
    ])
    func badInputFailsWithLineNumber(text: String, line: Int, code: PhenotypeRankingError.Code) {
        #expect {
            try OBOParser.parse(text)
        } throws: { error in
            let error = error as? PhenotypeRankingError
            return error?.code == code && error?.line == line && error?.format == .obo
        }
    }

    @Test func unknownParentAndCycleAreReportedWithTheStanzaLine() throws {
        let unknownParent = "[Term]\nid: HP:0000001\n\n[Term]\nid: HP:0000002\nis_a: HP:0000003\n"
        #expect {
            try PhenotypeOntology(document: OBOParser.parse(unknownParent))
        } throws: { error in
            (error as? PhenotypeRankingError)?.code == .unknownParent && (error as? PhenotypeRankingError)?.line == 4
        }
        let cycle = "[Term]\nid: HP:0000001\nis_a: HP:0000002\n\n[Term]\nid: HP:0000002\nis_a: HP:0000001\n"
        #expect {
            try PhenotypeOntology(document: OBOParser.parse(cycle))
        } throws: { error in
            (error as? PhenotypeRankingError)?.code == .cycle
        }
    }

    @Test func parsesDataAndCRLF() throws {
        let text = "format-version: 1.2\r\n\r\n[Term]\r\nid: HP:0000001\r\nname: All\r\n"
        let document = try OBOParser.parse(Data(text.utf8))
        #expect(document.terms.map(\.name) == ["All"])
    }
}

@Suite struct HPOAParserTests {
    @Test func keepsPhenotypeRowsWithoutNOT() throws {
        let set = try HPOAParser.parse(Tiny.hpoa)
        #expect(set.version == "2024-01-01")
        #expect(set.annotations.count == 6)
        #expect(set.negatedCount == 1)
        #expect(set.otherAspectCount == 1)
        #expect(set.otherDatabaseCount == 1)  // MONDO:5
        #expect(!set.annotations.contains { $0.diseaseID == "OMIM:2" && $0.termID == "HP:0000202" })
        #expect(set.annotations.first?.line == 4)
        #expect(set.annotations.first?.evidence == "TAS")
    }

    @Test func databaseFilter() throws {
        let set = try HPOAParser.parse(Tiny.hpoa, databases: ["MONDO"])
        #expect(set.annotations.map(\.diseaseID) == ["MONDO:5"])
    }

    @Test func fixtureExcludesNegatedAndNonPhenotypeRows() throws {
        let set = try HPOAParser.parse(Fixture.text("phenotype", "hpoa"))
        #expect(set.version == "2025-01-16")
        // ORPHA:307 (Juvenile myoclonic epilepsy) is annotated NOT Intellectual disability.
        #expect(!set.annotations.contains { $0.diseaseID == "ORPHA:307" && $0.termID == "HP:0001249" })
        #expect(set.negatedCount == 1)
        #expect(set.otherAspectCount == 6)  // mode-of-inheritance rows
        #expect(Set(set.annotations.map(\.diseaseID)).count == 12)
    }

    @Test(arguments: [
        ("#c\n\(Tiny.header)\nOMIM:1\tX\t\tHP:0000101\n", 3, PhenotypeRankingError.Code.wrongColumnCount),
        ("#c\nnot the header\n", 2, .missingHeader),
        ("#only comments\n", 1, .missingHeader),
        ("\(Tiny.header)\n\(Tiny.row("OMIM:1", "X", "HP:0000101", qualifier: "MAYBE"))\n", 2, .invalidQualifier),
        ("\(Tiny.header)\n\(Tiny.row("OMIM:1", "X", "HP:0000101", aspect: "Z"))\n", 2, .invalidAspect),
        ("\(Tiny.header)\n\(Tiny.row("OMIM1", "X", "HP:0000101"))\n", 2, .invalidDiseaseID),
        ("\(Tiny.header)\n\(Tiny.row("OMIM:1", "X", "0000101"))\n", 2, .invalidTermID),
    ])
    func badRowsFailWithLineNumber(text: String, line: Int, code: PhenotypeRankingError.Code) {
        #expect {
            try HPOAParser.parse(text)
        } throws: { error in
            let error = error as? PhenotypeRankingError
            return error?.code == code && error?.line == line && error?.format == .hpoa
        }
    }

    @Test func errorDescriptionNamesFileAndLine() {
        let error = PhenotypeRankingError(.wrongColumnCount, "expected 12 columns", format: .hpoa, line: 7)
        #expect(error.description == "phenotype.hpoa line 7: expected 12 columns")
    }

    @Test func knowledgeBaseMapsObsoleteAnnotationsWithWarnings() throws {
        let hpoa = [
            Tiny.header, Tiny.row("OMIM:1", "One", "HP:0000999"), Tiny.row("OMIM:1", "One", "HP:7777777"),
            Tiny.row("OMIM:2", "Two", "HP:0000103"), Tiny.row("OMIM:2", "Two", "HP:0000005"),
        ]
        .joined(separator: "\n")
        let kb = try PhenotypeKnowledgeBase(obo: Tiny.obo, hpoa: hpoa)
        #expect(kb.warnings.map(\.code) == [.obsoleteTermMapped, .unknownTerm, .alternativeIDMapped, .outsidePhenotypeRoot])
        #expect(kb.warnings.map(\.line) == [2, 3, 4, 5])
        #expect(kb.warnings[0].mappedTo == "HP:0000101")
        #expect(kb.phenotypes(ofDisease: "OMIM:1")?.map(\.term.id) == ["HP:0000101"])
        #expect(kb.phenotypes(ofDisease: "OMIM:2")?.map(\.term.id) == ["HP:0000102"])
    }
}
