/// Unit of a plasma-glucose value.
public enum GlucoseUnit: String, Sendable, Codable, CaseIterable {
    case mgPerDL
    case mmolPerL
}

/// When the plasma-glucose sample was taken.
public enum GlucoseMeasurementContext: String, Sendable, Codable, CaseIterable {
    /// No caloric intake for at least 8 h.
    case fasting
    /// 2 h after a 75-g oral glucose tolerance test.
    case twoHourOGTT
    /// Random (casual) sample, any time of day.
    case random
}

/// Glucose category, ordered from lowest to highest glucose.
public enum GlucoseCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// Level 2 hypoglycaemia: < 54 mg/dL (< 3.0 mmol/L).
    case hypoglycaemiaLevel2
    /// Level 1 hypoglycaemia: 54–69 mg/dL (3.0–3.8 mmol/L).
    case hypoglycaemiaLevel1
    case normal
    case prediabetes
    /// In the diabetes range. A diagnosis needs confirmation (ADA: repeat testing) — this is a flag, not a diagnosis.
    case diabetesRange

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension GlucoseCategory: DeclarationOrdered {}

/// Result of ``Glucose/assess(value:unit:context:)``.
public struct GlucoseAssessment: Sendable, Equatable, Codable {
    public let context: GlucoseMeasurementContext
    /// The value as entered.
    public let value: Double
    public let unit: GlucoseUnit
    /// The value converted to mg/dL (factor 18.016), for display and trend comparison.
    public let valueMgPerDL: Double
    public let category: GlucoseCategory
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// Result of ``Glucose/assessHbA1c(percent:)``.
public struct HbA1cAssessment: Sendable, Equatable, Codable {
    public let percent: Double
    /// `.normal`, `.prediabetes` or `.diabetesRange` (HbA1c has no hypoglycaemia category).
    public let category: GlucoseCategory
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// Plasma-glucose and HbA1c rule.
///
/// Sources:
/// - American Diabetes Association Professional Practice Committee. 2. Diagnosis and Classification of Diabetes:
///   Standards of Care in Diabetes—2025. Diabetes Care 2025;48(Suppl 1):S27–S49 (doi:10.2337/dc25-S002),
///   criteria tables for diabetes and prediabetes (FPG, 2-h PG in the 75-g OGTT, A1C, random PG).
/// - ADA. 6. Glycemic Goals and Hypoglycemia: Standards of Care in Diabetes—2025. Diabetes Care
///   2025;48(Suppl 1), hypoglycaemia classification: level 1 < 70 and ≥ 54 mg/dL (< 3.9 and ≥ 3.0 mmol/L);
///   level 2 < 54 mg/dL (< 3.0 mmol/L).
///
/// | Context        | normal          | prediabetes                | diabetes range     |
/// |----------------|-----------------|----------------------------|--------------------|
/// | fasting        | < 100 (< 5.6)   | 100–125 (5.6–6.9)          | ≥ 126 (≥ 7.0)      |
/// | 2-h OGTT       | < 140 (< 7.8)   | 140–199 (7.8–11.0)         | ≥ 200 (≥ 11.1)     |
/// | random         | < 140 (< 7.8)   | 140–199 (7.8–11.0) *       | ≥ 200 (≥ 11.1)     |
/// | HbA1c (%)      | < 5.7           | 5.7–6.4                    | ≥ 6.5              |
///
/// Values in mg/dL (mmol/L). Any context: < 70 (< 3.9) is level 1, < 54 (< 3.0) level 2 hypoglycaemia.
/// \* The ADA defines the 140–199 band (impaired glucose tolerance) for the 2-h OGTT only; applying it to
/// random samples is a product decision documented in `docs/clinical-rules.md`.
///
/// **Units and boundaries.** Because the ADA publishes its thresholds in both units (and the rounded SI
/// values are not exact conversions — 11.1 mmol/L × 18.016 = 199.98 mg/dL), each value is compared with the
/// thresholds published **in its own unit**, without rounding, using half-open bands `[lower, next lower)`.
/// A published upper bound such as "125" therefore means "below 126": 125.9 mg/dL is prediabetes,
/// 126 is diabetes range; 6.95 mmol/L is prediabetes, 7.0 is diabetes range.
///
/// Conversion (for display/trends only): mg/dL = mmol/L × 18.016 (molar mass of glucose 180.16 g/mol ÷ 10).
///
/// Severity: level 2 hypoglycaemia → `.urgent` (ADA: "requires immediate action"); level 1 hypoglycaemia,
/// prediabetes and diabetes range → `.attention`; normal → `.normal`.
///
/// Plausibility: 10...1500 mg/dL, 0.6...83.0 mmol/L, HbA1c 3.0...20.0 %.
public enum Glucose {
    /// mg/dL per mmol/L for glucose (180.16 g/mol ÷ 10).
    public static let mgPerDLPerMmolPerL: Double = 18.016

    public static let plausibleMgPerDL: ClosedRange<Double> = 10...1500
    public static let plausibleMmolPerL: ClosedRange<Double> = 0.6...83.0
    public static let plausibleHbA1cPercent: ClosedRange<Double> = 3.0...20.0

