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

    /// `HP:0000001`, `HP:0000118` under it, then a chain of `length` terms (`chainID(1)`, `chainID(2)`, …) each under
    /// the one before (the k-th has k + 2 ancestors, itself included), then `leaves` terms under the chain's last.
    static func chain(length: Int, leaves: Int = 0) -> String {
        var obo = "format-version: 1.2\n\n[Term]\nid: HP:0000001\nname: All\n\n[Term]\nid: HP:0000118\nname: Phenotypic abnormality\n"
        obo += "is_a: HP:0000001\n"
        for k in 1...length { obo += "\n[Term]\nid: \(chainID(k))\nname: c\(k)\nis_a: \(k == 1 ? "HP:0000118" : chainID(k - 1))\n" }
        for leaf in 0..<leaves { obo += "\n[Term]\nid: HP:\(5_000_000 + leaf)\nname: l\(leaf)\nis_a: \(chainID(length))\n" }
        return obo
    }

    static func chainID(_ k: Int) -> String { "HP:\(1_000_000 + k)" }

    @Test("a term with more ancestors than the bound is refused, by its id and line; one at the bound is not")
    func deepChainIsRefused() throws {
        let limit = PhenotypeOntology.maximumAncestorsPerTerm
        let atBound = try PhenotypeOntology(document: OBOParser.parse(Self.chain(length: limit - 2)))
        let deepest = try #require(atBound.resolve(Self.chainID(limit - 2)).term)
        #expect(atBound.ancestors(of: deepest).count == limit)
        let error = try #require(throws: PhenotypeRankingError.self) {
            try PhenotypeOntology(document: OBOParser.parse(Self.chain(length: limit - 1)))
        }
        #expect(error.code == .tooLarge)
        #expect(error.message == "\(Self.chainID(limit - 1)) has more than \(limit) ancestors")
        // The stanza's `[Term]` line: ten lines of header and the two roots, then five lines a term.
        #expect(error.line == 12 + 5 * (limit - 2))
    }

    @Test("an is_a graph whose ancestor lists take more reading than the bound is refused, each term within its own")
    func ancestorReadingIsBounded() throws {
        let limit = PhenotypeOntology.maximumAncestorsPerTerm
        // Each leaf reads the chain's last list, `limit - 1` entries, and has `limit` ancestors: within the per-term bound.
        let leaves = PhenotypeOntology.maximumAncestorVisits / (limit - 1) + 1
        let error = try #require(throws: PhenotypeRankingError.self) {
            try PhenotypeOntology(document: OBOParser.parse(Self.chain(length: limit - 3, leaves: leaves)))
        }
        #expect(error.code == .tooLarge)
        #expect(error.message.hasSuffix("ancestor links to follow"))
        // The same chain with a leaf per thousand of those is built.
        let fewer = try PhenotypeOntology(document: OBOParser.parse(Self.chain(length: limit - 3, leaves: leaves / 1_000)))
        #expect(fewer.termCount == 2 + limit - 3 + leaves / 1_000)
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

@Suite struct KnowledgeBaseBoundsTests {
    @Test("annotations that reach more ancestors in all than the bound are refused; fewer diseases are loaded")
    func propagationIsBounded() throws {
        let depth = PhenotypeOntology.maximumAncestorsPerTerm - 2
        let obo = OBOParserTests.chain(length: depth)
        // Every disease is annotated with the chain's last term, which has `depth + 2` ancestors.
        let diseases = PhenotypeKnowledgeBase.maximumPropagationVisits / (depth + 2) + 1
        func hpoa(_ count: Int) -> String {
            ([Tiny.header] + (0..<count).map { Tiny.row("OMIM:\($0)", "disease \($0)", OBOParserTests.chainID(depth)) }).joined(separator: "\n")
                + "\n"
        }
        let error = try #require(throws: PhenotypeRankingError.self) { try PhenotypeKnowledgeBase(obo: obo, hpoa: hpoa(diseases)) }
        #expect(error.code == .tooLarge)
        #expect(error.format == .hpoa)
        let fewer = try PhenotypeKnowledgeBase(obo: obo, hpoa: hpoa(diseases / 1_000))
        #expect(fewer.diseaseCount == diseases / 1_000)
    }

    @Test("entries of one name from many sources, which pooling would multiply past the bound, are refused before they are pooled")
    func pooledAnnotationsAreBounded() throws {
        // g entries naming one disease, one per source, a finding each: pooled, g × g annotations at most.
        var sources = 1
        while sources * sources <= PhenotypeKnowledgeBase.maximumAnnotations { sources += 1 }
        func build(_ count: Int) throws(PhenotypeRankingError) -> PhenotypeKnowledgeBase {
            let hpoa = ([Tiny.header] + (0..<count).map { Tiny.row("S\($0):1", "One disease", "HP:0000102") }).joined(separator: "\n") + "\n"
            return try PhenotypeKnowledgeBase(obo: Tiny.obo, hpoa: hpoa, databases: Set((0..<count).map { "S\($0)" }))
        }
        let error = try #require(throws: PhenotypeRankingError.self) { try build(sources) }
        #expect(error.code == .tooLarge)
        #expect(error.format == .hpoa)
        // One entry fewer is within the bound, and is refused by the next, also before pooling: more than 255 sources.
        let next = try #require(throws: PhenotypeRankingError.self) { try build(sources - 1) }
        #expect(next.code == .noDiseases)
        // 255 entries are pooled: each is scored with the others' findings, which here are its own.
        let pooled = try build(255)
        #expect(pooled.diseaseCount == 255 && pooled.annotationCount == 255)
    }
}
