/// The reference tables an app shows beside a value: each rule's categories with their ranges, severities and, where
/// the guideline gives them, colours, with the source and the rule-set version. They are data about the rules, not a
/// second copy of them: where a rule keeps its thresholds as values (glucose, the lipid limits) the table reads
/// them, and `ReferenceTableTests` classifies every band's edges with the rule itself, so a table cannot drift from
/// its rule. docs/clinical-rules.md cites each source.
public struct ReferenceTable: Sendable, Equatable, Codable {
    /// The table's name in the API: `blood-pressure`, `npi`, `uv-index`, …
    public let name: String
    public let title: String
    public let source: String
    public let ruleSetVersion: String
    /// The values a category is read from, each with its bands (blood pressure has two; most tables one).
    public let measures: [ReferenceMeasure]
    /// How the measures combine, or anything else a reader needs.
    public let note: String?

    public init(name: String, title: String, source: String, measures: [ReferenceMeasure], note: String? = nil) {
        self.name = name
        self.title = title
        self.source = source
        self.ruleSetVersion = RuleSetVersion.current
        self.measures = measures
        self.note = note
    }
}

public struct ReferenceMeasure: Sendable, Equatable, Codable {
    public let name: String
    public let unit: String
    /// In order, lowest values first; together they cover every plausible value.
    public let bands: [ReferenceBand]

    public init(name: String, unit: String, bands: [ReferenceBand]) {
        self.name = name
        self.unit = unit
        self.bands = bands
    }
}

/// One category's range: from `from` (inclusive) to `below` (exclusive); an open end is absent.
public struct ReferenceBand: Sendable, Equatable, Codable {
    public let category: String
    public let from: Double?
    public let below: Double?
    public let severity: Severity?
    /// The guideline's colour (a name for the WHO UV bands, RGB hex for the EPA AQI categories).
    public let colour: String?
    public let note: String?

    public init(_ category: String, from: Double?, below: Double?, severity: Severity? = nil, colour: String? = nil, note: String? = nil) {
        self.category = category
        self.from = from
        self.below = below
        self.severity = severity
        self.colour = colour
        self.note = note
    }
}

extension ReferenceTable {
    public static let all: [ReferenceTable] = [
        bloodPressure, pulse, bodyMassIndex, glucose, hba1c, lipids, nottinghamPrognosticIndex, uvIndex, airQuality,
    ]

    public static func named(_ name: String) -> ReferenceTable? { all.first { $0.name == name } }

    /// Bands over consecutive edges: `edges[i]` starts band i + 1.
    static func bands<C: RawRepresentable>(_ categories: [C], edges: [Double], severity: (C) -> Severity?, colour: (C) -> String? = { _ in nil })
        -> [ReferenceBand] where C.RawValue == String
    {
        categories.enumerated().map { index, category in
            ReferenceBand(
                category.rawValue, from: index == 0 ? nil : edges[index - 1], below: index < edges.count ? edges[index] : nil,
                severity: severity(category), colour: colour(category))
        }
    }

    static func severity(_ category: BloodPressureCategory) -> Severity { BloodPressure.severity(for: category) }

    public static let bloodPressure = ReferenceTable(
        name: "blood-pressure", title: "Adult office blood pressure", source: "2017 ACC/AHA Guideline for High Blood Pressure in Adults, Table 6",
        measures: [
            ReferenceMeasure(
                name: "systolic", unit: "mmHg",
                bands: bands(BloodPressureCategory.allCases, edges: [120, 130, 140, 181], severity: severity)),
            ReferenceMeasure(
                name: "diastolic", unit: "mmHg",
                bands: bands(
                    [BloodPressureCategory.normal, .stage1Hypertension, .stage2Hypertension, .hypertensiveCrisis], edges: [80, 90, 121],
                    severity: severity)),
        ],
        note: "When systolic and diastolic fall in different categories the higher one applies; elevated is systolic 120–129 with diastolic below 80."
    )

    public static let pulse = ReferenceTable(
        name: "pulse", title: "Adult resting pulse", source: "NEWS2 (Royal College of Physicians, 2017), pulse parameter",
        measures: [
            ReferenceMeasure(
                name: "beatsPerMinute", unit: "beats/min",
                bands: bands(
                    PulseCategory.allCases, edges: [41, 60, 101, 131],
                    severity: {
                        switch $0 {
                        case .severeBradycardia, .severeTachycardia: .urgent
                        case .bradycardia, .tachycardia: .attention
                        case .normal: .normal
                        }
                    }))
        ])

    public static let bodyMassIndex = ReferenceTable(
        name: "body-mass-index", title: "Adult body mass index", source: "WHO, Obesity: preventing and managing the global epidemic (TRS 894, 2000)",
        measures: [
            ReferenceMeasure(
                name: "bmi", unit: "kg/m²",
                bands: bands(
                    BodyMassIndexCategory.allCases, edges: [18.5, 25, 30, 35, 40],
                    severity: { $0 == .normal ? .normal : .attention }))
        ], note: "BMI is rounded to two decimals before it is classified.")