    public static func mgPerDL(fromMmolPerL mmol: Double) -> Double { mmol * mgPerDLPerMmolPerL }
    public static func mmolPerL(fromMgPerDL mg: Double) -> Double { mg / mgPerDLPerMmolPerL }

    /// Thresholds as published by the ADA in one unit. Each is the inclusive lower bound of its band.
    struct Thresholds {
        let hypoLevel1Below: Double
        let hypoLevel2Below: Double
        let fastingPrediabetesFrom: Double
        let fastingDiabetesFrom: Double
        let postLoadPrediabetesFrom: Double
        let postLoadDiabetesFrom: Double
    }

    static func thresholds(_ unit: GlucoseUnit) -> Thresholds {
        switch unit {
        case .mgPerDL:
            Thresholds(
                hypoLevel1Below: 70, hypoLevel2Below: 54, fastingPrediabetesFrom: 100, fastingDiabetesFrom: 126,
                postLoadPrediabetesFrom: 140, postLoadDiabetesFrom: 200)
        case .mmolPerL:
            Thresholds(
                hypoLevel1Below: 3.9, hypoLevel2Below: 3.0, fastingPrediabetesFrom: 5.6, fastingDiabetesFrom: 7.0,
                postLoadPrediabetesFrom: 7.8, postLoadDiabetesFrom: 11.1)
        }
    }

    static func plausibleRange(_ unit: GlucoseUnit) -> ClosedRange<Double> {
        unit == .mgPerDL ? plausibleMgPerDL : plausibleMmolPerL
    }

    static func unitLabel(_ unit: GlucoseUnit) -> String { unit == .mgPerDL ? "mg/dL" : "mmol/L" }

    static func validationIssues(value: Double, unit: GlucoseUnit, field: String) -> [FieldIssue] {
        var issues = IssueCollector()
        issues.check(
            value, in: plausibleRange(unit), field, unit: unitLabel(unit), decimals: unit == .mgPerDL ? 0 : 1)
        return issues.issues
    }

    /// Classifies one plasma-glucose value.
    public static func assess(
        value: Double, unit: GlucoseUnit, context: GlucoseMeasurementContext
    ) throws(DomainValidationError) -> GlucoseAssessment {
        try IssueCollector.throwing(validationIssues(value: value, unit: unit, field: "/value"))
        let category = category(value: value, unit: unit, context: context)
        let (severity, tip) = severityAndTip(category)
        return GlucoseAssessment(
            context: context, value: value, unit: unit,
            valueMgPerDL: unit == .mgPerDL ? value : mgPerDL(fromMmolPerL: value),
            category: category, severity: severity, tip: tip, ruleSetVersion: RuleSetVersion.current)
    }

    static func category(value: Double, unit: GlucoseUnit, context: GlucoseMeasurementContext) -> GlucoseCategory {
        let t = thresholds(unit)
        if value < t.hypoLevel2Below { return .hypoglycaemiaLevel2 }
        if value < t.hypoLevel1Below { return .hypoglycaemiaLevel1 }
        let (prediabetesFrom, diabetesFrom) =
            switch context {
            case .fasting: (t.fastingPrediabetesFrom, t.fastingDiabetesFrom)
            case .twoHourOGTT, .random: (t.postLoadPrediabetesFrom, t.postLoadDiabetesFrom)
            }
        if value >= diabetesFrom { return .diabetesRange }
        if value >= prediabetesFrom { return .prediabetes }
        return .normal
    }

    static func severityAndTip(_ category: GlucoseCategory) -> (Severity, TipKey) {
        switch category {
        case .hypoglycaemiaLevel2: (.urgent, .glucoseHypoglycaemiaLevel2)
        case .hypoglycaemiaLevel1: (.attention, .glucoseHypoglycaemiaLevel1)
        case .normal: (.normal, .glucoseNormal)
        case .prediabetes: (.attention, .glucosePrediabetes)
        case .diabetesRange: (.attention, .glucoseDiabetesRange)
        }
    }

    /// Classifies an NGSP/DCCT-aligned HbA1c in percent (< 5.7 normal, 5.7–6.4 prediabetes, ≥ 6.5 diabetes
    /// range; half-open bands on the value as entered, so 6.45 is prediabetes).
    public static func assessHbA1c(percent: Double) throws(DomainValidationError) -> HbA1cAssessment {
        var issues = IssueCollector()
        issues.check(percent, in: plausibleHbA1cPercent, "/percent", unit: "%")
        try issues.throwIfAny()
        let category: GlucoseCategory =
            if percent >= 6.5 { .diabetesRange } else if percent >= 5.7 { .prediabetes } else { .normal }
        let (severity, tip) = severityAndTip(category)
        return HbA1cAssessment(
            percent: percent, category: category, severity: severity, tip: tip,
            ruleSetVersion: RuleSetVersion.current)
    }
}

extension IssueCollector {
    static func throwing(_ issues: [FieldIssue]) throws(DomainValidationError) {
        if !issues.isEmpty { throw DomainValidationError(issues: issues) }
    }
}
