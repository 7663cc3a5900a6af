import Foundation
import PhenotypeRanking

/// The ontology the annotations are resolved against: the test fixture's extract of hp.obo (59 current terms, alt_ids,
/// two obsolete terms with replaced_by), read from the checkout this target was built from.
private let ontology: PhenotypeOntology = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
    let path = root.appendingPathComponent("Tests/PhenotypeRankingTests/Fixtures/hp.obo").path
    guard let data = FileManager.default.contents(atPath: path) else { fatalError("FuzzHPOA needs \(path)") }
    do {
        return try PhenotypeOntology(document: OBOParser.parse(data))
    } catch {
        fatalError("FuzzHPOA: \(path) does not load: \(error)")
    }
}()

/// Bytes as an uploaded `phenotype.hpoa`: parsed, and what parses is built into a knowledge base over the fixture's
/// ontology, as a full import does (term ids resolved, rows outside the phenotype root skipped, information content).
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let annotations: HPOAnnotationSet
    do {
        annotations = try HPOAParser.parse(data)
    } catch {
        // Malformed rows are refused with their line: expected.
        return 0
    }
    _ = try? PhenotypeKnowledgeBase(ontology: ontology, annotations: annotations)
    return 0
}
