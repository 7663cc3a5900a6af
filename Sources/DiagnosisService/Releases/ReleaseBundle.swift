import CaretideRuntime
import CaretideSchemas
import Crypto
import Foundation
import PhenotypeRanking
import Synchronization

/// The serving release as one file for an app that ranks offline (the seed's open question: diagnosis without the
/// internet). A `ustar` archive of, in this order:
/// - `LICENSE-HPO.txt`: the HPO licence's conditions, the release's versions and the acknowledgement to display;
/// - `terms.tsv`: every current term: id, name, parents (`|`-separated ids), information content (natural log, full
///   precision), and how many diseases are annotated with it or a descendant;
/// - `mappings.tsv`: every alternative and obsolete id with the current term it maps to (`alternative`, `replaced`),
///   or `obsolete` with the curators' `consider` ids, so an app resolves old ids as the service does;
/// - `diseases.tsv`: id and name;
/// - `annotations.tsv`: disease id and term id, one row per phenotype annotation as ranked (aspect P, no `NOT`, alt
///   and obsolete ids mapped to the current term, as the HPO's own `alt_id` and `replaced_by` say; a disease other
///   sources also name has their annotations too, docs/clinical-rules.md §11 item 2);
/// - `null-asymmetric.prnl`, `null-symmetric.prnl`: the null distributions in `NullDistribution`'s serialised form
///   (its documentation gives the layout; each records the knowledge base's fingerprint and a checksum);
/// - `MANIFEST.json`, last: the format, the release, the method, the fingerprint, and each file's size and SHA-256.
///
/// The bytes depend on the release alone (the files' time is the ontology's release date), so a bundle has one
/// checksum, computed at its first download and kept with the release; a download makes the files one at a time
/// and never holds the whole archive (about 60 MB for the full release) in memory.
struct ReleaseBundle: Sendable {
    static let formatVersion = 1

    enum Part: String, CaseIterable, Sendable {
        case licence = "LICENSE-HPO.txt"
        case terms = "terms.tsv"
        case mappings = "mappings.tsv"
        case diseases = "diseases.tsv"
        case annotations = "annotations.tsv"
        case asymmetricNull = "null-asymmetric.prnl"
        case symmetricNull = "null-symmetric.prnl"
    }

    /// What the first pass over a release's bundle learnt: each part's size and SHA-256, the manifest, and the
    /// archive's size and SHA-256.
    struct Digest: Sendable {
        struct Entry: Encodable, Sendable {
            let name: String
            let bytes: Int
            let sha256: String
        }
        let entries: [Entry]
        let manifest: [UInt8]
        let size: Int
        let sha256: [UInt8]

        var sha256Hex: String { sha256.hexString }
    }

    let release: ServingRelease
    let ranker: PhenotypeRanker

    /// The bundle of a release that can rank (a full update); nil after a minimum update.
    init?(release: ServingRelease) {
        guard let ranker = release.ranker else { return nil }
        self.release = release
        self.ranker = ranker
    }

    var fileName: String {
        let version = release.reference.ontologyVersion.map { "-" + $0.split(separator: "/").last.map(String.init)! } ?? ""
        return "caretide-hpo-release-\(release.reference.releaseID)\(version).tar"
    }

    /// Seconds since 1970 of the ontology's release date (`hp/releases/2025-01-16`), 0 when it has none.
    var modified: Int {
        guard let version = release.reference.ontologyVersion, let day = version.split(separator: "/").last else { return 0 }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd"
        // bounded: a yyyy-MM-dd date.
        return format.date(from: String(day)).map { Int($0.timeIntervalSince1970) } ?? 0
    }

    // MARK: The archive

    /// The digest kept with the release, read at the first download (two downloads at once may both read it; they
    /// agree).
    func knownDigest() async throws -> Digest {
        if let known = release.bundleDigest.withLock({ $0 }) { return known }
        let digest = try await runOffCooperativePool { try self.digest() }
        release.bundleDigest.withLock { $0 = digest }
        return digest
    }

    /// Reads every part once: their checksums, the manifest, the archive's size and checksum.
    func digest() throws -> Digest {
        var archive = SHA256()
        var size = 0
        var entries: [Digest.Entry] = []
        for part in Part.allCases {
            let bytes = try content(of: part)
            entries.append(Digest.Entry(name: part.rawValue, bytes: bytes.count, sha256: SHA256.hash(data: bytes).hexString))
            for chunk in archived(part.rawValue, bytes) {
                archive.update(data: chunk)
                size += chunk.count
            }
        }
        let manifest = try self.manifest(entries)
        for chunk in archived("MANIFEST.json", manifest) + [TarArchive.end] {
            archive.update(data: chunk)
            size += chunk.count
        }
        return Digest(entries: entries, manifest: manifest, size: size, sha256: Array(archive.finalize()))
    }

    /// The archive's blocks for one file: header, content, padding.
    func archived(_ name: String, _ bytes: [UInt8]) -> [[UInt8]] {
        [TarArchive.header(name: name, size: bytes.count, modified: modified), bytes, TarArchive.padding(after: bytes.count)]
    }

    // MARK: The parts

