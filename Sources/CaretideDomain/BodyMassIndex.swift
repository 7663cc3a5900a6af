/// WHO adult BMI class, ordered from lowest to highest BMI.
public enum BodyMassIndexCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// < 18.50
    case underweight
    /// 18.50–24.99
    case normal
    /// 25.00–29.99 ("pre-obese")
    case overweight
    /// 30.00–34.99
    case obeseClassI
    /// 35.00–39.99
    case obeseClassII
    /// ≥ 40.00
    case obeseClassIII

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension BodyMassIndexCategory: DeclarationOrdered {}

/// Result of ``BodyMassIndex/assess(weightKg:heightCm:)``.
public struct BodyMassIndexAssessment: Sendable, Equatable, Codable {
    /// BMI in kg/m², rounded half-up to 2 decimal places (the value that was classified).
    public let bodyMassIndex: Double
    /// The same BMI as an exact integer number of hundredths (e.g. 2500 for 25.00).
    public let bodyMassIndexHundredths: Int
    public let category: BodyMassIndexCategory
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// Body-mass-index rule (adults).
///
/// Source: World Health Organization. Obesity: preventing and managing the global epidemic. Report of a WHO
/// Consultation. WHO Technical Report Series 894. Geneva: WHO, 2000, Table 2.1 "Classification of adults
/// according to BMI" (underweight < 18.50; normal 18.50–24.99; pre-obese 25.00–29.99; obese class I
/// 30.00–34.99; class II 35.00–39.99; class III ≥ 40.00).
///
/// Computation: BMI = weight (kg) / height (m)², computed as `kg × 10 000 / cm²`, then **rounded half-up to
/// 0.01** (the resolution of the WHO table) and classified on that integer number of hundredths with
/// half-open bands. So 24.99 is normal, 25.00 is overweight, and a raw 24.996 rounds to 25.00 (overweight).
///
/// Severity: normal → `.normal`; every other class → `.attention` (WHO lists an increased risk of
/// co-morbidities, or other clinical problems for underweight). BMI never produces `.urgent`.
///
/// Plausibility (adults): weight 20...500 kg, height 100...250 cm.
public enum BodyMassIndex {
    public static let plausibleWeightKg: ClosedRange<Double> = 20...500
    public static let plausibleHeightCm: ClosedRange<Double> = 100...250

    public static func assess(weightKg: Double, heightCm: Double) throws(DomainValidationError) -> BodyMassIndexAssessment {
        var issues = IssueCollector()
        issues.check(weightKg, in: plausibleWeightKg, "/weightKg", unit: "kg", decimals: 0)
        issues.check(heightCm, in: plausibleHeightCm, "/heightCm", unit: "cm", decimals: 0)
        try issues.throwIfAny()

        // bounded: both were checked finite and plausible above.
        let hundredths = Int((weightKg * 1_000_000 / (heightCm * heightCm)).rounded(.toNearestOrAwayFromZero))
        let category = category(hundredths: hundredths)
        let (severity, tip): (Severity, TipKey) =
            switch category {
            case .underweight: (.attention, .bmiUnderweight)
            case .normal: (.normal, .bmiNormal)
            case .overweight: (.attention, .bmiOverweight)
            case .obeseClassI: (.attention, .bmiObeseClassI)
            case .obeseClassII: (.attention, .bmiObeseClassII)
            case .obeseClassIII: (.attention, .bmiObeseClassIII)
            }
        return BodyMassIndexAssessment(
            bodyMassIndex: Double(hundredths) / 100, bodyMassIndexHundredths: hundredths, category: category,
            severity: severity, tip: tip, ruleSetVersion: RuleSetVersion.current)
    }

    /// WHO class for a BMI given in hundredths (e.g. 2499 → normal, 2500 → overweight).
    public static func category(hundredths: Int) -> BodyMassIndexCategory {
        switch hundredths {
        case ..<1850: .underweight
        case 1850..<2500: .normal
        case 2500..<3000: .overweight
        case 3000..<3500: .obeseClassI
        case 3500..<4000: .obeseClassII
        default: .obeseClassIII
        }
    }
}
