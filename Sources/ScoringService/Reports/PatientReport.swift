import CaretideCharts
import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation

/// The patient report for a period, laid out from what scoring holds: per measurement kind a chart with the rule's
/// category bands shaded and the readings outside the normal range marked, with a summary table; the NPI history
/// with its groups and the survival curve of the latest; the released exam reports with the items outside their
/// range marked; the current melanoma risk category with its self-check interval. Pure: the standing assessments in, a page out (`CaretideCharts.ReportPage`), so it is rendered and
/// timed without a database.
struct PatientReport {
    /// One standing assessment as the report reads it.
    struct Entry: Sendable {
        let kind: AssessmentKind
        let observedAt: Date
        let category: String
        let severity: Severity
        let values: JSONValue
        /// An exam report's items, each with its flag.
        var items: [FlaggedExamLine] = []
        /// The measurement, NPI, profile or exam (`institution/exam`).
        var subjectID = ""
    }

    let patientID: String
    let period: Period
    let entries: [Entry]
    let texts: TipTexts
    let generatedAt: Date

    /// How many points a chart draws at most: enough for a year of daily readings at full detail on paper.
    static let chartPoints = 400

    /// What each measurement kind's chart draws: its heading, unit, the values as lines, and the bands shaded.
    struct ChartedKind {
        let kind: AssessmentKind
        let heading: String
        let unit: String
        let lines: [(field: String, name: String)]
        let bands: ReferenceMeasure?
        let labelNamespace: String?
    }

    static let chartedKinds: [ChartedKind] = [
        ChartedKind(
            kind: .bloodPressure, heading: "Blood pressure", unit: "mmHg", lines: [("systolic", "Systolic"), ("diastolic", "Diastolic")],
            bands: ReferenceTable.bloodPressure.measures.first, labelNamespace: BloodPressureCategory.labelNamespace),
        ChartedKind(
            kind: .pulse, heading: "Resting pulse", unit: "beats/min", lines: [("beatsPerMinute", "Pulse")],
            bands: ReferenceTable.pulse.measures.first, labelNamespace: PulseCategory.labelNamespace),
        ChartedKind(
            kind: .bodyMassIndex, heading: "Body mass index", unit: "kg/m²", lines: [("bmi", "BMI")],
            bands: ReferenceTable.bodyMassIndex.measures.first, labelNamespace: BodyMassIndexCategory.labelNamespace),
        ChartedKind(
            kind: .glucose, heading: "Blood glucose", unit: "mg/dL", lines: [("valueMgPerDL", "Glucose")],
            bands: ReferenceTable.glucose.measures.first, labelNamespace: GlucoseCategory.labelNamespace),
        ChartedKind(
            kind: .hba1c, heading: "HbA1c", unit: "%", lines: [("percent", "HbA1c")], bands: ReferenceTable.hba1c.measures.first,
            labelNamespace: GlucoseCategory.labelNamespace),
        ChartedKind(
            kind: .lipids, heading: "Cholesterol and triglycerides", unit: "mg/dL",
            lines: [
                ("totalCholesterolMgPerDL", "Total cholesterol"), ("ldlCholesterolMgPerDL", "LDL"), ("hdlCholesterolMgPerDL", "HDL"),
                ("triglyceridesMgPerDL", "Triglycerides"),
            ], bands: nil, labelNamespace: nil),
    ]

    /// The category as the reader reads it, in the page's language.
    func label(_ category: String, namespace: String?) -> String {
        namespace.flatMap { texts.text("\($0).\(category)") } ?? category
    }

    func severityLabel(_ severity: Severity) -> String { texts.text(severity.labelKey) ?? severity.rawValue }

    var page: ReportPage {
        let byKind = Dictionary(grouping: entries, by: \.kind)
        var sections: [ReportPage.Section] = []
        var none: [String] = []
        for charted in Self.chartedKinds {
            guard let readings = byKind[charted.kind], !readings.isEmpty else {
                none.append(charted.heading)
                continue
            }
            sections.append(measurementSection(charted, readings))
        }
        if let npi = byKind[.nottinghamPrognosticIndex], !npi.isEmpty { sections.append(npiSection(npi)) }
        if let exams = byKind[.examResult], !exams.isEmpty { sections.append(examSection(exams)) }
        if let profiles = byKind[.melanomaRisk], let latest = profiles.max(by: { $0.observedAt < $1.observedAt }) {
            sections.append(melanomaSection(latest))
        }
        if !none.isEmpty {
            sections.append(
                ReportPage.Section(heading: "Not recorded in this period", paragraphs: [none.joined(separator: ", ").capitalizedFirst + "."]))
        }
        return ReportPage(
            title: "Health report", subtitle: "Patient \(patientID) · \(Self.describe(period))", language: texts.language, sections: sections,
            footer:
                "Made by Caretide on \(LineChart.date(generatedAt.timeIntervalSince1970)) with rule set \(RuleSetVersion.current). Categories follow the "
                + "sources in Caretide's clinical rules; a value outside its normal range is marked ▲. This report does not replace a clinician's review."
        )
    }