    public static let glucose: ReferenceTable = {
        let t = Glucose.thresholds(.mgPerDL)
        let severity: (GlucoseCategory) -> Severity = { Glucose.severityAndTip($0).0 }
        let low: [GlucoseCategory] = [.hypoglycaemiaLevel2, .hypoglycaemiaLevel1, .normal, .prediabetes, .diabetesRange]
        return ReferenceTable(
            name: "glucose", title: "Plasma glucose", source: "American Diabetes Association, Standards of Care in Diabetes 2025, sections 2 and 6",
            measures: [
                ReferenceMeasure(
                    name: "fasting", unit: "mg/dL",
                    bands: bands(
                        low, edges: [t.hypoLevel2Below, t.hypoLevel1Below, t.fastingPrediabetesFrom, t.fastingDiabetesFrom], severity: severity)),
                ReferenceMeasure(
                    name: "twoHourOGTT or random", unit: "mg/dL",
                    bands: bands(
                        low, edges: [t.hypoLevel2Below, t.hypoLevel1Below, t.postLoadPrediabetesFrom, t.postLoadDiabetesFrom], severity: severity)),
            ], note: "mmol/L values are classified against the ADA's own mmol/L thresholds (×1/18.016); a diabetes-range value needs confirming.")
    }()

    public static let hba1c = ReferenceTable(
        name: "hba1c", title: "HbA1c (NGSP/DCCT)", source: "American Diabetes Association, Standards of Care in Diabetes 2025, section 2",
        measures: [
            ReferenceMeasure(
                name: "percent", unit: "%",
                bands: bands([GlucoseCategory.normal, .prediabetes, .diabetesRange], edges: [5.7, 6.5], severity: { Glucose.severityAndTip($0).0 }))
        ])

    public static let lipids = ReferenceTable(
        name: "lipids", title: "Lipid panel (adults)", source: "NCEP ATP III (2002), Table II.2-1",
        measures: [
            ReferenceMeasure(
                name: "totalCholesterol", unit: "mg/dL",
                bands: bands(TotalCholesterolCategory.allCases, edges: [200, 240], severity: { $0 == .desirable ? .normal : .attention })),
            ReferenceMeasure(
                name: "ldlCholesterol", unit: "mg/dL",
                bands: bands(LDLCholesterolCategory.allCases, edges: [100, 130, 160, 190], severity: { $0 <= .nearOptimal ? .normal : .attention })),
            ReferenceMeasure(
                name: "hdlCholesterol (women)", unit: "mg/dL",
                bands: bands(
                    HDLCholesterolCategory.allCases, edges: [Lipids.lowHDLLimitMgPerDL(for: .female), 60],
                    severity: { $0 == .low ? .attention : .normal })),
            ReferenceMeasure(
                name: "hdlCholesterol (men)", unit: "mg/dL",
                bands: bands(
                    HDLCholesterolCategory.allCases, edges: [Lipids.lowHDLLimitMgPerDL(for: .male), 60],
                    severity: { $0 == .low ? .attention : .normal })),
            ReferenceMeasure(
                name: "triglycerides", unit: "mg/dL",
                bands: bands(TriglycerideCategory.allCases, edges: [150, 200, 500], severity: { $0 == .normal ? .normal : .attention })),
        ], note: "A panel is headed by its most severe measure; mmol/L values are converted (cholesterol ×38.67, triglycerides ×88.57).")

    public static let nottinghamPrognosticIndex = ReferenceTable(
        name: "npi", title: "Nottingham Prognostic Index",
        source: "Haybittle et al., Br J Cancer 1982;45:361–366; groups and 5-year survival: Galea et al., Breast Cancer Res Treat 1992;22:207–219",
        measures: [
            ReferenceMeasure(
                name: "npi", unit: "",
                bands: NPIPrognosticGroup.allCases.enumerated().map { index, group in
                    let edges = [2.41, 3.41, 5.41]
                    return ReferenceBand(
                        group.rawValue, from: index == 0 ? nil : edges[index - 1], below: index < edges.count ? edges[index] : nil,
                        severity: group >= .moderate ? .attention : .normal, note: "\(group.fiveYearSurvivalPercent) % 5-year survival")
                }),
            ReferenceMeasure(
                name: "lymphNodeStage", unit: "positive nodes",
                bands: [
                    ReferenceBand("1", from: nil, below: 1, note: "no positive nodes"), ReferenceBand("2", from: 1, below: 4, note: "1 to 3 nodes"),
                    ReferenceBand("3", from: 4, below: nil, note: "4 or more nodes"),
                ]),
        ],
        note: "NPI = 0.2 × tumour size (cm) + histological grade (1–3) + lymph-node stage (1–3), rounded to two decimals before it is grouped.")

    public static let uvIndex = ReferenceTable(
        name: "uv-index", title: "UV index", source: "WHO, Global Solar UV Index: A Practical Guide (2002)",
        measures: [
            ReferenceMeasure(
                name: "uvIndex", unit: "",
                bands: bands(UVIndexCategory.allCases, edges: [3, 6, 8, 11], severity: { _ in nil }, colour: \.colour))
        ],
        note: "Readings are classified as sent; the guide's bands are whole numbers (low 0–2, moderate 3–5, high 6–7, very high 8–10, extreme 11+).")

    public static let airQuality = ReferenceTable(
        name: "air-quality", title: "US Air Quality Index",
        source: "EPA-454/B-24-002 (2024), Technical Assistance Document for the Reporting of Daily Air Quality",
        measures: [
            ReferenceMeasure(
                name: "aqi", unit: "",
                bands: bands(AirQualityCategory.allCases, edges: [51, 101, 151, 201, 301], severity: { _ in nil }, colour: \.colour))
        ], note: "The AQI is the feed's, or the highest of the PM2.5, PM10 and ozone sub-indices.")
}