    func content(of part: Part) throws -> [UInt8] {
        let kb = ranker.knowledgeBase
        let ontology = kb.ontology
        switch part {
        case .licence:
            return Array(licence.utf8)
        case .terms:
            var out = "id\tname\tparents\tinformation_content\tdisease_count\n"
            for t in 0..<ontology.termCount {
                let term = TermIndex(Int32(t))
                let parents = ontology.parents(of: term).map { ontology.id(of: $0) }.joined(separator: "|")
                out += "\(ontology.id(of: term))\t\(Self.field(ontology.name(of: term)))\t\(parents)\t"
                out += "\(kb.informationContent(of: term))\t\(kb.diseaseCountByTerm[t])\n"
            }
            return Array(out.utf8)
        case .mappings:
            var out = "id\tstatus\tterm_id\tconsider\n"
            for (id, resolution) in ontology.identifierMappings {
                switch resolution {
                case .alternative(let term): out += "\(id)\talternative\t\(ontology.id(of: term))\t\n"
                case .replaced(let term): out += "\(id)\treplaced\t\(ontology.id(of: term))\t\n"
                case .obsoleteWithoutReplacement(let consider): out += "\(id)\tobsolete\t\t\(consider.joined(separator: "|"))\n"
                case .current, .unknown: continue
                }
            }
            return Array(out.utf8)
        case .diseases:
            var out = "id\tname\n"
            for (id, name) in zip(kb.diseaseIDs, kb.diseaseNames) { out += "\(id)\t\(Self.field(name))\n" }
            return Array(out.utf8)
        case .annotations:
            var out = "disease_id\tterm_id\n"
            for (d, id) in kb.diseaseIDs.enumerated() {
                for term in kb.annotations(ofDisease: d) { out += "\(id)\t\(ontology.id(of: term))\n" }
            }
            return Array(out.utf8)
        case .asymmetricNull, .symmetricNull:
            let scoring: ScoringMode = part == .asymmetricNull ? .asymmetric : .symmetric
            guard let null = ranker.nullDistribution(for: scoring) else {
                throw OntologyImportError.invalidRelease("the release has no \(scoring) null distribution")
            }
            return null.encoded()
        }
    }

    /// A value that cannot break a TSV row (HPO names hold no tab or line break, but a release is data).
    static func field(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }

    var licence: String {
        let reference = release.reference
        return """
            Human Phenotype Ontology: licence and acknowledgement

            This bundle holds data of the Human Phenotype Ontology (HPO), ontology release \
            \(reference.ontologyVersion ?? "unknown") and annotation release \(reference.annotationVersion ?? "unknown"), \
            as Caretide's diagnosis-service loaded it (release \(reference.releaseID)). The terms, their names, their \
            is-a relations and the disease annotations are the HPO's, unaltered, in another layout (the annotations are \
            the phenotype rows, aspect P without NOT, with alternative and obsolete ids mapped to the current term as the \
            HPO's alt_id and replaced_by say). The information content and the null distributions are Caretide's, \
            computed from them.

            The HPO's licence (https://hpo.jax.org/license) lets anyone use it on three conditions:
            - that the Human Phenotype Ontology Consortium is acknowledged and cited;
            - that HPO files displayed publicly show their dates or version numbers;
            - that neither the content of the HPO files nor the logical relationships in them are altered in any way
              (changes are suggested on the HPO's issue tracker).
            Services and products show a short acknowledgement, such as:

                This service/product is using the Human Phenotype Ontology (\(reference.ontologyVersion ?? "version unknown")). \
            Find out more at https://hpo.jax.org.

            Cite: Gargano MA et al. The Human Phenotype Ontology in 2024: phenotypes around the world. Nucleic Acids Res \
            2024;52(D1):D1333-46.

            """
    }

    struct Manifest: Encodable {
        let format = "caretide-phenotype-bundle"
        let formatVersion = ReleaseBundle.formatVersion
        let release: OntologyReleaseReference
        let knowledgeBaseFingerprint: String
        let termCount: Int
        let diseaseCount: Int
        let annotationCount: Int
        let method: Method
        let files: [Digest.Entry]
        let licence: String

        struct Method: Encodable {
            let similarity = "Resnik: the information content (natural log) of the most informative common ancestor"
            let scoring = "asymmetric: mean over the query terms of the best match in the disease; symmetric: the mean of both directions"
            let pValue = "(null scores at least as high + 1) / (samples + 1), per disease and query size (Köhler et al. 2009)"
            let ordering: String
            let adjustment = "Benjamini-Hochberg over all diseases"
            let nullFormat =
                "PRNL version 1 (NullDistribution.encoded()): little-endian header, then per disease and query size the binned histogram as LEB128 varints, then an FNV-1a 64 checksum"
        }
    }

    func manifest(_ entries: [Digest.Entry]) throws -> [UInt8] {
        let kb = ranker.knowledgeBase
        let manifest = Manifest(
            release: release.reference, knowledgeBaseFingerprint: String(kb.fingerprint, radix: 16), termCount: kb.termCount,
            diseaseCount: kb.diseaseCount, annotationCount: kb.annotationCount,
            method: Manifest.Method(ordering: RankingOrdering.standard.description), files: entries,
            licence: "HPO data under https://hpo.jax.org/license: see LICENSE-HPO.txt")
        return Array(try CaretideJSON.encodeToString(manifest).utf8)
    }
}

extension Sequence<UInt8> {
    /// Lower-case hexadecimal.
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
