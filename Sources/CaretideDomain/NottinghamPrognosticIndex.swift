public import Foundation

/// How the axillary lymph-node status is supplied.
public enum LymphNodeInput: Sendable, Equatable, Codable {
    /// Lymph-node stage 1, 2 or 3 as already recorded by pathology.
    case stage(Int)
    /// Number of positive nodes; mapped 0 → stage 1, 1–3 → stage 2, ≥ 4 → stage 3.
    case positiveNodeCount(Int)
}

/// Input to ``NottinghamPrognosticIndex/assess(_:now:)``.
public struct NottinghamPrognosticIndexInput: Sendable, Equatable, Codable {
    /// Invasive tumour size (maximum diameter) in centimetres.
    public var tumourSizeCm: Double
    /// Histological grade 1–3 (Nottingham/Elston–Ellis modification of Bloom–Richardson).
    public var histologicalGrade: Int
    public var lymphNodes: LymphNodeInput
    /// Date of diagnosis / pathological measurement. Must not be in the future.
    public var diagnosisDate: Date

    public init(tumourSizeCm: Double, histologicalGrade: Int, lymphNodes: LymphNodeInput, diagnosisDate: Date) {
        self.tumourSizeCm = tumourSizeCm
        self.histologicalGrade = histologicalGrade
        self.lymphNodes = lymphNodes
        self.diagnosisDate = diagnosisDate
    }
}

/// NPI prognostic group (Galea et al. 1992), ordered from best to worst prognosis.
public enum NPIPrognosticGroup: String, Sendable, Codable, CaseIterable, Comparable {
    /// NPI ≤ 2.40 — 93 % 5-year survival.
    case excellent
    /// NPI 2.41–3.40 — 85 % 5-year survival.
    case good
    /// NPI 3.41–5.40 — 70 % 5-year survival.
    case moderate
    /// NPI ≥ 5.41 — 50 % 5-year survival.
    case poor

    /// 5-year survival reported for the group (Galea et al. 1992), in percent.
    public var fiveYearSurvivalPercent: Int {
        switch self {
        case .excellent: 93
        case .good: 85
        case .moderate: 70
        case .poor: 50
        }
    }

    /// "Worse" compares greater: `.excellent < .good < .moderate < .poor`.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension NPIPrognosticGroup: DeclarationOrdered {}

/// Result of ``NottinghamPrognosticIndex/assess(_:now:)``.
public struct NottinghamPrognosticIndexAssessment: Sendable, Equatable, Codable {
    /// NPI × 100 as an exact integer (e.g. 240 for 2.40). This is the value that was classified.
    public let npiHundredths: Int
    /// NPI rounded to 2 decimal places, e.g. `"2.40"` (locale-independent).
    public let npiText: String
    /// Lymph-node stage (1–3) used, derived from the count when a count was given.
    public let lymphNodeStage: Int
    public let group: NPIPrognosticGroup
    public let fiveYearSurvivalPercent: Int
    public let tip: TipKey
    public let ruleSetVersion: String

    /// NPI as a `Double` for display/plotting only — classify with ``npiHundredths``.
    public var npi: Double { Double(npiHundredths) / 100 }
}

/// One point of a plotted survival curve.
public struct SurvivalCurvePoint: Sendable, Equatable, Codable {
    public let monthsSinceDiagnosis: Int
    /// Modelled probability of being alive, 0...1.
    public let survivalProbability: Double
}

/// Nottingham Prognostic Index (operable primary breast cancer).
///
/// Sources:
/// - Formula: Haybittle JL, Blamey RW, Elston CW, et al. A prognostic index in primary breast cancer.
///   Br J Cancer 1982;45(3):361–366. NPI = 0.2 × size (cm) + histological grade (1–3) + lymph-node stage (1–3).
/// - Groups and 5-year survival: Galea MH, Blamey RW, Elston CE, Ellis IO. The Nottingham Prognostic Index in
///   primary breast cancer. Breast Cancer Res Treat 1992;22(3):207–219. Excellent ≤ 2.4 (93 %),
///   good 2.41–3.4 (85 %), moderate 3.41–5.4 (70 %), poor > 5.4 (50 %).
///
/// **Exact arithmetic and boundaries.** Floating point would make `0.2 × 12` = 2.4000000000000004. The NPI is
/// therefore computed in integer hundredths:
/// 1. size is quantised to 0.01 cm (0.1 mm): `sizeHundredths = round(size × 100)` (half away from zero);
/// 2. `0.2 × size` in hundredths is `sizeHundredths / 5`, rounded half-up to an integer
///    (i.e. the NPI is rounded to 2 decimal places);
/// 3. `npiHundredths = that + 100 × grade + 100 × nodeStage`.
///
/// Groups on the 2-dp value: ≤ 240 excellent, 241–340 good, 341–540 moderate, ≥ 541 poor.
/// So 2.40 is excellent and 2.41 good; 3.40 good, 3.41 moderate; 5.40 moderate, 5.41 poor.
///
/// **Survival curve assumption.** ``survivalCurve(for:stepMonths:)`` plots an *illustrative* curve assuming a
/// constant hazard (exponential survival) S(t) = exp(−λt), with λ = −ln(S₅)/5 per year chosen so that S(5 years)
/// equals the group's published 5-year survival S₅. Galea et al. report only the group survival figures, not a
/// hazard model; the real curves are not exponential, so the points between 0 and 5 years are a modelling
/// assumption for display, not published data.
///
/// Validation: size > 0 and ≤ 30 cm; grade 1...3; node stage 1...3; positive-node count 0...100;
/// diagnosis date not after `now`.
public enum NottinghamPrognosticIndex {
    public static let maximumTumourSizeCm: Double = 30
    public static let maximumPositiveNodeCount = 100

