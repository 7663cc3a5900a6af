import Foundation

/// The newest release this deployment knows of: the HPO files an operator has put in the data directory
/// (`HPO_DATA_DIR`, the only place an import by event reads), named by the versions their headers give — `hp.obo`'s
/// `data-version:` and `phenotype.hpoa`'s `#version:`. Caretide does not reach the internet to look for one; fetching
/// a new release into the directory is the operator's (`scripts/fetch-hpo-release`).
struct StagedRelease: Sendable, Equatable, Encodable {
    static let ontologyFile = "hp.obo"
    static let annotationFile = "phenotype.hpoa"

    let ontologyVersion: String?
    let annotationVersion: String?
    let source = "the release files in the HPO data directory (HPO_DATA_DIR)"

    /// The staged release, or nil when there is no data directory or the files are not both there.
    static func read(_ files: ReleaseFileGuard) -> StagedRelease? {
        guard let ontology = try? files.resolve(ontologyFile, which: "ontology"),
            let annotations = try? files.resolve(annotationFile, which: "annotation")
        else { return nil }
        return StagedRelease(
            ontologyVersion: headerValue(ontology, prefix: "data-version:"), annotationVersion: headerValue(annotations, prefix: "#version:"))
    }

    /// The value of the first line starting with `prefix` in the file's first 64 KiB (both headers sit at the top).
    static func headerValue(_ path: String, prefix: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64 * 1024) else { return nil }
        return headerValue(head: head, prefix: prefix)
    }

    /// `headerValue` on the bytes read: only the first line with the prefix counts, and a blank value is none.
    static func headerValue(head: Data, prefix: String) -> String? {
        for line in String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline) where line.hasPrefix(prefix) {
            let value = line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
