import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import NIOCore
import PhenotypeRanking
import PostgresNIO

/// Writes ontology releases to PostgreSQL and reads them back. Rows are inserted in large `unnest` batches: a full
/// release is ~19,000 terms, ~70,000 synonyms and relations, ~12,000 diseases and ~270,000 annotations.
struct ReleaseStore: ServiceStore {
    let session: StoreSession

    /// Serialises imports, so two updates started at once get consecutive release ids and one prune at a time.
    private static let importLockKey: Int64 = 0x4350_5448_4850_4F49  // "CPTHHPOI"
    private static let batchSize = 20_000

    // MARK: Writing

    func insert(
        _ prepared: OntologyImporter.PreparedRelease, updateID: String?, importSeconds: Double
    ) async throws -> Int {
        try await session.query("SELECT pg_advisory_xact_lock(\(Self.importLockKey))")
        let content = prepared.content
        let kb = prepared.knowledgeBase
        let accuracy = try prepared.accuracy.map { try CaretideJSON.encodeToString($0) }
        let releaseID = try await session.fetchAll(
            """
            INSERT INTO releases (kind, ontology_version, annotation_version, term_count, disease_count, annotation_count,
                                  load_warning_count, accuracy_report, import_seconds, update_id)
            VALUES (\(content.kind.rawValue), \(content.document.dataVersion), \(content.annotations?.version),
                    \(prepared.ontology.termCount), \(kb?.diseaseCount ?? 0), \(kb?.annotationCount ?? 0),
                    \(kb?.warnings.count ?? 0), \(accuracy)::jsonb, \(importSeconds), \(updateID))
            RETURNING release_id
            """, as: Int.self)[0]

        let terms = content.document.terms
        for chunk in terms.chunked(Self.batchSize) {
            try await session.query(
                """
                INSERT INTO terms (release_id, term_id, name, is_obsolete)
                SELECT \(releaseID), * FROM unnest(\(chunk.map(\.id)), \(chunk.map(\.name)), \(chunk.map(\.isObsolete)))
                """)
        }

        var synonyms: (terms: [String], ordinals: [Int32], texts: [String], scopes: [String]) = ([], [], [], [])
        var relations: (terms: [String], kinds: [String], ordinals: [Int32], targets: [String]) = ([], [], [], [])
        for term in terms {
            for (ordinal, synonym) in term.synonyms.enumerated() {
                synonyms.terms.append(term.id)
                synonyms.ordinals.append(Int32(ordinal))
                synonyms.texts.append(synonym.text)
                synonyms.scopes.append(synonym.scope.rawValue)
            }
            for (kind, targets) in [("is_a", term.isA), ("alt_id", term.altIDs), ("replaced_by", term.replacedBy), ("consider", term.consider)] {
                for (ordinal, target) in targets.enumerated() {
                    relations.terms.append(term.id)
                    relations.kinds.append(kind)
                    relations.ordinals.append(Int32(ordinal))
                    relations.targets.append(target)
                }
            }
        }
        for range in synonyms.terms.indices.chunked(Self.batchSize) {
            try await session.query(
                """
                INSERT INTO term_synonyms (release_id, term_id, ordinal, synonym, scope)
                SELECT \(releaseID), * FROM unnest(\(Array(synonyms.terms[range])), \(Array(synonyms.ordinals[range])),
                                                   \(Array(synonyms.texts[range])), \(Array(synonyms.scopes[range])))
                """)
        }
        for range in relations.terms.indices.chunked(Self.batchSize) {
            try await session.query(
                """
                INSERT INTO term_relations (release_id, term_id, relation, ordinal, target_id)
                SELECT \(releaseID), * FROM unnest(\(Array(relations.terms[range])), \(Array(relations.kinds[range])),
                                                   \(Array(relations.ordinals[range])), \(Array(relations.targets[range])))
                """)
        }

        for chunk in content.diseases.chunked(Self.batchSize) {
            try await session.query(
                """
                INSERT INTO diseases (release_id, disease_id, name)
                SELECT \(releaseID), * FROM unnest(\(chunk.map(\.id)), \(chunk.map(\.name)))
                """)
        }
        for chunk in (content.annotations?.annotations ?? []).chunked(Self.batchSize) {
            try await session.query(
                """
                INSERT INTO annotations (release_id, line, disease_id, term_id, reference, evidence, onset, frequency, sex, modifier)
                SELECT \(releaseID), * FROM unnest(
                    \(chunk.map { Int32($0.line) }), \(chunk.map(\.diseaseID)), \(chunk.map(\.termID)), \(chunk.map(\.reference)),
                    \(chunk.map(\.evidence)), \(chunk.map(\.onset)), \(chunk.map(\.frequency)), \(chunk.map(\.sex)), \(chunk.map(\.modifier)))
                """)
        }

        for null in prepared.nulls {
            try await session.query(
                """
                INSERT INTO null_distributions (release_id, scoring, sample_count, max_query_size, encoded)
                VALUES (\(releaseID), \(PhenotypeScoring(null.scoring).rawValue), \(null.sampleCount), \(null.maxQuerySize),
                        \(ByteBuffer(bytes: null.encoded())))
                """)
        }
        return releaseID
    }

    /// Deletes all but the newest `keeping` releases (at least one is always kept).
    func prune(keeping: Int) async throws {
        try await session.query(
            """
            DELETE FROM releases WHERE release_id NOT IN (SELECT release_id FROM releases ORDER BY release_id DESC LIMIT \(max(1, keeping)))
            """)
    }

    // MARK: Reading

    func newestReleaseID() async throws -> Int? {
        try await session.fetchAll("SELECT max(release_id) FROM releases", as: Int?.self).first ?? nil
    }

