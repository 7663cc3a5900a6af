import Foundation

/// How a search hit matched, best first: exact id > exact name > name prefix > word prefix >
/// synonym > id prefix.
public enum SearchMatchKind: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// The query is the term's or disease's id (an `alt_id`, an obsolete id mapped to the
    /// term, or for diseases the bare accession number, also count).
    case exactID = 0
    /// The query equals the name (case- and diacritic-insensitive).
    case exactName
    /// The name starts with the query.
    case namePrefix
    /// Every word of the query starts a word of the name, in any order.
    case wordPrefix
    /// A synonym matches exactly, by prefix or by word prefix (in that order within the kind).
    case synonym
    /// The id starts with the query (e.g. `HP:00012`).
    case idPrefix

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A phenotype term found by ``PhenotypeSearchIndex/searchPhenotypes(_:limit:phenotypesOnly:)``.
public struct PhenotypeSearchHit: Sendable, Hashable {
    public let term: TermReference
    public let kind: SearchMatchKind
    /// The text that matched (the name, a synonym, or the id).
    public let matchedText: String
}

/// A disease found by ``PhenotypeSearchIndex/searchDiseases(_:limit:)``.
public struct DiseaseSearchHit: Sendable, Hashable {
    public let diseaseIndex: Int
    public let diseaseID: String
    public let diseaseName: String
    public let kind: SearchMatchKind
}

/// One phenotype annotation of a disease, with its information content.
public struct DiseasePhenotype: Sendable, Hashable {
    public let term: TermReference
    public let informationContent: Double
}

/// Name, synonym and id search over phenotypes and diseases. Build it once per knowledge base
/// (normalising ~19,000 names and ~23,000 synonyms takes well under a second).
///
/// Matching is case- and diacritic-insensitive; words are maximal runs of letters and digits.
/// Results are ordered by ``SearchMatchKind``, then (for synonyms) exact > prefix > word prefix,
/// then shorter matched text, then id.
public struct PhenotypeSearchIndex: Sendable {
    /// Normalised UTF-8 text and the byte offsets where its words start.
    struct Entry: Sendable {
        var bytes: [UInt8]
        var wordStarts: [Int32]
    }

    /// A normalised query: its bytes and its words.
    struct Query {
        var bytes: [UInt8]
        var words: [[UInt8]]
    }

    public let ontology: PhenotypeOntology
    /// `nil` when only the ontology is loaded (a minimum update): disease search then finds nothing.
    public let knowledgeBase: PhenotypeKnowledgeBase?
    private let inPhenotypeSubtree: [Bool]
    private let termNames: [Entry]
    private let termSynonyms: [[Entry]]
    private let diseaseNames: [Entry]

    /// Phenotype and disease search over a knowledge base.
    public init(knowledgeBase kb: PhenotypeKnowledgeBase) {
        self.init(ontology: kb.ontology, subtree: kb.inPhenotypeSubtree, knowledgeBase: kb)
    }

    /// Phenotype search over an ontology without annotations (disease search finds nothing).
    /// - Throws: ``PhenotypeRankingError/Code/missingRoot`` when the ontology lacks the phenotype root.
    public init(ontology: PhenotypeOntology, phenotypeRootID: String = "HP:0000118") throws(PhenotypeRankingError) {
        guard let root = ontology.resolve(phenotypeRootID).term else {
            throw PhenotypeRankingError(.missingRoot, "the ontology has no term \(phenotypeRootID)")
        }
        var subtree = [Bool](repeating: false, count: ontology.termCount)
        ontology.markDescendants(of: root.int, in: &subtree)
        self.init(ontology: ontology, subtree: subtree, knowledgeBase: nil)
    }

    private init(ontology: PhenotypeOntology, subtree: [Bool], knowledgeBase kb: PhenotypeKnowledgeBase?) {
        self.ontology = ontology
        knowledgeBase = kb
        inPhenotypeSubtree = subtree
        termNames = ontology.termNames.map(Self.entry)
        termSynonyms = ontology.termSynonyms.map { $0.map { Self.entry($0.text) } }
        diseaseNames = (kb?.diseaseNames ?? []).map(Self.entry)
    }

