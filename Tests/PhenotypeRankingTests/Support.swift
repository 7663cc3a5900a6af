import Foundation
import Testing

@testable import PhenotypeRanking

/// A hand-made ontology small enough to compute everything by hand.
///
/// ```
/// HP:0000001 All
/// ├── HP:0000005 Mode of inheritance          (not a phenotype)
/// └── HP:0000118 Phenotypic abnormality
///     ├── HP:0000100 A
///     │   ├── HP:0000101 A1 ─┐
///     │   └── HP:0000102 A2  │
///     └── HP:0000200 B       ├── HP:0000300 AB (is_a A1 and B1; annotated to no disease)
///         ├── HP:0000201 B1 ─┘
///         └── HP:0000202 B2
/// HP:0000999 obsolete, replaced_by HP:0000101;  HP:0000998 obsolete, no replacement
/// HP:0000103 is an alt_id of HP:0000102
/// ```
///
/// Diseases: OMIM:1 {A1, B1}, OMIM:2 {A2}, OMIM:3 {B1, B2}, OMIM:4 {A1}.
///
/// Propagated counts (D = 4) and IC = −ln(count / 4):
/// All, 118: 4 → 0;  A: 3 (1, 2, 4) → ln(4/3) ≈ 0.28768;  A1: 2 (1, 4) → ln 2 ≈ 0.69315;
/// A2: 1 → ln 4 ≈ 1.38629;  B: 2 (1, 3) → ln 2;  B1: 2 (1, 3) → ln 2;  B2: 1 → ln 4;
/// AB: 0 → ln 4 by convention (= ln D).
enum Tiny {
    static let obo = """
        format-version: 1.2
        data-version: tiny/2024-01-01

        [Term]
        id: HP:0000001
        name: All

        [Term]
        id: HP:0000005
        name: Mode of inheritance
        is_a: HP:0000001 ! All

        [Term]
        id: HP:0000118
        name: Phenotypic abnormality
        is_a: HP:0000001 ! All

        [Term]
        id: HP:0000100
        name: Abnormality A
        is_a: HP:0000118

        [Term]
        id: HP:0000101
        name: A one
        synonym: "First \\"A\\" finding" EXACT []
        is_a: HP:0000100

        [Term]
        id: HP:0000102
        name: A two
        alt_id: HP:0000103
        is_a: HP:0000100

        [Term]
        id: HP:0000200
        name: Abnormality B
        is_a: HP:0000118

        [Term]
        id: HP:0000201
        name: B one
        is_a: HP:0000200 ! Abnormality B

        [Term]
        id: HP:0000202
        name: B two
        synonym: "Bee second" RELATED []
        is_a: HP:0000200

        [Term]
        id: HP:0000300
        name: A one and B one
        is_a: HP:0000101
        is_a: HP:0000201

        [Term]
        id: HP:0000999
        name: obsolete A one
        is_obsolete: true
        replaced_by: HP:0000101

        [Term]
        id: HP:0000998
        name: obsolete something
        is_obsolete: true
        consider: HP:0000202

        [Typedef]
        id: part_of
        name: part of

        """

    static let header =
        "database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\tmodifier\taspect\tbiocuration"

    static func row(
        _ disease: String, _ name: String, _ term: String, qualifier: String = "", frequency: String = "", aspect: String = "P"
    ) -> String {
        [disease, name, qualifier, term, "PMID:1", "TAS", "", frequency, "", "", aspect, "HPO:test[2024-01-01]"]
            .joined(separator: "\t")
    }

    static let hpoa =
        (["#description: tiny", "#version: 2024-01-01", header] + [
            row("OMIM:1", "Disease one", "HP:0000101"),
            row("OMIM:1", "Disease one", "HP:0000201"),
            row("OMIM:1", "Disease one", "HP:0000005", aspect: "I"),
            row("OMIM:2", "Disease two", "HP:0000102"),
            row("OMIM:2", "Disease two", "HP:0000202", qualifier: "NOT"),
            row("OMIM:3", "Disease three", "HP:0000201"),
            row("OMIM:3", "Disease three", "HP:0000202"),
            row("OMIM:4", "Disease four", "HP:0000101"),
            row("MONDO:5", "Other database", "HP:0000101"),
        ]).joined(separator: "\n") + "\n"

    static func knowledgeBase() throws -> PhenotypeKnowledgeBase {
        try PhenotypeKnowledgeBase(obo: obo, hpoa: hpoa)
    }

    static let ln2 = log(2.0)
    static let ln4 = log(4.0)
    static let ln4over3 = log(4.0 / 3.0)
}

enum Fixture {
    static func text(_ name: String, _ ext: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func knowledgeBase() throws -> PhenotypeKnowledgeBase {
        try PhenotypeKnowledgeBase(obo: text("hp", "obo"), hpoa: text("phenotype", "hpoa"))
    }

    /// Fixture knowledge base with an asymmetric and a symmetric null (small N: fast tests).
    static func ranker(sampleCount: Int = 2_000) throws -> PhenotypeRanker {
        let kb = try knowledgeBase()
        let asymmetric = try NullDistribution.build(
            for: kb, options: NullDistributionOptions(sampleCount: sampleCount, maxQuerySize: 6, seed: 11))
        let symmetric = try NullDistribution.build(
            for: kb, options: NullDistributionOptions(scoring: .symmetric, sampleCount: 500, maxQuerySize: 6, seed: 11))
        return try PhenotypeRanker(knowledgeBase: kb, nullDistributions: [asymmetric, symmetric])
    }
}

func term(_ kb: PhenotypeKnowledgeBase, _ id: String) throws -> TermIndex {
    try #require(kb.ontology.resolve(id).term)
}

func isClose(_ a: Double, _ b: Double, tolerance: Double = 1e-5) -> Bool { abs(a - b) <= tolerance }

/// Query terms drawn from the sampling universe by `picks`, leaving out `e`, its ancestors and its descendants: a query
/// that says nothing of the finding `e`, for the properties of excluding it.
func unrelatedQuery(_ kb: PhenotypeKnowledgeBase, avoiding e: Int32, picks: [UInt64]) -> [String] {
    let universe = kb.samplingUniverse
    return picks.compactMap { p in
        let t = universe[Int(p % UInt64(universe.count))]
        let related = t == e || kb.ontology.isAncestor(t, of: Int(e)) || kb.ontology.isAncestor(e, of: Int(t))
        return related ? nil : kb.ontology.termIDs[Int(t)]
    }
}
