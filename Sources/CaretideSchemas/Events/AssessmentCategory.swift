public import CaretideDomain

/// An assessment's category in its rule's own terms, typed by the rule that gave it: from the rule, through
/// `assessment.recorded`, to the alert's message key, it is never a free string. On the wire it is the rule's word
/// (`stage2Hypertension`, `obeseClassI`, `moderate`, `H`), read back against the assessment's kind: a word the kind's
/// rule does not have is refused, as an unknown kind is.
public enum AssessmentCategory: Hashable, Sendable {
    case bloodPressure(BloodPressureCategory)
    case pulse(PulseCategory)
    case bodyMassIndex(BodyMassIndexCategory)
    case glucose(GlucoseCategory)
    case hba1c(GlucoseCategory)
    case lipids(LipidPanelCategory)
    case nottinghamPrognosticIndex(NPIPrognosticGroup)
    case melanomaRisk(MelanomaRiskCategory)
    case examResult(InterpretationCode)
    case lesionPhoto(LesionPhotoCategory)

    public var kind: AssessmentKind {
        switch self {
        case .bloodPressure: .bloodPressure
        case .pulse: .pulse
        case .bodyMassIndex: .bodyMassIndex
        case .glucose: .glucose
        case .hba1c: .hba1c
        case .lipids: .lipids
        case .nottinghamPrognosticIndex: .nottinghamPrognosticIndex
        case .melanomaRisk: .melanomaRisk
        case .examResult: .examResult
        case .lesionPhoto: .lesionPhoto
        }
    }

    /// The rule's word, as it travels and is stored.
    public var rawValue: String {
        switch self {
        case .bloodPressure(let category): category.rawValue
        case .pulse(let category): category.rawValue
        case .bodyMassIndex(let category): category.rawValue
        case .glucose(let category), .hba1c(let category): category.rawValue
        case .lipids(let category): category.rawValue
        case .nottinghamPrognosticIndex(let group): group.rawValue
        case .melanomaRisk(let category): category.rawValue
        case .examResult(let code): code.rawValue
        case .lesionPhoto(let category): category.rawValue
        }
    }

    /// The category `rawValue` names for an assessment of `kind`; nil if that kind's rule has no such word.
    public init?(kind: AssessmentKind, rawValue: String) {
        switch kind {
        case .bloodPressure:
            guard let category = BloodPressureCategory(rawValue: rawValue) else { return nil }
            self = .bloodPressure(category)
        case .pulse:
            guard let category = PulseCategory(rawValue: rawValue) else { return nil }
            self = .pulse(category)
        case .bodyMassIndex:
            guard let category = BodyMassIndexCategory(rawValue: rawValue) else { return nil }
            self = .bodyMassIndex(category)
        case .glucose:
            guard let category = GlucoseCategory(rawValue: rawValue) else { return nil }
            self = .glucose(category)
        case .hba1c:
            guard let category = GlucoseCategory(rawValue: rawValue) else { return nil }
            self = .hba1c(category)
        case .lipids:
            guard let category = LipidPanelCategory(rawValue: rawValue) else { return nil }
            self = .lipids(category)
        case .nottinghamPrognosticIndex:
            guard let group = NPIPrognosticGroup(rawValue: rawValue) else { return nil }
            self = .nottinghamPrognosticIndex(group)
        case .melanomaRisk:
            guard let category = MelanomaRiskCategory(rawValue: rawValue) else { return nil }
            self = .melanomaRisk(category)
        case .examResult:
            guard let code = InterpretationCode(rawValue: rawValue) else { return nil }
            self = .examResult(code)
        case .lesionPhoto:
            guard let category = LesionPhotoCategory(rawValue: rawValue) else { return nil }
            self = .lesionPhoto(category)
        }
    }
}

/// A lipid panel's category: the word of its most severe measure (`ClinicalAssessment`'s headline rule), from the
/// vocabulary the four ATP III measures share. The measure itself is in the assessment's values and tip.
public enum LipidPanelCategory: String, Hashable, Sendable, CaseIterable {
    case desirable, optimal, nearOptimal, borderlineHigh, high, veryHigh, low, normal

    public init(_ category: TotalCholesterolCategory) { self.init(rawValue: category.rawValue)! }
    public init(_ category: LDLCholesterolCategory) { self.init(rawValue: category.rawValue)! }
    public init(_ category: HDLCholesterolCategory) { self.init(rawValue: category.rawValue)! }
    public init(_ category: TriglycerideCategory) { self.init(rawValue: category.rawValue)! }
}
