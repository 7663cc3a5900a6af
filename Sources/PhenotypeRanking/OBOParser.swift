public import Foundation

/// The scope of an OBO synonym (`synonym: "text" EXACT [...]`).
public enum SynonymScope: String, Sendable, Hashable, CaseIterable {
    case exact = "EXACT"
    case related = "RELATED"
    case broad = "BROAD"
    case narrow = "NARROW"
}

/// One synonym of an ontology term.
public struct OBOSynonym: Sendable, Hashable {
    public var text: String
    public var scope: SynonymScope

    public init(text: String, scope: SynonymScope) {
        self.text = text
        self.scope = scope
    }
}

/// One `[Term]` stanza of an OBO 1.4 file, with the tags the ranking needs.
/// Other tags (`def`, `xref`, `comment`, `property_value`, ...) are skipped.
public struct OBOTerm: Sendable, Hashable {
    public var id: String
    public var name: String
    public var synonyms: [OBOSynonym]
    /// `is_a` parents (identifiers only; trailing `! name` comments and `{...}` modifiers removed).
    public var isA: [String]
    public var isObsolete: Bool
    public var replacedBy: [String]
    public var altIDs: [String]
    public var consider: [String]
    /// 1-based line of the `[Term]` header, for error messages.
    public var line: Int

    public init(
        id: String, name: String = "", synonyms: [OBOSynonym] = [], isA: [String] = [],
        isObsolete: Bool = false, replacedBy: [String] = [], altIDs: [String] = [],
        consider: [String] = [], line: Int = 0
    ) {
        self.id = id
        self.name = name
        self.synonyms = synonyms
        self.isA = isA
        self.isObsolete = isObsolete
        self.replacedBy = replacedBy
        self.altIDs = altIDs
        self.consider = consider
        self.line = line
    }
}

/// The parsed content of an `hp.obo` file.
public struct OBODocument: Sendable, Hashable {
    /// `format-version` header tag.
    public var formatVersion: String?
    /// `data-version` header tag (e.g. `hp/releases/2025-01-16`).
    public var dataVersion: String?
    /// All `[Term]` stanzas in file order, obsolete ones included.
    public var terms: [OBOTerm]

    public init(formatVersion: String? = nil, dataVersion: String? = nil, terms: [OBOTerm]) {
        self.formatVersion = formatVersion
        self.dataVersion = dataVersion
        self.terms = terms
    }
}

/// Parser for the OBO 1.4 flat-file format as used by `hp.obo`.
///
/// Reads `[Term]` stanzas (tags `id`, `name`, `synonym`, `is_a`, `is_obsolete`,
/// `replaced_by`, `alt_id`, `consider`), skips `[Typedef]` and any other stanza type,
/// and reports malformed input with its 1-based line number.
public enum OBOParser {
    public static func parse(_ text: String) throws(PhenotypeRankingError) -> OBODocument {
        try withUTF8Bytes(of: text) { (bytes) throws(PhenotypeRankingError) in try parse(bytes: bytes) }
    }

    public static func parse(_ data: Data) throws(PhenotypeRankingError) -> OBODocument {
        try withBytes(of: data) { (bytes) throws(PhenotypeRankingError) in try parse(bytes: bytes) }
    }

    private enum Section { case header, term, other }