    /// What `GET /v1/releases` lists about a release.
    struct Summary: Encodable, Sendable {
        let releaseId: Int
        let kind: String
        let ontologyVersion: String?
        let annotationVersion: String?
        let termCount: Int
        let diseaseCount: Int
        let annotationCount: Int
        let loadWarningCount: Int
        let importSeconds: Double
        let importedAt: Date
        let updateId: String?
        let accuracyReport: AccuracyReport?
    }

    func summaries(releaseID: Int? = nil) async throws -> [Summary] {
        let rows = try await session.fetchAll(
            """
            SELECT release_id, kind, ontology_version, annotation_version, term_count, disease_count, annotation_count, load_warning_count,
                   import_seconds, imported_at, update_id, accuracy_report::text
            FROM releases WHERE \(releaseID)::bigint IS NULL OR release_id = \(releaseID) ORDER BY release_id DESC
            """, as: (Int, String, String?, String?, Int, Int, Int, Int, Double, Date, String?, String?).self)
        return try rows.map { row in
            Summary(
                releaseId: row.0, kind: row.1, ontologyVersion: row.2, annotationVersion: row.3, termCount: row.4, diseaseCount: row.5,
                annotationCount: row.6, loadWarningCount: row.7, importSeconds: row.8, importedAt: row.9, updateId: row.10,
                accuracyReport: try row.11.map { try JSONDecoder().decode(AccuracyReport.self, from: Data($0.utf8)) })
        }
    }

    /// Reads a release back for serving: its reference, content (annotations with disease, term and line only) and
    /// null distributions.
    func load(
        releaseID: Int
    ) async throws -> (OntologyReleaseReference, ReleaseContent, [NullDistribution])? {
        guard
            let release = try await session.fetchAll(
                "SELECT kind, ontology_version, annotation_version FROM releases WHERE release_id = \(releaseID)",
                as: (String, String?, String?).self
            ).first,
            let kind = OntologyUpdateKind(rawValue: release.0)
        else { return nil }
        let reference = OntologyReleaseReference(releaseID: releaseID, kind: kind, ontologyVersion: release.1, annotationVersion: release.2)

        var terms = try await session.fetchAll(
            "SELECT term_id, name, is_obsolete FROM terms WHERE release_id = \(releaseID) ORDER BY term_id",
            as: (String, String, Bool).self
        ).map { OBOTerm(id: $0.0, name: $0.1, isObsolete: $0.2) }
        var position = [String: Int](minimumCapacity: terms.count)
        for (index, term) in terms.enumerated() { position[term.id] = index }
        for row in try await session.fetchAll(
            "SELECT term_id, synonym, scope FROM term_synonyms WHERE release_id = \(releaseID) ORDER BY term_id, ordinal",
            as: (String, String, String).self)
        {
            guard let index = position[row.0], let scope = SynonymScope(rawValue: row.2) else { continue }
            terms[index].synonyms.append(OBOSynonym(text: row.1, scope: scope))
        }
        for row in try await session.fetchAll(
            "SELECT term_id, relation, target_id FROM term_relations WHERE release_id = \(releaseID) ORDER BY term_id, relation, ordinal",
            as: (String, String, String).self)
        {
            guard let index = position[row.0] else { continue }
            switch row.1 {
            case "is_a": terms[index].isA.append(row.2)
            case "alt_id": terms[index].altIDs.append(row.2)
            case "replaced_by": terms[index].replacedBy.append(row.2)
            default: terms[index].consider.append(row.2)
            }
        }
        let document = OBODocument(dataVersion: reference.ontologyVersion, terms: terms)
        guard kind == .full else { return (reference, ReleaseContent(kind: kind, document: document, annotations: nil), []) }

        let names = Dictionary(
            try await session.fetchAll(
                "SELECT disease_id, name FROM diseases WHERE release_id = \(releaseID)", as: (String, String).self),
            uniquingKeysWith: { first, _ in first })
        // Only what ranking and search use: the other columns (reference, evidence, onset, …) stay in PostgreSQL,
        // which keeps a reload's peak memory down. (A frequency is a short string, stored inline.)
        // Streamed rather than collected, so a quarter of a million rows are not held twice.
        var annotations: [HPOAnnotation] = []
        let rows = try await session.query(
            "SELECT line, disease_id, term_id, frequency FROM annotations WHERE release_id = \(releaseID) ORDER BY line")
        for try await (line, disease, term, frequency) in rows.decode((Int32, String, String, String).self) {
            annotations.append(
                HPOAnnotation(diseaseID: disease, diseaseName: names[disease] ?? "", termID: term, frequency: frequency, line: Int(line)))
        }
        let nulls = try await session.fetchAll(
            "SELECT encoded FROM null_distributions WHERE release_id = \(releaseID) ORDER BY scoring", as: ByteBuffer.self
        ).map { try NullDistribution(decoding: Array(buffer: $0)) }
        let content = ReleaseContent(
            kind: kind, document: document, annotations: HPOAnnotationSet(version: reference.annotationVersion, annotations: annotations))
        return (reference, content, nulls)
    }
}

extension Collection {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [SubSequence] {
        var chunks: [SubSequence] = []
        var start = startIndex
        while start != endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            chunks.append(self[start..<end])
            start = end
        }
        return chunks
    }
}

extension PhenotypeScoring {
    init(_ mode: ScoringMode) {
        switch mode {
        case .asymmetric: self = .asymmetric
        case .symmetric: self = .symmetric
        }
    }

    var mode: ScoringMode {
        switch self {
        case .asymmetric: .asymmetric
        case .symmetric: .symmetric
        }
    }
}
