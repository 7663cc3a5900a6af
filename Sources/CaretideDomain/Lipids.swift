/// Unit of a lipid value.
public enum LipidUnit: String, Sendable, Codable, CaseIterable {
    case mgPerDL
    case mmolPerL
}

/// ATP III total-cholesterol class, ordered from lowest to highest.
public enum TotalCholesterolCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// < 200 mg/dL
    case desirable
    /// 200–239 mg/dL
    case borderlineHigh
    /// ≥ 240 mg/dL
    case high

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

/// ATP III LDL-cholesterol class, ordered from lowest to highest.
public enum LDLCholesterolCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// < 100 mg/dL
    case optimal
    /// 100–129 mg/dL ("near optimal/above optimal")
    case nearOptimal
    /// 130–159 mg/dL
    case borderlineHigh
    /// 160–189 mg/dL
    case high
    /// ≥ 190 mg/dL
    case veryHigh

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

/// HDL-cholesterol class, ordered from lowest to highest HDL.
public enum HDLCholesterolCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// < 40 mg/dL (men) or < 50 mg/dL (women)
    case low
    /// Between the low limit and 59 mg/dL
    case normal
    /// ≥ 60 mg/dL (ATP III: a "negative" risk factor)
    case high

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

/// ATP III triglyceride class, ordered from lowest to highest.
public enum TriglycerideCategory: String, Sendable, Codable, CaseIterable, Comparable {
    /// < 150 mg/dL
    case normal
    /// 150–199 mg/dL
    case borderlineHigh
    /// 200–499 mg/dL
    case high
    /// ≥ 500 mg/dL
    case veryHigh

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.declarationIndex < rhs.declarationIndex }
}

extension TotalCholesterolCategory: DeclarationOrdered {}
extension LDLCholesterolCategory: DeclarationOrdered {}
extension HDLCholesterolCategory: DeclarationOrdered {}
extension TriglycerideCategory: DeclarationOrdered {}

/// Assessment of one lipid measure.
public struct LipidMeasureAssessment<Category: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
    /// The value as entered.
    public let value: Double
    public let unit: LipidUnit
    /// The value in mg/dL (the unit the ATP III thresholds are defined in).
    public let valueMgPerDL: Double
    public let category: Category
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// A (partial) lipid panel. Missing values are simply not assessed; at least one must be present.
public struct LipidPanelInput: Sendable, Equatable, Codable {
    public var totalCholesterol: Double?
    public var ldlCholesterol: Double?
    public var hdlCholesterol: Double?
    public var triglycerides: Double?
    public var unit: LipidUnit
    /// Required when `hdlCholesterol` is present (sex-specific low-HDL limit).
    public var sex: Sex?

    public init(
        totalCholesterol: Double? = nil, ldlCholesterol: Double? = nil, hdlCholesterol: Double? = nil,
        triglycerides: Double? = nil, unit: LipidUnit, sex: Sex? = nil
    ) {
        self.totalCholesterol = totalCholesterol
        self.ldlCholesterol = ldlCholesterol
        self.hdlCholesterol = hdlCholesterol
        self.triglycerides = triglycerides
        self.unit = unit
        self.sex = sex
    }
}

/// Result of ``Lipids/assess(_:)``.
public struct LipidPanelAssessment: Sendable, Equatable, Codable {
    public let totalCholesterol: LipidMeasureAssessment<TotalCholesterolCategory>?
    public let ldlCholesterol: LipidMeasureAssessment<LDLCholesterolCategory>?
    public let hdlCholesterol: LipidMeasureAssessment<HDLCholesterolCategory>?
    public let triglycerides: LipidMeasureAssessment<TriglycerideCategory>?
    /// The highest severity among the assessed measures.
    public let severity: Severity
    public let ruleSetVersion: String
}

