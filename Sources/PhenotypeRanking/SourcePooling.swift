/// Which entries of different sources are taken for one disease and scored with each other's annotations
/// (`PhenotypeKnowledgeBase.sameDiseaseGroups`, docs/clinical-rules.md §11 item 2), oldest rule first.
///
/// The rules released stay: a release's null distributions describe the knowledge base of the rule it was imported
/// under, so a release imported under an earlier one keeps that rule's pooling until it is imported again
/// (`PhenotypeKnowledgeBase.matching`); it ranks with today's likelihood-ratio parameters, measured under the current
/// rule.
public enum SourcePooling: String, Sendable, CaseIterable {
    /// Each entry scored with its own annotations only.
    case separate = "none"
    /// Entries whose names have the same words.
    case sameWords = "same-words"
    /// Entries whose names have the same words, then, among the entries left, the same words but for those that mostly
    /// say how a name is written (`PhenotypeKnowledgeBase.namingWords`).
    case sameDistinctiveWords = "same-distinctive-words"

    /// The rule every import uses.
    public static let current = SourcePooling.sameDistinctiveWords
}