    static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(PhenotypeRankingError) -> OBODocument {
        var scanner = LineScanner(bytes)
        var document = OBODocument(terms: [])
        var section = Section.header
        var current: OBOTerm?
        var seen = Set<String>()

        func finish(_ term: OBOTerm?) throws(PhenotypeRankingError) {
            guard let term else { return }
            guard !term.id.isEmpty else {
                throw PhenotypeRankingError(.missingTermID, "[Term] stanza without an id", format: .obo, line: term.line)
            }
            guard seen.insert(term.id).inserted else {
                throw PhenotypeRankingError(
                    .duplicateTermID, "duplicate term id \(term.id)", format: .obo, line: term.line)
            }
            document.terms.append(term)
        }

        while let raw = scanner.next() {
            let line = scanner.lineNumber
            let trimmed = raw.trimmingSpaces()
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "!") { continue }
            if trimmed.first == UInt8(ascii: "[") {
                try finish(current)
                current = nil
                if trimmed.elementsEqual("[Term]") {
                    section = .term
                    current = OBOTerm(id: "", line: line)
                } else if trimmed.last == UInt8(ascii: "]") {
                    section = .other  // [Typedef], [Instance]: ignored
                } else {
                    throw PhenotypeRankingError(.malformedLine, "malformed stanza header", format: .obo, line: line)
                }
                continue
            }
            guard let colon = trimmed.firstIndex(of: UInt8(ascii: ":")) else {
                throw PhenotypeRankingError(.malformedLine, "expected 'tag: value'", format: .obo, line: line)
            }
            let tag = trimmed[trimmed.startIndex..<colon]
            let value = trimmed[(colon + 1)...].trimmingSpaces()
            switch section {
            case .other:
                continue
            case .header:
                if tag.elementsEqual("format-version") {
                    document.formatVersion = try decodeUTF8(value, format: .obo, line: line)
                } else if tag.elementsEqual("data-version") {
                    document.dataVersion = try decodeUTF8(value, format: .obo, line: line)
                }
            case .term:
                try apply(tag: tag, value: value, line: line, to: &current!)
            }
        }
        try finish(current)
        return document
    }

    private static func apply(
        tag: Slice<UnsafeBufferPointer<UInt8>>,
        value: Slice<UnsafeBufferPointer<UInt8>>,
        line: Int,
        to term: inout OBOTerm
    ) throws(PhenotypeRankingError) {
        if tag.elementsEqual("id") {
            term.id = try identifier(value, line: line)
        } else if tag.elementsEqual("name") {
            term.name = try decodeUTF8(value, format: .obo, line: line)
        } else if tag.elementsEqual("is_a") {
            term.isA.append(try identifier(value, line: line))
        } else if tag.elementsEqual("alt_id") {
            term.altIDs.append(try identifier(value, line: line))
        } else if tag.elementsEqual("replaced_by") {
            term.replacedBy.append(try identifier(value, line: line))
        } else if tag.elementsEqual("consider") {
            term.consider.append(try identifier(value, line: line))
        } else if tag.elementsEqual("is_obsolete") {
            if value.elementsEqual("true") {
                term.isObsolete = true
            } else if value.elementsEqual("false") {
                term.isObsolete = false
            } else {
                throw PhenotypeRankingError(
                    .invalidBoolean, "is_obsolete must be true or false", format: .obo, line: line)
            }
        } else if tag.elementsEqual("synonym") {
            term.synonyms.append(try synonym(value, line: line))
        }
    }

    /// The first whitespace-delimited token of a value, which must look like `PREFIX:LOCAL`.
    /// Trailing `! comment` and `{modifiers}` are dropped with the rest of the value.
    private static func identifier(
        _ value: Slice<UnsafeBufferPointer<UInt8>>, line: Int
    ) throws(PhenotypeRankingError) -> String {
        var end = value.startIndex
        while end < value.endIndex, value[end] != 0x20, value[end] != 0x09, value[end] != UInt8(ascii: "{") {
            end += 1
        }
        let token = value[value.startIndex..<end]
        guard let colon = token.firstIndex(of: UInt8(ascii: ":")), colon > token.startIndex,
            colon + 1 < token.endIndex
        else {
            throw PhenotypeRankingError(
                .invalidTermID, "expected an identifier like HP:0000118", format: .obo, line: line)
        }
        return try decodeUTF8(token, format: .obo, line: line)
    }

    /// `"text" SCOPE [TYPE] [xrefs]` — the quoted text may contain `\"` and `\\` escapes.
    private static func synonym(
        _ value: Slice<UnsafeBufferPointer<UInt8>>, line: Int
    ) throws(PhenotypeRankingError) -> OBOSynonym {
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        guard value.first == quote else {
            throw PhenotypeRankingError(.invalidSynonym, "synonym text must be quoted", format: .obo, line: line)
        }
        var text: [UInt8] = []
        var i = value.startIndex + 1
        var closed = false
        while i < value.endIndex {
            let byte = value[i]
            if byte == backslash, i + 1 < value.endIndex {
                let next = value[i + 1]
                switch next {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                default: text.append(next)
                }
                i += 2
                continue
            }
            if byte == quote {
                closed = true
                i += 1
                break
            }
            text.append(byte)
            i += 1
        }
        guard closed else {
            throw PhenotypeRankingError(.invalidSynonym, "unterminated synonym text", format: .obo, line: line)
        }
        let rest = value[i...].trimmingSpaces()
        var scopeEnd = rest.startIndex
        while scopeEnd < rest.endIndex, rest[scopeEnd] != 0x20, rest[scopeEnd] != 0x09 { scopeEnd += 1 }
        let scopeToken = String(decoding: UnsafeBufferPointer(rebasing: rest[rest.startIndex..<scopeEnd]), as: UTF8.self)
        // OBO 1.2 allowed the scope to be omitted; it then means RELATED.
        let implied = scopeToken.isEmpty || scopeToken.hasPrefix("[")
        guard let scope = implied ? .related : SynonymScope(rawValue: scopeToken) else {
            throw PhenotypeRankingError(
                .invalidSynonym, "synonym scope must be EXACT, RELATED, BROAD or NARROW", format: .obo, line: line)
        }
        guard let string = String(validating: text, as: UTF8.self) else {
            throw PhenotypeRankingError(.invalidUTF8, "invalid UTF-8", format: .obo, line: line)
        }
        return OBOSynonym(text: string, scope: scope)
    }
}