    func measurementSection(_ charted: ChartedKind, _ readings: [Entry]) -> ReportPage.Section {
        let thinned = Downsampling.minMax(
            readings, start: period.start.timeIntervalSince1970, end: period.end.timeIntervalSince1970, maximumPoints: Self.chartPoints,
            time: { $0.observedAt.timeIntervalSince1970 }, values: { entry in charted.lines.map { entry.values[$0.field]?.numberValue ?? .nan } })
        let series = charted.lines.map { line in
            LineChart.Series(
                name: line.name,
                points: thinned.points.compactMap { entry in
                    entry.values[line.field]?.numberValue.map {
                        LineChart.Point(
                            time: entry.observedAt.timeIntervalSince1970, value: $0, label: label(entry.category, namespace: charted.labelNamespace),
                            abnormal: entry.severity != .normal)
                    }
                })
        }
        let bands = (charted.bands?.bands ?? []).map { band in
            LineChart.Band(
                label: label(band.category, namespace: charted.labelNamespace), from: band.from, below: band.below,
                level: band.severity.map { $0 == .urgent ? 3 : $0 == .attention ? 1 : 0 } ?? 0)
        }
        let first = readings.first!.observedAt.timeIntervalSince1970
        let last = readings.last!.observedAt.timeIntervalSince1970
        let chart = LineChart(
            id: "chart-\(charted.kind.rawValue)", title: charted.heading, unit: charted.unit, series: series, bands: bands,
            start: period.start == Timestamp.plausibleRange.lowerBound ? first : period.start.timeIntervalSince1970,
            end: period.end == Timestamp.plausibleRange.upperBound ? last : period.end.timeIntervalSince1970)

        func values(_ entry: Entry) -> String {
            charted.lines.compactMap { line in entry.values[line.field]?.numberValue.map { Markup.number($0) } }.joined(separator: "/")
        }
        func row(_ name: String, _ entry: Entry) -> [ReportPage.Cell] {
            let flagged = entry.severity != .normal
            return [
                ReportPage.Cell(name), ReportPage.Cell(LineChart.date(entry.observedAt.timeIntervalSince1970)),
                ReportPage.Cell("\(values(entry)) \(charted.unit)", flagged: flagged),
                ReportPage.Cell(label(entry.category, namespace: charted.labelNamespace), flagged: flagged),
            ]
        }
        let primary = charted.lines[0].field
        let byPrimary = readings.filter { $0.values[primary]?.numberValue != nil }
        var rows = [row("Latest", readings.last!)]
        if let low = byPrimary.min(by: { ($0.values[primary]?.numberValue ?? 0) < ($1.values[primary]?.numberValue ?? 0) }) {
            rows.append(row("Lowest", low))
        }
        if let high = byPrimary.max(by: { ($0.values[primary]?.numberValue ?? 0) < ($1.values[primary]?.numberValue ?? 0) }) {
            rows.append(row("Highest", high))
        }
        let outside = readings.filter { $0.severity != .normal }.count
        return ReportPage.Section(
            heading: charted.heading,
            paragraphs: ["\(Self.count(readings.count, "reading", "readings")); \(outside) outside the normal range."],
            charts: [chart],
            tables: [ReportPage.Table(caption: "\(charted.heading): summary", header: ["", "Date", "Value", "Category"], rows: rows)])
    }

