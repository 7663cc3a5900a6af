import CaretideSchemas
import Foundation
import PhenotypeRanking

/// What one ontology release consists of, as read from the HPO files or back from PostgreSQL: the parsed `hp.obo`
/// and, for a full update, the kept rows of `phenotype.hpoa`.
struct ReleaseContent: Sendable {
    var kind: OntologyUpdateKind
    var document: OBODocument
    /// `nil` for a minimum update.
    var annotations: HPOAnnotationSet?

    /// Parses the release files. A full update needs the annotation file; a minimum update ignores it.
    static func parse(kind: OntologyUpdateKind, ontology: Data, annotations: Data?) throws -> ReleaseContent {
        let document = try OBOParser.parse(ontology)
        switch kind {
        case .minimum:
            return ReleaseContent(kind: kind, document: document, annotations: nil)
        case .full:
            guard let annotations else { throw OntologyImportError.annotationFileRequired }
            return ReleaseContent(kind: kind, document: document, annotations: try HPOAParser.parse(annotations))
        }
    }

    /// Diseases in first-seen order with the name of their first row (the names `phenotype.hpoa` repeats per row).
    var diseases: [(id: String, name: String)] {
        var seen = Set<String>()
        var diseases: [(id: String, name: String)] = []
        for row in annotations?.annotations ?? [] where seen.insert(row.diseaseID).inserted {
            diseases.append((row.diseaseID, row.diseaseName))
        }
        return diseases
    }
}

/// Why an import was refused. The previous release keeps serving.
enum OntologyImportError: Error, CustomStringConvertible {
    case annotationFileRequired
    case unreadableFile(String)
    case invalidRelease(String)
    /// Which file of the event (ontology or annotation); the path itself is not repeated, it is caller text.
    case fileNotAllowed(String)
    case importsByEventDisabled

    var description: String {
        switch self {
        case .annotationFileRequired: "a full update needs the annotation file (phenotype.hpoa)"
        case .unreadableFile(let path): "cannot read \(path)"
        case .invalidRelease(let reason): "the release is not usable: \(reason)"
        case .fileNotAllowed(let which): "the \(which) file is not a regular file of at most 512 MiB under the HPO data directory"
        case .importsByEventDisabled: "imports by event are off: set HPO_DATA_DIR to the directory holding the release files"
        }
    }
}
