public import CaretideDomain
public import Foundation

/// What an assessment is of.
public enum AssessmentKind: String, Codable, Sendable, CaseIterable {
    case bloodPressure, pulse, bodyMassIndex, glucose, hba1c, lipids, nottinghamPrognosticIndex, melanomaRisk, examResult
    /// An outside classifier's answer about a skin photo (`lesion-photo.classified`), with its certainty.
    case lesionPhoto
}

/// One assessment by scoring-service (`caretide.scores`). Assessments are never overwritten: a correction of the
/// source produces a new assessment whose `supersedes` names the one it replaces.
public struct AssessmentRecorded: EventPayload {
    public static let eventType = EventType.assessmentRecorded
    public var assessmentID: UUID
    /// The event that was assessed.
    public var sourceEventID: UUID
    /// The measurement, NPI, profile or exam id the assessment is about.
    public var subjectID: String
    /// The category in the rule's own terms, e.g. stage2Hypertension, obeseClassI, moderate, higher; it names the kind.
    public var category: AssessmentCategory
    public var kind: AssessmentKind { category.kind }
    public var severity: Severity
    /// Key of the plain-language tip; texts live in one translatable table.
    public var tip: String
    /// The rule set that produced it (provenance; `caretide rescore` compares against it).
    public var ruleSetVersion: String
    /// When the assessed values were taken.
    public var observedAt: Date
    /// The assessment this one replaces, after a correction of its source.
    public var supersedes: UUID?
    /// The headline numbers, e.g. {"systolic": 142, "diastolic": 91} or {"npi": 4.4} or {"score": 6}.
    public var values: [String: Double]

    public init(
        assessmentID: UUID, sourceEventID: UUID, subjectID: String, category: AssessmentCategory, severity: Severity, tip: String,
        ruleSetVersion: String, observedAt: Date, supersedes: UUID?, values: [String: Double]
    ) {
        self.assessmentID = assessmentID
        self.sourceEventID = sourceEventID
        self.subjectID = subjectID
        self.category = category
        self.severity = severity
        self.tip = tip
        self.ruleSetVersion = ruleSetVersion
        self.observedAt = observedAt
        self.supersedes = supersedes
        self.values = values
    }

    enum CodingKeys: String, CodingKey {
        case assessmentID = "assessmentId"
        case sourceEventID = "sourceEventId"
        case subjectID = "subjectId"
        case kind, category, severity, tip,
            ruleSetVersion, observedAt, supersedes, values
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        assessmentID = try container.decode(UUID.self, forKey: .assessmentID)
        sourceEventID = try container.decode(UUID.self, forKey: .sourceEventID)
        subjectID = try container.decode(String.self, forKey: .subjectID)
        let kind = try container.decode(AssessmentKind.self, forKey: .kind)
        let word = try container.decode(String.self, forKey: .category)
        guard let category = AssessmentCategory(kind: kind, rawValue: word) else {
            throw DecodingError.dataCorruptedError(forKey: .category, in: container, debugDescription: "is not a category of \(kind.rawValue)")
        }
        self.category = category
        severity = try container.decode(Severity.self, forKey: .severity)
        tip = try container.decode(String.self, forKey: .tip)
        ruleSetVersion = try container.decode(String.self, forKey: .ruleSetVersion)
        observedAt = try container.decode(Date.self, forKey: .observedAt)
        supersedes = try container.decodeIfPresent(UUID.self, forKey: .supersedes)
        values = try container.decode([String: Double].self, forKey: .values)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assessmentID, forKey: .assessmentID)
        try container.encode(sourceEventID, forKey: .sourceEventID)
        try container.encode(subjectID, forKey: .subjectID)
        try container.encode(kind, forKey: .kind)
        try container.encode(category.rawValue, forKey: .category)
        try container.encode(severity, forKey: .severity)
        try container.encode(tip, forKey: .tip)
        try container.encode(ruleSetVersion, forKey: .ruleSetVersion)
        try container.encode(observedAt, forKey: .observedAt)
        try container.encodeIfPresent(supersedes, forKey: .supersedes)
        try container.encode(values, forKey: .values)
    }
}

/// Why an assessment no longer stands.
public enum WithdrawalReason: String, Codable, Sendable, CaseIterable {
    case measurementDeleted, enteredInError
    /// The patient withdrew (reset) the melanoma risk profile assessed.
    case profileWithdrawn
    /// The skin photo classified was deleted.
    case photoDeleted
    /// The Nottingham Prognostic Index entry assessed was deleted.
    case npiDeleted
}