/// Lipid rule (adults).
///
/// Source: National Cholesterol Education Program (NCEP) Expert Panel. Third Report of the NCEP Expert Panel on
/// Detection, Evaluation, and Treatment of High Blood Cholesterol in Adults (Adult Treatment Panel III) final
/// report. Circulation 2002;106:3143–3421 — "ATP III Classification of LDL, Total, and HDL Cholesterol (mg/dL)"
/// and the triglyceride classification (normal < 150, borderline-high 150–199, high 200–499, very high ≥ 500);
/// sex-specific low HDL (< 40 mg/dL men, < 50 mg/dL women) from the ATP III metabolic-syndrome criteria
/// (same report, Table "Clinical Identification of the Metabolic Syndrome").
///
/// | Measure            | Bands (mg/dL)                                                           |
/// |--------------------|-------------------------------------------------------------------------|
/// | total cholesterol  | desirable < 200; borderline high 200–239; high ≥ 240                    |
/// | LDL cholesterol    | optimal < 100; near optimal 100–129; borderline 130–159; high 160–189; very high ≥ 190 |
/// | HDL cholesterol    | low < 40 (men) / < 50 (women); normal; high ≥ 60                         |
/// | triglycerides      | normal < 150; borderline high 150–199; high 200–499; very high ≥ 500    |
///
/// **Units and boundaries.** ATP III defines its thresholds in mg/dL only. mmol/L input is converted exactly
/// (cholesterol × 38.67, triglycerides × 88.57 — the reciprocals of the SI factors 0.02586 and 0.01129) and then
/// compared, without rounding, with half-open bands: 199.9 mg/dL is desirable, 200 is borderline high.
/// Note: rounded SI equivalents printed in secondary tables (e.g. "HDL < 1.0 mmol/L") differ at the edge —
/// 1.0 mmol/L = 38.67 mg/dL is **low** here because the primary definition is in mg/dL.
///
/// Severity: desirable / optimal / near optimal / normal or high HDL / normal triglycerides → `.normal`;
/// every other class → `.attention`. Lipids never produce `.urgent`.
///
/// Plausibility (mg/dL): total 50...1000, LDL 10...900, HDL 5...200, triglycerides 10...10 000.
public enum Lipids {
    /// mg/dL per mmol/L for cholesterol (total, LDL, HDL): 1 / 0.02586.
    public static let cholesterolMgPerDLPerMmolPerL: Double = 38.67
    /// mg/dL per mmol/L for triglycerides: 1 / 0.01129.
    public static let triglyceridesMgPerDLPerMmolPerL: Double = 88.57

    public static let plausibleTotalCholesterolMgPerDL: ClosedRange<Double> = 50...1000
    public static let plausibleLDLMgPerDL: ClosedRange<Double> = 10...900
    public static let plausibleHDLMgPerDL: ClosedRange<Double> = 5...200
    public static let plausibleTriglyceridesMgPerDL: ClosedRange<Double> = 10...10_000

    public static func cholesterolMgPerDL(fromMmolPerL value: Double) -> Double { value * cholesterolMgPerDLPerMmolPerL }
    public static func cholesterolMmolPerL(fromMgPerDL value: Double) -> Double { value / cholesterolMgPerDLPerMmolPerL }
    public static func triglyceridesMgPerDL(fromMmolPerL value: Double) -> Double { value * triglyceridesMgPerDLPerMmolPerL }
    public static func triglyceridesMmolPerL(fromMgPerDL value: Double) -> Double { value / triglyceridesMgPerDLPerMmolPerL }

    // MARK: Single measures

    public static func assessTotalCholesterol(
        _ value: Double, unit: LipidUnit
    ) throws(DomainValidationError) -> LipidMeasureAssessment<TotalCholesterolCategory> {
        try IssueCollector.throwing(issues(value, unit: unit, .totalCholesterol))
        return totalCholesterol(value, unit: unit)
    }

    public static func assessLDLCholesterol(
        _ value: Double, unit: LipidUnit
    ) throws(DomainValidationError) -> LipidMeasureAssessment<LDLCholesterolCategory> {
        try IssueCollector.throwing(issues(value, unit: unit, .ldl))
        return ldl(value, unit: unit)
    }