    func npiSection(_ entries: [Entry]) -> ReportPage.Section {
        let namespace = NPIPrognosticGroup.labelNamespace
        let rows = entries.map { entry in
            [
                ReportPage.Cell(LineChart.date(entry.observedAt.timeIntervalSince1970)),
                ReportPage.Cell(entry.values["npi"]?.numberValue.map { Markup.number($0, decimals: 2) } ?? "–", flagged: entry.severity != .normal),
                ReportPage.Cell(label(entry.category, namespace: namespace), flagged: entry.severity != .normal),
                ReportPage.Cell(entry.values["fiveYearSurvivalPercent"]?.numberValue.map { "\(Markup.number($0)) %" } ?? "–"),
            ]
        }
        var charts: [LineChart] = []
        if let latest = entries.last, let group = NPIPrognosticGroup(rawValue: latest.category),
            let curve = try? NottinghamPrognosticIndex.survivalCurve(for: group)
        {
            let diagnosis = latest.observedAt.timeIntervalSince1970
            let month = 365.25 / 12 * 86_400
            charts.append(
                LineChart(
                    id: "chart-npi-survival", title: "Survival curve of the latest NPI group (illustrative)", unit: "% alive",
                    series: [
                        LineChart.Series(
                            name: label(group.rawValue, namespace: namespace),
                            points: curve.map {
                                LineChart.Point(
                                    time: diagnosis + Double($0.monthsSinceDiagnosis) * month, value: $0.survivalProbability * 100,
                                    label: "\($0.monthsSinceDiagnosis) months after diagnosis", abnormal: false)
                            })
                    ], start: diagnosis, end: diagnosis + 60 * month))
        }
        return ReportPage.Section(
            heading: "Nottingham Prognostic Index",
            paragraphs: [
                "NPI = 0.2 × tumour size (cm) + grade + lymph-node stage. The survival curve joins the group's published 5-year figure to 100 % at "
                    + "diagnosis; between them it is a model, not a forecast for one person."
            ], charts: charts,
            tables: [ReportPage.Table(caption: "NPI history", header: ["Diagnosis", "NPI", "Prognostic group", "5-year survival"], rows: rows)])
    }

    /// Each released report as a table, its items in their order: what was measured, the value, the flag in words
    /// (HL7 table 0078) and the institution's advice. Every text the institution sent is escaped by the page.
    func examSection(_ exams: [Entry]) -> ReportPage.Section {
        let words: [InterpretationCode: String] = [.N: "normal", .L: "low", .H: "high", .LL: "critically low", .HH: "critically high"]
        let tables = exams.map { exam in
            let key = ExamKey(subjectID: exam.subjectID)
            return ReportPage.Table(
                caption: "Exam \(key?.examID ?? exam.subjectID) from \(key?.institutionID ?? "the institution"), reported "
                    + LineChart.date(exam.observedAt.timeIntervalSince1970),
                header: ["Test", "Value", "Result", "Advice"],
                rows: exam.items.map { item in
                    let flagged = item.interpretation != .N
                    return [
                        ReportPage.Cell("\(item.name) (\(item.code))"),
                        ReportPage.Cell("\(Markup.number(item.value, decimals: 2)) \(item.unit)", flagged: flagged),
                        ReportPage.Cell(words[item.interpretation] ?? item.interpretation.rawValue, flagged: flagged),
                        ReportPage.Cell(item.comment ?? ""),
                    ]
                })
        }
        let outside = exams.reduce(0) { $0 + $1.items.filter { $0.interpretation != .N }.count }
        return ReportPage.Section(
            heading: "Exam results",
            paragraphs: [
                "\(Self.count(exams.count, "released report", "released reports")); "
                    + "\(Self.count(outside, "result", "results")) outside the reference range, marked ▲."
            ], tables: tables)
    }

    func melanomaSection(_ latest: Entry) -> ReportPage.Section {
        let interval = latest.values["selfExaminationIntervalMonths"]?.numberValue.map { Markup.number($0) } ?? "–"
        return ReportPage.Section(
            heading: "Melanoma risk",
            paragraphs: [
                "Latest profile (\(LineChart.date(latest.observedAt.timeIntervalSince1970))): \(latest.category) risk"
                    + (latest.severity == .normal ? "." : " ▲ (\(severityLabel(latest.severity))).")
                    + " Check your skin every \(interval) months; see a clinician about any mole that changes."
            ])
    }

    static func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) \(number == 1 ? one : many)" }

    static func describe(_ period: Period) -> String {
        let from = period.start == Timestamp.plausibleRange.lowerBound ? nil : LineChart.date(period.start.timeIntervalSince1970)
        // The period's end is exclusive: the last day it covers is the one before.
        let to = period.end == Timestamp.plausibleRange.upperBound ? nil : LineChart.date(period.end.timeIntervalSince1970 - 1)
        switch (from, to) {
        case (let from?, let to?): return "\(from) to \(to)"
        case (let from?, nil): return "from \(from)"
        case (nil, let to?): return "until \(to)"
        case (nil, nil): return "all records"
        }
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