/// An assessment was withdrawn because its source was deleted or marked entered-in-error (`caretide.scores`).
public struct AssessmentWithdrawn: EventPayload {
    public static let eventType = EventType.assessmentWithdrawn
    public var assessmentID: UUID
    public var subjectID: String
    public var kind: AssessmentKind
    public var reason: WithdrawalReason
    public var sourceEventID: UUID

    public init(assessmentID: UUID, subjectID: String, kind: AssessmentKind, reason: WithdrawalReason, sourceEventID: UUID) {
        self.assessmentID = assessmentID
        self.subjectID = subjectID
        self.kind = kind
        self.reason = reason
        self.sourceEventID = sourceEventID
    }

    enum CodingKeys: String, CodingKey {
        case assessmentID = "assessmentId"
        case subjectID = "subjectId"
        case kind, reason
        case sourceEventID = "sourceEventId"
    }
}

/// One exam item with its HL7 v2 table 0078 interpretation (N, L, H, LL, HH) and the institution's comment.
public struct FlaggedExamLine: Codable, Sendable, Equatable {
    public var code: String
    public var name: String
    public var value: Double
    public var unit: String
    public var interpretation: InterpretationCode
    public var severity: Severity
    public var comment: String?

    public init(code: String, name: String, value: Double, unit: String, interpretation: InterpretationCode, severity: Severity, comment: String?) {
        self.code = code
        self.name = name
        self.value = value
        self.unit = unit
        self.interpretation = interpretation
        self.severity = severity
        self.comment = comment
    }
}

/// An exam report flagged item by item against its reference ranges (`caretide.scores`).
public struct ExamResultFlagged: EventPayload {
    public static let eventType = EventType.examResultFlagged
    public var assessmentID: UUID
    public var sourceEventID: UUID
    public var examID: String
    public var institutionID: String
    public var revision: Int
    public var reportedAt: Date
    /// The worst severity among the items.
    public var severity: Severity
    public var supersedes: UUID?
    public var ruleSetVersion: String
    public var items: [FlaggedExamLine]

    public init(
        assessmentID: UUID, sourceEventID: UUID, examID: String, institutionID: String, revision: Int, reportedAt: Date, severity: Severity,
        supersedes: UUID?, ruleSetVersion: String, items: [FlaggedExamLine]
    ) {
        self.assessmentID = assessmentID
        self.sourceEventID = sourceEventID
        self.examID = examID
        self.institutionID = institutionID
        self.revision = revision
        self.reportedAt = reportedAt
        self.severity = severity
        self.supersedes = supersedes
        self.ruleSetVersion = ruleSetVersion
        self.items = items
    }

    enum CodingKeys: String, CodingKey {
        case assessmentID = "assessmentId"
        case sourceEventID = "sourceEventId"
        case examID = "examId"
        case institutionID = "institutionId"
        case revision,
            reportedAt, severity, supersedes, ruleSetVersion, items
    }
}

/// A trend in a patient's series that care teams should follow up (`caretide.scores`).
public struct CareTrackingFlagged: EventPayload {
    public static let eventType = EventType.careTrackingFlagged
    public var flagID: UUID
    public var rule: CareTrackingFlagKind
    public var severity: Severity
    public var tip: String
    public var ruleSetVersion: String
    public var firstObservedAt: Date
    public var lastObservedAt: Date
    /// The assessment whose arrival completed the pattern.
    public var triggeringAssessmentID: UUID

    public init(
        flagID: UUID, rule: CareTrackingFlagKind, severity: Severity, tip: String, ruleSetVersion: String, firstObservedAt: Date,
        lastObservedAt: Date, triggeringAssessmentID: UUID
    ) {
        self.flagID = flagID
        self.rule = rule
        self.severity = severity
        self.tip = tip
        self.ruleSetVersion = ruleSetVersion
        self.firstObservedAt = firstObservedAt
        self.lastObservedAt = lastObservedAt
        self.triggeringAssessmentID = triggeringAssessmentID
    }

    enum CodingKeys: String, CodingKey {
        case flagID = "flagId"
        case rule, severity, tip, ruleSetVersion, firstObservedAt, lastObservedAt
        case triggeringAssessmentID = "triggeringAssessmentId"
    }
}
