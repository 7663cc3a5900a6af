import CaretideDomain
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// What the rules make of a clinical input, answered at once: the app that records an NPI shows the index, its
/// prognostic group and the 5-year survival without waiting for scoring-service (which stores the same assessment
/// from the event: the same rule, the same rule-set version). The history (`GET …/npi`) is the record of it.
struct RuleAnswer: Encodable, Sendable {
    let kind: AssessmentKind
    /// The rule's category: for an NPI its prognostic group.
    let category: String
    let severity: Severity
    let tip: String
    let ruleSetVersion: String
    /// The headline numbers, e.g. {"npi": 4.4, "lymphNodeStage": 2, "fiveYearSurvivalPercent": 70}.
    let values: [String: Double]
    /// For an NPI: the group's survival curve, every 6 months to 5 years (illustrative between the published points,
    /// docs/clinical-rules.md §6).
    let survivalCurve: [SurvivalCurvePoint]?
    /// For a melanoma risk profile: the optional factors left unanswered, which carry no weight (docs/clinical-rules.md
    /// §7); an app may ask for them rather than imply a lower risk.
    let unansweredFactors: [String]?
    /// For a melanoma risk profile: the factors the request left out and the patient's profile gave (age, sex).
    let fromProfile: [String]?

    init(_ assessment: Assessment, unansweredFactors: [String]? = nil, fromProfile: [String]? = nil) {
        self.unansweredFactors = unansweredFactors
        self.fromProfile = fromProfile
        kind = assessment.kind
        category = assessment.category.rawValue
        severity = assessment.severity
        tip = assessment.tip.rawValue
        ruleSetVersion = assessment.ruleSetVersion
        values = assessment.values
        survivalCurve =
            if case .nottinghamPrognosticIndex(let group) = assessment.category {
                try? NottinghamPrognosticIndex.survivalCurve(for: group)
            } else {
                nil
            }
    }
}

/// A stored clinical input's receipt with what the rules made of it.
struct RecordedWithRules: Encodable, Sendable {
    let id: String
    let revision: Int
    let eventId: UUID?
    let status: WriteOutcome
    let assessment: RuleAnswer
}
