/// Adult office blood-pressure category.
///
/// Source: Whelton PK, Carey RM, Aronow WS, et al. 2017 ACC/AHA/AAPA/ABC/ACPM/AGS/APhA/ASH/ASPC/NMA/PCNA
/// Guideline for the Prevention, Detection, Evaluation, and Management of High Blood Pressure in Adults.
/// Hypertension 2018;71:e13–e115 (also J Am Coll Cardiol 2018;71:e127–e248),
/// Table 6 "Categories of BP in Adults" and section 11.2 "Hypertensive Crises—Emergencies and Urgencies".
///
/// Cases are declared from lowest to highest and compare in that order.
public enum BloodPressureCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// Systolic < 120 **and** diastolic < 80 mmHg.
    case normal
    /// Systolic 120–129 **and** diastolic < 80 mmHg.
    case elevated
    /// Systolic 130–139 **or** diastolic 80–89 mmHg.
    case stage1Hypertension
    /// Systolic ≥ 140 **or** diastolic ≥ 90 mmHg.
    case stage2Hypertension
    /// Systolic > 180 **and/or** diastolic > 120 mmHg.
    case hypertensiveCrisis

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension BloodPressureCategory: DeclarationOrdered {}

/// Result of ``BloodPressure/assess(systolic:diastolic:)``.
public struct BloodPressureAssessment: Sendable, Equatable, Codable {
    public let category: BloodPressureCategory
    public let severity: Severity
    /// Key of the plain-language tip; the text lives in ``Tips/english``.
    public let tip: TipKey
    /// ``RuleSetVersion/current`` at the time of assessment.
    public let ruleSetVersion: String
}

/// Blood-pressure rule (ACC/AHA 2017).
///
/// Source: Whelton PK et al. 2017 ACC/AHA High Blood Pressure Guideline. Hypertension 2018;71:e13–e115,
/// Table 6 (BP categories) and section 11.2 (hypertensive crisis: SBP > 180 and/or DBP > 120 mmHg).
///
/// Category rule (when systolic and diastolic fall in different categories, the **higher** one applies,
/// as the guideline states):
///
/// | Category            | Systolic (mmHg) |        | Diastolic (mmHg) |
/// |---------------------|-----------------|--------|------------------|
/// | normal              | < 120           | and    | < 80             |
/// | elevated            | 120–129         | and    | < 80             |
/// | stage 1             | 130–139         | or     | 80–89            |
/// | stage 2             | ≥ 140           | or     | ≥ 90             |
/// | hypertensive crisis | > 180           | and/or | > 120            |
///
/// Boundaries: readings are whole mmHg; 180/120 exactly is stage 2, 181 or 121 is crisis.
///
/// Severity: normal and elevated → `.normal`; stage 1 and stage 2 → `.attention`; crisis → `.urgent`.
///
/// Plausibility (otherwise ``DomainValidationError``): systolic 50...300, diastolic 20...200 mmHg,
/// and systolic must be greater than diastolic. These are data-entry sanity limits, not clinical thresholds.
public enum BloodPressure {
    /// Plausible systolic range (mmHg).
    public static let plausibleSystolic: ClosedRange<Int> = 50...300
    /// Plausible diastolic range (mmHg).
    public static let plausibleDiastolic: ClosedRange<Int> = 20...200

    /// Classifies one adult office reading.
    ///
    /// - Throws: ``DomainValidationError`` listing every implausible field (`/systolic`, `/diastolic`).
    public static func assess(systolic: Int, diastolic: Int) throws(DomainValidationError) -> BloodPressureAssessment {
        var issues = IssueCollector()
        issues.append(contentsOf: validationIssues(systolic: systolic, diastolic: diastolic))
        try issues.throwIfAny()

        let category = category(systolic: systolic, diastolic: diastolic)
        return BloodPressureAssessment(
            category: category,
            severity: severity(for: category),
            tip: tip(for: category),
            ruleSetVersion: RuleSetVersion.current
        )
    }

    /// Validation shared with the trend rules; `pointer` prefixes every field (e.g. `/readings/3`).
    static func validationIssues(systolic: Int, diastolic: Int, pointer: String = "") -> [FieldIssue] {
        var issues = IssueCollector()
        let systolicOK = issues.check(systolic, in: plausibleSystolic, pointer + "/systolic", unit: "mmHg")
        let diastolicOK = issues.check(diastolic, in: plausibleDiastolic, pointer + "/diastolic", unit: "mmHg")
        // The cross-field check is only meaningful when both values are individually plausible.
        if systolicOK && diastolicOK && systolic <= diastolic {
            issues.add(
                pointer + "/systolic", "must be greater than the diastolic value (\(diastolic) mmHg)",
                allowed: "\(diastolic + 1)...\(plausibleSystolic.upperBound) mmHg")
        }
        return issues.issues
    }

    static func category(systolic: Int, diastolic: Int) -> BloodPressureCategory {
        if systolic > 180 || diastolic > 120 { return .hypertensiveCrisis }
        if systolic >= 140 || diastolic >= 90 { return .stage2Hypertension }
        if systolic >= 130 || diastolic >= 80 { return .stage1Hypertension }
        if systolic >= 120 { return .elevated }
        return .normal
    }

    static func severity(for category: BloodPressureCategory) -> Severity {
        switch category {
        case .normal, .elevated: .normal
        case .stage1Hypertension, .stage2Hypertension: .attention
        case .hypertensiveCrisis: .urgent
        }
    }

    static func tip(for category: BloodPressureCategory) -> TipKey {
        switch category {
        case .normal: .bloodPressureNormal
        case .elevated: .bloodPressureElevated
        case .stage1Hypertension: .bloodPressureStage1
        case .stage2Hypertension: .bloodPressureStage2
        case .hypertensiveCrisis: .bloodPressureCrisis
        }
    }
}
