import Foundation
import PhenotypeRanking

/// Bytes as an uploaded `hp.obo`: parsed, and what parses is built into an ontology as an import does (is_a resolved
/// through alt_ids and replaced_by, cycles refused, ancestors closed).
@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let document: OBODocument
    do {
        document = try OBOParser.parse(data)
    } catch {
        // Malformed stanzas are refused with their line: expected.
        return 0
    }
    _ = try? PhenotypeOntology(document: document)
    return 0
}
