public import CaretideDomain
public import CaretideSchemas
public import Foundation

/// The outcome of applying a clinical rule to one recorded event, in the shape every assessment shares: what it is
/// about, the category in the rule's own terms, a severity, a tip, and the headline numbers.
public struct Assessment: Sendable, Equatable {
    public var kind: AssessmentKind { category.kind }
    /// The measurement, NPI, profile or exam the assessment is about (unique per patient and kind).
    public let subjectID: String
    /// The correction number of the subject that was assessed.
    public let subjectRevision: Int
    /// The rule's category; it names the kind.
    public let category: AssessmentCategory
    public let severity: Severity
    public let tip: TipKey
    public let observedAt: Date
    public let values: [String: Double]
    /// For exam reports: each item with its interpretation.
    public let flaggedItems: [FlaggedExamLine]
    public let ruleSetVersion: String

    public init(
        subjectID: String, subjectRevision: Int, category: AssessmentCategory, severity: Severity, tip: TipKey, observedAt: Date,
        values: [String: Double], flaggedItems: [FlaggedExamLine] = [], ruleSetVersion: String = RuleSetVersion.current
    ) {
        self.subjectID = subjectID
        self.subjectRevision = subjectRevision
        self.category = category
        self.severity = severity
        self.tip = tip
        self.observedAt = observedAt
        self.values = values
        self.flaggedItems = flaggedItems
        self.ruleSetVersion = ruleSetVersion
    }
}

extension AssessmentKind {
    /// What assessing a measurement of `kind` produces.
    public init(_ kind: MeasurementKind) {
        switch kind {
        case .bloodPressure: self = .bloodPressure
        case .pulse: self = .pulse
        case .bodyMeasurement: self = .bodyMassIndex
        case .glucose: self = .glucose
        case .hba1c: self = .hba1c
        case .lipidPanel: self = .lipids
        }
    }
}