    /// Computes the NPI and prognostic group. `now` is passed in so the function stays pure.
    public static func assess(
        _ input: NottinghamPrognosticIndexInput, now: Date
    ) throws(DomainValidationError) -> NottinghamPrognosticIndexAssessment {
        var issues = IssueCollector()
        let sizeAllowed = "> 0 and ≤ \(Int(maximumTumourSizeCm)) cm"
        if !input.tumourSizeCm.isFinite {
            issues.add("/tumourSizeCm", "must be a finite number", allowed: sizeAllowed)
        } else if input.tumourSizeCm <= 0 {
            issues.add("/tumourSizeCm", "must be greater than zero", allowed: sizeAllowed)
        } else if input.tumourSizeCm > maximumTumourSizeCm {
            issues.add("/tumourSizeCm", "is outside the plausible range", allowed: sizeAllowed)
        }
        issues.check(input.histologicalGrade, in: 1...3, "/histologicalGrade")
        var nodeStage: Int?
        switch input.lymphNodes {
        case .stage(let given):
            if issues.check(given, in: 1...3, "/lymphNodes/stage") { nodeStage = given }
        case .positiveNodeCount(let count):
            if checkNodeCount(count, &issues) { nodeStage = stage(positiveNodes: count) }
        }
        if input.diagnosisDate > now {
            issues.add("/diagnosisDate", "must not be in the future", allowed: "on or before the assessment time")
        }
        try issues.throwIfAny()
        guard let nodeStage else { preconditionFailure("node stage is set whenever validation passes") }

        let hundredths = npiHundredths(
            tumourSizeCm: input.tumourSizeCm, grade: input.histologicalGrade, nodeStage: nodeStage)
        let group = group(npiHundredths: hundredths)
        return NottinghamPrognosticIndexAssessment(
            npiHundredths: hundredths,
            npiText: DecimalFormat.fixed(scaledInteger: hundredths, decimals: 2),
            lymphNodeStage: nodeStage,
            group: group,
            fiveYearSurvivalPercent: group.fiveYearSurvivalPercent,
            tip: tip(for: group),
            ruleSetVersion: RuleSetVersion.current)
    }

    /// Lymph-node stage from the number of positive nodes: 0 → 1, 1–3 → 2, ≥ 4 → 3.
    ///
    /// - Throws: ``DomainValidationError`` (`/lymphNodes/positiveNodeCount`) for a negative or implausible count.
    public static func lymphNodeStage(positiveNodes: Int) throws(DomainValidationError) -> Int {
        var issues = IssueCollector()
        checkNodeCount(positiveNodes, &issues)
        try issues.throwIfAny()
        return stage(positiveNodes: positiveNodes)
    }

    @discardableResult
    static func checkNodeCount(_ count: Int, _ issues: inout IssueCollector) -> Bool {
        if count < 0 {
            issues.add(
                "/lymphNodes/positiveNodeCount", "must not be negative", allowed: "0...\(maximumPositiveNodeCount)")
            return false
        }
        return issues.check(count, in: 0...maximumPositiveNodeCount, "/lymphNodes/positiveNodeCount")
    }

    static func stage(positiveNodes: Int) -> Int {
        switch positiveNodes {
        case ...0: 1
        case 1...3: 2
        default: 3
        }
    }

    /// NPI × 100, exactly, with the size term rounded half-up to 0.01 (see the type documentation).
    static func npiHundredths(tumourSizeCm: Double, grade: Int, nodeStage: Int) -> Int {
        // bounded: the size was checked finite and plausible before the index is computed.
        let sizeHundredths = Int((tumourSizeCm * 100).rounded(.toNearestOrAwayFromZero))
        // 0.2 × size in NPI-hundredths = sizeHundredths / 5; remainders 0...4 → fraction 0, .2, .4, .6, .8;
        // adding 2 before integer division rounds .6 and .8 up and .2 and .4 down (no exact halves exist).
        let sizeTerm = (sizeHundredths + 2) / 5
        return sizeTerm + 100 * grade + 100 * nodeStage
    }

    /// Prognostic group for an NPI given in hundredths (240 → excellent, 241 → good).
    public static func group(npiHundredths: Int) -> NPIPrognosticGroup {
        switch npiHundredths {
        case ...240: .excellent
        case 241...340: .good
        case 341...540: .moderate
        default: .poor
        }
    }

    static func tip(for group: NPIPrognosticGroup) -> TipKey {
        switch group {
        case .excellent: .npiExcellent
        case .good: .npiGood
        case .moderate: .npiModerate
        case .poor: .npiPoor
        }
    }

    /// Illustrative 5-year survival curve for `group`, one point every `stepMonths` from month 0 to month 60
    /// (month 60 is always included). Assumes exponential survival — see the type documentation.
    ///
    /// - Throws: ``DomainValidationError`` for `/stepMonths` outside 1...60.
    public static func survivalCurve(
        for group: NPIPrognosticGroup, stepMonths: Int = 6
    ) throws(DomainValidationError) -> [SurvivalCurvePoint] {
        var issues = IssueCollector()
        issues.check(stepMonths, in: 1...60, "/stepMonths", unit: "months")
        try issues.throwIfAny()

        let fiveYear = Double(group.fiveYearSurvivalPercent) / 100
        let hazardPerYear = -log(fiveYear) / 5
        var months = Array(stride(from: 0, through: 60, by: stepMonths))
        if months.last != 60 { months.append(60) }
        return months.map { month in
            let survival = month == 60 ? fiveYear : exp(-hazardPerYear * Double(month) / 12)
            return SurvivalCurvePoint(monthsSinceDiagnosis: month, survivalProbability: survival)
        }
    }
}