    public static func assessHDLCholesterol(
        _ value: Double, unit: LipidUnit, sex: Sex
    ) throws(DomainValidationError) -> LipidMeasureAssessment<HDLCholesterolCategory> {
        try IssueCollector.throwing(issues(value, unit: unit, .hdl))
        return hdl(value, unit: unit, sex: sex)
    }

    public static func assessTriglycerides(
        _ value: Double, unit: LipidUnit
    ) throws(DomainValidationError) -> LipidMeasureAssessment<TriglycerideCategory> {
        try IssueCollector.throwing(issues(value, unit: unit, .triglycerides))
        return triglycerides(value, unit: unit)
    }

    // MARK: Panel

    /// Assesses every value present in `panel`, reporting all invalid fields together.
    public static func assess(_ panel: LipidPanelInput) throws(DomainValidationError) -> LipidPanelAssessment {
        var collector = IssueCollector()
        if panel.totalCholesterol == nil, panel.ldlCholesterol == nil, panel.hdlCholesterol == nil,
            panel.triglycerides == nil
        {
            collector.add(
                "", "at least one lipid value is required",
                allowed: "totalCholesterol, ldlCholesterol, hdlCholesterol, triglycerides")
        }
        if let v = panel.totalCholesterol { collector.append(contentsOf: issues(v, unit: panel.unit, .totalCholesterol)) }
        if let v = panel.ldlCholesterol { collector.append(contentsOf: issues(v, unit: panel.unit, .ldl)) }
        if let v = panel.hdlCholesterol {
            collector.append(contentsOf: issues(v, unit: panel.unit, .hdl))
            if panel.sex == nil {
                collector.add(
                    "/sex", "is required to assess HDL cholesterol (sex-specific low limit)",
                    allowed: IssueCollector.oneOf(Sex.self))
            }
        }
        if let v = panel.triglycerides { collector.append(contentsOf: issues(v, unit: panel.unit, .triglycerides)) }
        try collector.throwIfAny()

        let totalResult = panel.totalCholesterol.map { totalCholesterol($0, unit: panel.unit) }
        let ldlResult = panel.ldlCholesterol.map { ldl($0, unit: panel.unit) }
        let hdlResult = panel.hdlCholesterol.flatMap { value in panel.sex.map { hdl(value, unit: panel.unit, sex: $0) } }
        let tgResult = panel.triglycerides.map { triglycerides($0, unit: panel.unit) }
        let severities = [totalResult?.severity, ldlResult?.severity, hdlResult?.severity, tgResult?.severity]
            .compactMap { $0 }
        return LipidPanelAssessment(
            totalCholesterol: totalResult, ldlCholesterol: ldlResult, hdlCholesterol: hdlResult,
            triglycerides: tgResult,
            severity: severities.max() ?? .normal, ruleSetVersion: RuleSetVersion.current)
    }

    // MARK: Internals

    enum Measure {
        case totalCholesterol, ldl, hdl, triglycerides

        var field: String {
            switch self {
            case .totalCholesterol: "/totalCholesterol"
            case .ldl: "/ldlCholesterol"
            case .hdl: "/hdlCholesterol"
            case .triglycerides: "/triglycerides"
            }
        }

        var plausibleMgPerDL: ClosedRange<Double> {
            switch self {
            case .totalCholesterol: Lipids.plausibleTotalCholesterolMgPerDL
            case .ldl: Lipids.plausibleLDLMgPerDL
            case .hdl: Lipids.plausibleHDLMgPerDL
            case .triglycerides: Lipids.plausibleTriglyceridesMgPerDL
            }
        }

        var factor: Double {
            self == .triglycerides ? Lipids.triglyceridesMgPerDLPerMmolPerL : Lipids.cholesterolMgPerDLPerMmolPerL
        }
    }

    static func mgPerDL(_ value: Double, unit: LipidUnit, _ measure: Measure) -> Double {
        unit == .mgPerDL ? value : value * measure.factor
    }

