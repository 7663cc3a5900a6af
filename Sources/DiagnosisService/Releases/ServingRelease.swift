import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging
import PhenotypeRanking
import PostgresNIO
import Synchronization

/// One ontology release in memory, ready to answer searches and (after a full update) rankings. Immutable: a newer
/// release replaces it as a whole, so a request keeps the release it started with.
final class ServingRelease: Sendable {
    let reference: OntologyReleaseReference
    let ontology: PhenotypeOntology
    let search: PhenotypeSearchIndex
    /// `nil` after a minimum update (terms and graph only).
    let ranker: PhenotypeRanker?
    /// The diseases in the order the Diseases list shows them: by name, case and accents ignored, then by id.
    let diseasesByName: [Int]
    /// The phenotypes (current terms below Phenotypic abnormality, HP:0000118) in the order the Features list shows
    /// them: by name, case and accents ignored, then by id.
    let phenotypesByName: [TermIndex]
    /// The offline bundle's checksums, once its first download has read it (`ReleaseBundle`).
    let bundleDigest = Mutex<ReleaseBundle.Digest?>(nil)

    var knowledgeBase: PhenotypeKnowledgeBase? { ranker?.knowledgeBase }

    init(reference: OntologyReleaseReference, ontology: PhenotypeOntology, knowledgeBase: PhenotypeKnowledgeBase?, nulls: [NullDistribution]) throws {
        self.reference = reference
        self.ontology = ontology
        let root = ontology.resolve("HP:0000118").term
        let phenotypes = root.map { root in ontology.descendants(of: root).filter { $0 != root } } ?? []
        phenotypesByName = Self.sortedByName(ids: phenotypes.map { ontology.id(of: $0) }, names: phenotypes.map { ontology.name(of: $0) })
            .map { phenotypes[$0] }
        if let knowledgeBase {
            search = PhenotypeSearchIndex(knowledgeBase: knowledgeBase)
            ranker = try PhenotypeRanker(knowledgeBase: knowledgeBase, nullDistributions: nulls)
            diseasesByName = Self.sortedByName(ids: knowledgeBase.diseaseIDs, names: knowledgeBase.diseaseNames)
        } else {
            search = try PhenotypeSearchIndex(ontology: ontology)
            ranker = nil
            diseasesByName = []
        }
    }

    /// Disease indices by name (folded for case and diacritics), then id, so the order is total and a cursor can
    /// resume it.
    static func sortedByName(ids: [String], names: [String]) -> [Int] {
        let keys = names.map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        return ids.indices.sorted { (keys[$0], ids[$0]) < (keys[$1], ids[$1]) }
    }

    /// Reads release `releaseID` from PostgreSQL and builds its in-memory structures; `nil` if it no longer exists.
    static func load(releaseID: Int, from store: ReleaseStore) async throws -> ServingRelease? {
        guard let (reference, content, nulls) = try await store.load(releaseID: releaseID) else { return nil }
        // Seconds of building indexes: on Dispatch's threads, not the cooperative ones the requests run on.
        return try await runOffCooperativePool {
            let ontology = try PhenotypeOntology(document: content.document)
            let knowledgeBase = try content.annotations.map { try PhenotypeKnowledgeBase.matching(nulls, ontology: ontology, annotations: $0) }
            return try ServingRelease(reference: reference, ontology: ontology, knowledgeBase: knowledgeBase, nulls: nulls)
        }
    }
}
