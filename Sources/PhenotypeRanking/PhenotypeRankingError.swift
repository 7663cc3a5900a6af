/// The one error type of the `PhenotypeRanking` module.
///
/// Parse errors carry the 1-based line number of the offending line and the file format
/// (`hp.obo` or `phenotype.hpoa`). `description` is safe to show to users; it never contains
/// patient data (query terms are ontology identifiers, not patient identifiers).
public struct PhenotypeRankingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        // Parsing (`line` and `format` are set).
        case malformedLine
        case invalidUTF8
        case missingTermID
        case duplicateTermID
        case invalidTermID
        case invalidSynonym
        case invalidBoolean
        case missingHeader
        case wrongColumnCount
        case invalidDiseaseID
        case invalidQualifier
        case invalidAspect
        // Building the ontology / knowledge base.
        case unknownParent
        case cycle
        case missingRoot
        case noDiseases
        /// The file would make the import build more than it bounds (`PhenotypeOntology.maximumAncestorsPerTerm`,
        /// `maximumAncestorVisits`; `PhenotypeKnowledgeBase.maximumPropagationVisits`).
        case tooLarge
        // Ranking.
        case emptyQuery
        case noUsableQueryTerms
        case nullDistributionMissing
        case nullDistributionMismatch
        case invalidOption
        // Null distribution (de)serialisation.
        case invalidEncoding
    }

    /// The input format a parse error refers to.
    public enum Format: String, Sendable, Hashable {
        case obo = "hp.obo"
        case hpoa = "phenotype.hpoa"
    }

    public let code: Code
    /// The input format, for parse errors (and build errors that point back into `hp.obo`).
    public let format: Format?
    /// 1-based line number in the parsed text, when the error points to a line.
    public let line: Int?
    /// A human-readable message (no patient data).
    public let message: String
    /// For ``Code/noUsableQueryTerms``: why each query term was dropped.
    public let warnings: [QueryWarning]

    public init(
        _ code: Code,
        _ message: String,
        format: Format? = nil,
        line: Int? = nil,
        warnings: [QueryWarning] = []
    ) {
        self.code = code
        self.message = message
        self.format = format
        self.line = line
        self.warnings = warnings
    }

    public var description: String {
        switch (format, line) {
        case (let format?, let line?): return "\(format.rawValue) line \(line): \(message)"
        case (let format?, nil): return "\(format.rawValue): \(message)"
        case (nil, let line?): return "line \(line): \(message)"
        case (nil, nil): return message
        }
    }
}