    static func issues(_ value: Double, unit: LipidUnit, _ measure: Measure) -> [FieldIssue] {
        var collector = IssueCollector()
        switch unit {
        case .mgPerDL:
            collector.check(value, in: measure.plausibleMgPerDL, measure.field, unit: "mg/dL", decimals: 0)
        case .mmolPerL:
            let range = measure.plausibleMgPerDL
            let mmol = (range.lowerBound / measure.factor)...(range.upperBound / measure.factor)
            // Validate on the converted value so both units share one definition of "plausible".
            if !value.isFinite || !range.contains(value * measure.factor) {
                collector.add(
                    measure.field, value.isFinite ? "is outside the plausible range" : "must be a finite number",
                    allowed: IssueCollector.describe(mmol, unit: "mmol/L", decimals: 2))
            }
        }
        return collector.issues
    }

    static func make<C>(
        _ value: Double, _ unit: LipidUnit, _ measure: Measure, _ category: C, _ severity: Severity, _ tip: TipKey
    ) -> LipidMeasureAssessment<C> {
        LipidMeasureAssessment(
            value: value, unit: unit, valueMgPerDL: mgPerDL(value, unit: unit, measure), category: category,
            severity: severity, tip: tip, ruleSetVersion: RuleSetVersion.current)
    }

    static func totalCholesterol(_ value: Double, unit: LipidUnit) -> LipidMeasureAssessment<TotalCholesterolCategory> {
        let mg = mgPerDL(value, unit: unit, .totalCholesterol)
        let (category, severity, tip): (TotalCholesterolCategory, Severity, TipKey) =
            if mg >= 240 { (.high, .attention, .totalCholesterolHigh) } else if mg >= 200 {
                (.borderlineHigh, .attention, .totalCholesterolBorderlineHigh)
            } else { (.desirable, .normal, .totalCholesterolDesirable) }
        return make(value, unit, .totalCholesterol, category, severity, tip)
    }

    static func ldl(_ value: Double, unit: LipidUnit) -> LipidMeasureAssessment<LDLCholesterolCategory> {
        let mg = mgPerDL(value, unit: unit, .ldl)
        let (category, severity, tip): (LDLCholesterolCategory, Severity, TipKey) =
            if mg >= 190 { (.veryHigh, .attention, .ldlVeryHigh) } else if mg >= 160 { (.high, .attention, .ldlHigh) } else if mg >= 130 {
                (.borderlineHigh, .attention, .ldlBorderlineHigh)
            } else if mg >= 100 { (.nearOptimal, .normal, .ldlNearOptimal) } else { (.optimal, .normal, .ldlOptimal) }
        return make(value, unit, .ldl, category, severity, tip)
    }

    /// Low-HDL limit in mg/dL: 40 for men, 50 for women (ATP III metabolic-syndrome criteria).
    public static func lowHDLLimitMgPerDL(for sex: Sex) -> Double { sex == .male ? 40 : 50 }

    static func hdl(_ value: Double, unit: LipidUnit, sex: Sex) -> LipidMeasureAssessment<HDLCholesterolCategory> {
        let mg = mgPerDL(value, unit: unit, .hdl)
        let (category, severity, tip): (HDLCholesterolCategory, Severity, TipKey) =
            if mg >= 60 { (.high, .normal, .hdlHigh) } else if mg >= lowHDLLimitMgPerDL(for: sex) { (.normal, .normal, .hdlNormal) } else {
                (.low, .attention, .hdlLow)
            }
        return make(value, unit, .hdl, category, severity, tip)
    }

    static func triglycerides(_ value: Double, unit: LipidUnit) -> LipidMeasureAssessment<TriglycerideCategory> {
        let mg = mgPerDL(value, unit: unit, .triglycerides)
        let (category, severity, tip): (TriglycerideCategory, Severity, TipKey) =
            if mg >= 500 { (.veryHigh, .attention, .triglyceridesVeryHigh) } else if mg >= 200 {
                (.high, .attention, .triglyceridesHigh)
            } else if mg >= 150 { (.borderlineHigh, .attention, .triglyceridesBorderlineHigh) } else { (.normal, .normal, .triglyceridesNormal) }
        return make(value, unit, .triglycerides, category, severity, tip)
    }
}