    static func normalize(_ text: String) -> String {
        // ASCII fast path (almost every HPO name): lower-case the bytes.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Word boundaries of normalised text: words are maximal runs of letters and digits.
    static func wordRanges(_ normalized: String) -> [Swift.Range<Int>] {
        var ranges: [Swift.Range<Int>] = []
        var offset = 0
        var start: Int?
        let ascii = normalized.utf8.allSatisfy { $0 < 0x80 }
        for scalar in normalized.unicodeScalars {
            let isWord =
                ascii
                ? (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
                : (scalar.properties.isAlphabetic || scalar.properties.numericType != nil)
            if isWord, start == nil { start = offset }
            if !isWord, let s = start {
                ranges.append(s..<offset)
                start = nil
            }
            offset += scalar.utf8.count
        }
        if let s = start { ranges.append(s..<offset) }
        return ranges
    }

    static func entry(_ text: String) -> Entry {
        let normalized = normalize(text)
        return Entry(bytes: Array(normalized.utf8), wordStarts: wordRanges(normalized).map { Int32($0.lowerBound) })
    }

    static func query(_ text: String) -> Query {
        let normalized = normalize(text)
        let bytes = Array(normalized.utf8)
        return Query(bytes: bytes, words: wordRanges(normalized).map { Array(bytes[$0]) })
    }

    private static func hasPrefix(_ bytes: [UInt8], at offset: Int, _ prefix: [UInt8]) -> Bool {
        guard bytes.count - offset >= prefix.count else { return false }
        return bytes.withUnsafeBufferPointer { b in
            prefix.withUnsafeBufferPointer { p in
                p.isEmpty || memcmp(b.baseAddress! + offset, p.baseAddress!, p.count) == 0
            }
        }
    }

    /// 0 exact, 1 prefix, 2 word prefix, nil no match.
    private static func textMatch(_ entry: Entry, _ query: Query) -> Int? {
        if entry.bytes.count == query.bytes.count, hasPrefix(entry.bytes, at: 0, query.bytes) { return 0 }
        if hasPrefix(entry.bytes, at: 0, query.bytes) { return 1 }
        if !query.words.isEmpty,
            query.words.allSatisfy({ word in entry.wordStarts.contains { hasPrefix(entry.bytes, at: Int($0), word) } })
        {
            return 2
        }
        return nil
    }

    private static func nameKind(_ match: Int) -> SearchMatchKind {
        [.exactName, .namePrefix, .wordPrefix][match]
    }

    /// Phenotype terms by id (`HP:0001250`, `hp:0001250`, or the seven digits `0001250`),
    /// id prefix, name or synonym.
    /// - Parameter phenotypesOnly: only terms under Phenotypic abnormality (HP:0000118).
    public func searchPhenotypes(_ query: String, limit: Int = 20, phenotypesOnly: Bool = true) -> [PhenotypeSearchHit] {
        let trimmed = query.trimmingWhitespace()
        guard !trimmed.isEmpty, limit > 0 else { return [] }
        let query = Self.query(trimmed)
        var idQuery = PhenotypeRanker.normalizedID(trimmed)
        if idQuery.count == 7, idQuery.allSatisfy(\.isASCII), idQuery.allSatisfy(\.isNumber) {
            idQuery = "HP:" + idQuery
        }
        let exact = ontology.resolve(idQuery).term
        let idPrefix = idQuery.contains(":") ? idQuery : nil

        var hits: [(key: (Int, Int, Int, String), hit: PhenotypeSearchHit)] = []
        for t in 0..<ontology.termCount {
            if phenotypesOnly, !inPhenotypeSubtree[t] { continue }
            let id = ontology.termIDs[t]
            var best: (kind: SearchMatchKind, sub: Int, text: String)?
            if exact?.int == t {
                best = (.exactID, 0, id)
            } else if let match = Self.textMatch(termNames[t], query) {
                best = (Self.nameKind(match), 0, ontology.termNames[t])
            } else {
                for (s, synonym) in termSynonyms[t].enumerated() {
                    guard let match = Self.textMatch(synonym, query) else { continue }
                    let text = ontology.termSynonyms[t][s].text
                    if best == nil || (match, text.count) < (best!.sub, best!.text.count) {
                        best = (.synonym, match, text)
                    }
                }
                if best == nil, let prefix = idPrefix, id.hasPrefix(prefix) {
                    best = (.idPrefix, 0, id)
                }
            }
            if let best {
                hits.append(
                    (
                        (best.kind.rawValue, best.sub, best.text.count, id),
                        PhenotypeSearchHit(
                            term: TermReference(index: TermIndex(t), id: id, name: ontology.termNames[t]), kind: best.kind,
                            matchedText: best.text)
                    ))
            }
        }
        hits.sort { $0.key < $1.key }
        return hits.prefix(limit).map(\.hit)
    }

    /// Diseases by id (`OMIM:154700`, or the bare accession `154700` in any database), id
    /// prefix, or name.
    public func searchDiseases(_ query: String, limit: Int = 20) -> [DiseaseSearchHit] {
        let trimmed = query.trimmingWhitespace()
        guard !trimmed.isEmpty, limit > 0, let kb = knowledgeBase else { return [] }
        let query = Self.query(trimmed)
        let idQuery = PhenotypeRanker.normalizedID(trimmed)
        let bare = !idQuery.contains(":")
        var hits: [(key: (Int, Int, String), hit: DiseaseSearchHit)] = []
        for d in 0..<kb.diseaseCount {
            let id = kb.diseaseIDs[d]
            let kind: SearchMatchKind
            if id == idQuery || (bare && id.split(separator: ":", maxSplits: 1).last.map(String.init) == idQuery) {
                kind = .exactID
            } else if let match = Self.textMatch(diseaseNames[d], query) {
                kind = Self.nameKind(match)
            } else if !bare, id.hasPrefix(idQuery) {
                kind = .idPrefix
            } else {
                continue
            }
            hits.append(
                (
                    (kind.rawValue, kb.diseaseNames[d].count, id),
                    DiseaseSearchHit(diseaseIndex: d, diseaseID: id, diseaseName: kb.diseaseNames[d], kind: kind)
                ))
        }
        hits.sort { $0.key < $1.key }
        return hits.prefix(limit).map(\.hit)
    }
}

extension PhenotypeKnowledgeBase {
    /// A disease's phenotype annotations as its own source gives them (not those pooled from the same disease's other
    /// entries), most informative first (then by id); `nil` for an unknown disease id.
    public func phenotypes(ofDisease id: String) -> [DiseasePhenotype]? {
        guard let d = diseaseIndex(of: id) else { return nil }
        let range = Int(annotationOffsets[d])..<Int(annotationOffsets[d + 1])
        return range.filter { annotationIsOwn[$0] }.map { annotationTerms[$0] }.map { t in
            DiseasePhenotype(
                term: TermReference(index: TermIndex(t), id: ontology.termIDs[Int(t)], name: ontology.termNames[Int(t)]),
                informationContent: Double(ic[Int(t)]))
        }.sorted {
            $0.informationContent != $1.informationContent
                ? $0.informationContent > $1.informationContent : $0.term.id < $1.term.id
        }
    }
}
