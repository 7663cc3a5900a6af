import CaretideSchemas
import Foundation
import Testing

@testable import DiagnosisService

/// A doctor's saved query: what a body saves when it leaves things out, the bounds its schema sets, and the ranking
/// it asks for once it has a phenotype to rank.
@Suite struct SavedQueryRulesTests {
    static let at = Date(timeIntervalSince1970: 1_795_336_200)  // 2026-11-22T08:30:00Z

    static func saved(_ phenotypes: [String], excluded: [String] = [], scoring: String = "asymmetric") -> SavedQueryStore.SavedQuery {
        SavedQueryStore.SavedQuery(
            queryId: UUID(uuidString: "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11")!, name: "first visit", phenotypes: phenotypes, excluded: excluded,
            scoring: scoring, createdAt: at, updatedAt: at)
    }

    /// The pointers the saved-query schema refuses `body` at, each once.
    static func refused(_ body: [String: JSONValue]) -> Set<String> {
        Set(SchemaCatalog.bundled.validateRequest(.savedQuery, .object(body)).map(\.pointer))
    }

    static func ids(_ count: Int) -> JSONValue {
        .array((0..<count).map { .string("HP:" + String(repeating: "0", count: 7 - String($0).count) + String($0)) })
    }

    @Test("a body without excluded terms or scoring saves none excluded and asymmetric scoring; what it gives is kept")
    func contentDefaults() {
        let bare = SavedQueryRoutes.Body(name: "first visit", phenotypes: ["HP:0001250"], excluded: nil, scoring: nil, overwrite: nil).content
        #expect(bare.name == "first visit" && bare.phenotypes == ["HP:0001250"] && bare.excluded.isEmpty && bare.scoring == .asymmetric)
        let full = SavedQueryRoutes.Body(
            name: "second visit", phenotypes: ["HP:0001250"], excluded: ["HP:0000707"], scoring: .symmetric, overwrite: true
        ).content
        #expect(full.excluded == ["HP:0000707"] && full.scoring == .symmetric)
    }

    @Test("a query with no phenotypes is kept but has nothing to rank")
    func emptyQueryIsNotRanked() {
        #expect(SavedQueryRoutes.rankingQuery(Self.saved([])) == nil)
        #expect(SavedQueryRoutes.rankingQuery(Self.saved([], excluded: ["HP:0000707"])) == nil)
    }

    @Test("a saved query ranks its phenotypes and exclusions with its scoring, the rest as a ranking request's defaults")
    func rankingOfASavedQuery() {
        let query = SavedQueryRoutes.rankingQuery(Self.saved(["HP:0001250", "HP:0002069"], excluded: ["HP:0000707"], scoring: "symmetric"))
        #expect(query == RankingQuery(phenotypes: ["HP:0001250", "HP:0002069"], excluded: ["HP:0000707"], scoring: .symmetric))
        #expect(query?.maxResults == 20 && query?.suggestPhenotypes == false && query?.method == .likelihoodRatio)
        #expect(SavedQueryRoutes.rankingQuery(Self.saved(["HP:0001250"]))?.scoring == .asymmetric)
        // A scoring this build does not know (a row older or newer than it) ranks with the default rather than failing.
        #expect(SavedQueryRoutes.rankingQuery(Self.saved(["HP:0001250"], scoring: "cosine"))?.scoring == .asymmetric)
    }

    @Test("names of 1 to 200 characters with something besides spaces; up to 100 HPO ids of each kind; a known scoring")
    func schemaBounds() {
        let valid: [String: JSONValue] = ["name": .string("first visit"), "phenotypes": Self.ids(1)]
        #expect(Self.refused(valid).isEmpty)
        #expect(Self.refused(valid.merging(["phenotypes": .array([])]) { $1 }).isEmpty)
        #expect(Self.refused(valid.merging(["name": .string(String(repeating: "n", count: 200))]) { $1 }).isEmpty)
        #expect(Self.refused(valid.merging(["name": .string(String(repeating: "n", count: 201))]) { $1 }) == ["/name"])
        #expect(Self.refused(valid.merging(["name": .string("")]) { $1 }) == ["/name"])
        #expect(Self.refused(valid.merging(["name": .string("   ")]) { $1 }) == ["/name"])

        #expect(Self.refused(valid.merging(["phenotypes": Self.ids(100), "excluded": Self.ids(100)]) { $1 }).isEmpty)
        #expect(Self.refused(valid.merging(["phenotypes": Self.ids(101)]) { $1 }) == ["/phenotypes"])
        #expect(Self.refused(valid.merging(["excluded": Self.ids(101)]) { $1 }) == ["/excluded"])
        #expect(Self.refused(valid.merging(["phenotypes": .array([.string("HP:000125")])]) { $1 }) == ["/phenotypes/0"])
        #expect(Self.refused(valid.merging(["excluded": .array([.string("OMIM:154700")])]) { $1 }) == ["/excluded/0"])

        #expect(Self.refused(valid.merging(["scoring": .string("symmetric"), "overwrite": .bool(true)]) { $1 }).isEmpty)
        #expect(Self.refused(valid.merging(["scoring": .string("cosine")]) { $1 }) == ["/scoring"])
        #expect(Self.refused(["name": .string("first visit")]) == ["/phenotypes"])
    }
}
