import CaretideCharts
import CaretideDomain
import CaretideNutrition
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
        /// What was assessed, for an NPI: its tumour size, grade and nodes, and who entered them.
        var inputs: JSONValue = .object([:])
        /// The advice given with it, in the reader's language.
        var tipText: String?
    }

    let patientID: String
    let period: Period
    let entries: [Entry]
    let texts: TipTexts
    let generatedAt: Date
    /// The areas the patient follows, with their daily UV and air-quality maxima in the period.
    var environment: [AreaHistory] = []
    /// The days of the period with meals recorded, as the diet analysis reads them (`NutritionRoutes.day`).
    var diet: [NutritionRoutes.Day] = []
    /// The care-tracking patterns raised in the period.
    var careFlags: [CareFlag] = []
    /// The skin photos taken in the period, by body site.
    var photos: [Photo] = []
    /// The parts shown: all of them, or those a patient chose to share.
    var shown: Set<ReportSection> = Set(ReportSection.allCases)

    struct Photo: Sendable, Equatable {
        let bodySite: String
        let side: String?
        let takenAt: Date
        /// The classifier's answer (`LesionPhotoCategory`), nil before one.
        let answer: String?
        let certaintyPercent: Double?
    }

    struct CareFlag: Sendable, Equatable {
        let rule: String
        let firstObservedAt: Date
        let lastObservedAt: Date
    }

    /// An area the patient follows and its days in the period.
    struct AreaHistory: Sendable, Equatable {
        struct Day: Sendable, Equatable {
            /// The area's calendar day, as midnight UTC of that date.
            let day: Date
            let uvIndexMax: Double?
            let aqiMax: Int?
        }

        let areaCode: String
        let name: String
        var days: [Day]
    }

    /// How many points a chart draws at most: enough for a year of daily readings at full detail on paper.
    static let chartPoints = 400

    /// What each measurement kind's charts draw: its unit, the values as lines (each named by `report.line.<field>`),
    /// and the bands shaded; its heading is `report.heading.<kind>`. A value with bands of its own gets a chart of its
    /// own (blood pressure: systolic and diastolic), so that no point sits in another value's band.
    struct ChartedKind {
        let kind: AssessmentKind
        let unit: String
        let lines: [String]
        let labelNamespace: String?
        /// The charts: the lines each draws and the bands behind them.
        let plots: [(lines: [String], bands: ReferenceMeasure?)]

        init(kind: AssessmentKind, unit: String, lines: [String], bands: ReferenceMeasure?, labelNamespace: String?) {
            self.init(kind: kind, unit: unit, lines: lines, plots: [(lines, bands)], labelNamespace: labelNamespace)
        }

        init(kind: AssessmentKind, unit: String, lines: [String], plots: [(lines: [String], bands: ReferenceMeasure?)], labelNamespace: String?) {
            self.kind = kind
            self.unit = unit
            self.lines = lines
            self.plots = plots
            self.labelNamespace = labelNamespace
        }

        var headingKey: String { "report.heading.\(kind.rawValue)" }
    }

    static let chartedKinds: [ChartedKind] = [
        ChartedKind(
            kind: .bloodPressure, unit: "mmHg", lines: ["systolic", "diastolic"],
            plots: ["systolic", "diastolic"].map { line in ([line], ReferenceTable.bloodPressure.measures.first { $0.name == line }) },
            labelNamespace: BloodPressureCategory.labelNamespace),
        ChartedKind(
            kind: .pulse, unit: "report.unit.beatsPerMinute", lines: ["beatsPerMinute"],
            bands: ReferenceTable.pulse.measures.first, labelNamespace: PulseCategory.labelNamespace),
        ChartedKind(
            kind: .bodyMassIndex, unit: "kg/m²", lines: ["bmi"],
            bands: ReferenceTable.bodyMassIndex.measures.first, labelNamespace: BodyMassIndexCategory.labelNamespace),
        ChartedKind(
            kind: .glucose, unit: "mg/dL", lines: ["valueMgPerDL"],
            bands: ReferenceTable.glucose.measures.first, labelNamespace: GlucoseCategory.labelNamespace),
        ChartedKind(
            kind: .hba1c, unit: "%", lines: ["percent"], bands: ReferenceTable.hba1c.measures.first,
            labelNamespace: GlucoseCategory.labelNamespace),
        ChartedKind(
            kind: .lipids, unit: "mg/dL",
            lines: ["totalCholesterolMgPerDL", "ldlCholesterolMgPerDL", "hdlCholesterolMgPerDL", "triglyceridesMgPerDL"],
            bands: nil, labelNamespace: nil),
    ]

    /// The category as the reader reads it, in the page's language.
    func label(_ category: String, namespace: String?) -> String {
        namespace.flatMap { texts.text("\($0).\(category)") } ?? category
    }

    func severityLabel(_ severity: Severity) -> String { texts.text(severity.labelKey) ?? severity.rawValue }

    /// A unit as written: a report word when it is one (`report.unit.…`), else the symbol itself (mmHg, mg/dL).
    func unit(_ charted: ChartedKind) -> String { charted.unit.hasPrefix("report.") ? texts.filled(charted.unit) : charted.unit }

    var page: ReportPage {
        let byKind = Dictionary(grouping: entries, by: \.kind)
        var sections: [ReportPage.Section] = []
        var none: [String] = []
        for charted in Self.chartedKinds where shown.contains(.measurements) {
            guard let readings = byKind[charted.kind], !readings.isEmpty else {
                none.append(texts.filled(charted.headingKey))
                continue
            }
            sections.append(measurementSection(charted, readings))
        }
        if shown.contains(.npi), let npi = byKind[.nottinghamPrognosticIndex], !npi.isEmpty { sections.append(npiSection(npi)) }
        if shown.contains(.examResults), let exams = byKind[.examResult], !exams.isEmpty { sections.append(examSection(exams)) }
        if shown.contains(.melanoma), let profiles = byKind[.melanomaRisk], let latest = profiles.max(by: { $0.observedAt < $1.observedAt }) {
            sections.append(melanomaSection(latest))
        }
        if shown.contains(.diet), !diet.isEmpty { sections.append(dietSection(diet)) }
        if shown.contains(.melanoma), !photos.isEmpty { sections.append(photoSection(photos)) }
        if shown.contains(.care), !careFlags.isEmpty { sections.append(careSection(careFlags)) }
        if shown.contains(.environment) {
            for (index, area) in environment.enumerated() { sections.append(environmentSection(area, index: index)) }
        }
        if !none.isEmpty {
            sections.append(
                ReportPage.Section(heading: texts.filled("report.notRecorded"), paragraphs: [none.joined(separator: ", ") + "."]))
        }
        return ReportPage(
            title: texts.filled("report.title"), subtitle: texts.filled("report.subtitle", ["patient": patientID, "period": describe(period)]),
            language: texts.language, sections: sections,
            footer: texts.filled(
                "report.footer", ["date": LineChart.date(generatedAt.timeIntervalSince1970), "ruleSet": RuleSetVersion.current]))
    }

    func measurementSection(_ charted: ChartedKind, _ readings: [Entry]) -> ReportPage.Section {
        let thinned = Downsampling.minMax(
            readings, start: period.start.timeIntervalSince1970, end: period.end.timeIntervalSince1970, maximumPoints: Self.chartPoints,
            time: { $0.observedAt.timeIntervalSince1970 }, values: { entry in charted.lines.map { entry.values[$0]?.numberValue ?? .nan } })
        let heading = texts.filled(charted.headingKey)
        let unit = unit(charted)
        let first = readings.first!.observedAt.timeIntervalSince1970
        let last = readings.last!.observedAt.timeIntervalSince1970
        let charts = charted.plots.map { plot in
            let series = plot.lines.map { line in
                LineChart.Series(
                    name: texts.filled("report.line.\(line)"),
                    points: thinned.points.compactMap { entry in
                        entry.values[line]?.numberValue.map {
                            LineChart.Point(
                                time: entry.observedAt.timeIntervalSince1970, value: $0,
                                label: label(entry.category, namespace: charted.labelNamespace), abnormal: entry.severity != .normal)
                        }
                    })
            }
            let bands = (plot.bands?.bands ?? []).map { band in
                LineChart.Band(
                    label: label(band.category, namespace: charted.labelNamespace), from: band.from, below: band.below,
                    level: band.severity.map { $0 == .urgent ? 3 : $0 == .attention ? 1 : 0 } ?? 0)
            }
            // One chart keeps the kind's id and heading; several are told apart by their line.
            let single = charted.plots.count == 1
            return LineChart(
                id: single ? "chart-\(charted.kind.rawValue)" : "chart-\(charted.kind.rawValue)-\(plot.lines.joined(separator: "-"))",
                title: single ? heading : "\(heading): \(plot.lines.map { texts.filled("report.line.\($0)") }.joined(separator: ", "))",
                unit: unit, series: series, bands: bands,
                start: period.start == Timestamp.plausibleRange.lowerBound ? first : period.start.timeIntervalSince1970,
                end: period.end == Timestamp.plausibleRange.upperBound ? last : period.end.timeIntervalSince1970)
        }

        func values(_ entry: Entry) -> String {
            charted.lines.compactMap { line in entry.values[line]?.numberValue.map { Markup.number($0) } }.joined(separator: "/")
        }
        func row(_ name: String, _ entry: Entry) -> [ReportPage.Cell] {
            let flagged = entry.severity != .normal
            return [
                ReportPage.Cell(name), ReportPage.Cell(LineChart.date(entry.observedAt.timeIntervalSince1970)),
                ReportPage.Cell("\(values(entry)) \(unit)", flagged: flagged),
                ReportPage.Cell(label(entry.category, namespace: charted.labelNamespace), flagged: flagged),
            ]
        }
        let primary = charted.lines[0]
        let byPrimary = readings.filter { $0.values[primary]?.numberValue != nil }
        var rows = [row(texts.filled("report.summary.latest"), readings.last!)]
        if let low = byPrimary.min(by: { ($0.values[primary]?.numberValue ?? 0) < ($1.values[primary]?.numberValue ?? 0) }) {
            rows.append(row(texts.filled("report.summary.lowest"), low))
        }
        if let high = byPrimary.max(by: { ($0.values[primary]?.numberValue ?? 0) < ($1.values[primary]?.numberValue ?? 0) }) {
            rows.append(row(texts.filled("report.summary.highest"), high))
        }
        let outside = readings.filter { $0.severity != .normal }.count
        return ReportPage.Section(
            heading: heading, paragraphs: [texts.filled("report.readings", ["count": "\(readings.count)", "outside": "\(outside)"])],
            charts: charts,
            tables: [
                ReportPage.Table(
                    caption: texts.filled("report.summary.caption", ["heading": heading]),
                    header: ["", texts.filled("report.column.date"), texts.filled("report.column.value"), texts.filled("report.column.category")],
                    rows: rows)
            ])
    }

    /// The NPI's own cells: what was entered (tumour size, grade, nodes) and what the rule made of it.
    func npiCells(_ entry: Entry) -> [ReportPage.Cell] {
        let flagged = entry.severity != .normal
        let stage = entry.values["lymphNodeStage"]?.numberValue.map { Markup.number($0) } ?? "–"
        let nodes =
            if let count = entry.inputs["positiveNodes"]?.numberValue {
                texts.filled("report.npi.positiveNodes", ["count": Markup.number(count), "stage": stage])
            } else {
                texts.filled("report.npi.nodeStage", ["stage": entry.inputs["lymphNodeStage"]?.numberValue.map { Markup.number($0) } ?? stage])
            }
        return [
            ReportPage.Cell(LineChart.date(entry.observedAt.timeIntervalSince1970)),
            ReportPage.Cell(entry.inputs["tumourSizeCm"]?.numberValue.map { "\(Markup.number($0, decimals: 1)) cm" } ?? "–"),
            ReportPage.Cell(entry.inputs["histologicalGrade"]?.numberValue.map { Markup.number($0) } ?? "–"),
            ReportPage.Cell(nodes),
            ReportPage.Cell(entry.values["npi"]?.numberValue.map { Markup.number($0, decimals: 2) } ?? "–", flagged: flagged),
            ReportPage.Cell(label(entry.category, namespace: NPIPrognosticGroup.labelNamespace), flagged: flagged),
            ReportPage.Cell(entry.values["fiveYearSurvivalPercent"]?.numberValue.map { "\(Markup.number($0)) %" } ?? "–"),
        ]
    }

    static let npiColumns = ["diagnosis", "tumourSize", "grade", "nodes", "npi", "group", "survival"]

    /// The survival curve of an NPI's group, from its diagnosis to five years.
    func survivalChart(_ entry: Entry, id: String, titleKey: String) -> LineChart? {
        guard let group = NPIPrognosticGroup(rawValue: entry.category), let curve = try? NottinghamPrognosticIndex.survivalCurve(for: group)
        else { return nil }
        let diagnosis = entry.observedAt.timeIntervalSince1970
        let month = 365.25 / 12 * 86_400
        return LineChart(
            id: id, title: texts.filled(titleKey), unit: texts.filled("report.npi.curveUnit"),
            series: [
                LineChart.Series(
                    name: label(group.rawValue, namespace: NPIPrognosticGroup.labelNamespace),
                    points: curve.map {
                        LineChart.Point(
                            time: diagnosis + Double($0.monthsSinceDiagnosis) * month, value: $0.survivalProbability * 100,
                            label: texts.filled("report.npi.monthsAfterDiagnosis", ["months": "\($0.monthsSinceDiagnosis)"]), abnormal: false)
                    })
            ], start: diagnosis, end: diagnosis + 60 * month)
    }

    func npiSection(_ entries: [Entry]) -> ReportPage.Section {
        let charts = entries.last.flatMap { survivalChart($0, id: "chart-npi-survival", titleKey: "report.npi.curveTitle") }
        return ReportPage.Section(
            heading: texts.filled("report.npi.heading"), paragraphs: [texts.filled("report.npi.explanation")], charts: charts.map { [$0] } ?? [],
            tables: [
                ReportPage.Table(
                    caption: texts.filled("report.npi.caption"), header: Self.npiColumns.map { texts.filled("report.npi.column.\($0)") },
                    rows: entries.map(npiCells))
            ])
    }

    /// The WHO checks a day's row shows, in order.
    static let dietChecks: [Nutrient] = [.sodium, .sugars, .saturatedFat]

    /// Each day of the period with meals: its records, energy and salt, and where it stands against the WHO limits of
    /// sodium, free sugars and saturated fat (a day at or above one marked ▲).
    func dietSection(_ days: [NutritionRoutes.Day]) -> ReportPage.Section {
        func above(_ status: DayAnalysis.Status) -> Bool { status == .atOrAboveLimit || status == .possiblyAboveLimit }
        let rows = days.map { day in
            [
                ReportPage.Cell(day.date), ReportPage.Cell("\(day.mealCount)"),
                ReportPage.Cell(day.totals[.energy].map { "\(Markup.number($0)) kcal" } ?? "–"),
                ReportPage.Cell("\(Markup.number(day.saltG, decimals: 1)) g"),
            ]
                + Self.dietChecks.map { nutrient in
                    guard let check = day.checks.first(where: { $0.nutrient == nutrient }) else { return ReportPage.Cell("–") }
                    let words = texts.text("report.diet.status.\(check.status.rawValue)") ?? check.status.rawValue
                    return ReportPage.Cell(words, flagged: above(check.status))
                }
        }
        let flaggedDays = days.filter { $0.checks.contains { Self.dietChecks.contains($0.nutrient) && above($0.status) } }.count
        return ReportPage.Section(
            heading: texts.filled("report.diet.heading"),
            paragraphs: [texts.filled("report.diet.summary", ["days": "\(days.count)", "above": "\(flaggedDays)"])],
            tables: [
                ReportPage.Table(
                    caption: texts.filled("report.diet.caption"),
                    header: ["day", "meals", "energy", "salt", "sodium", "sugars", "saturatedFat"].map { texts.filled("report.diet.column.\($0)") },
                    rows: rows)
            ])
    }

    /// The photos' timeline by body site: each photo's date, and the classifier's answer with its certainty; an
    /// answer that advises a dermatologist is marked ▲.
    func photoSection(_ photos: [Photo]) -> ReportPage.Section {
        func advised(_ photo: Photo) -> Bool { photo.answer.flatMap(LesionPhotoCategory.init(rawValue:)).map { $0 != .notSuspicious } ?? false }
        let rows = photos.map { photo in
            [
                ReportPage.Cell(photo.side.map { "\(photo.bodySite) (\($0))" } ?? photo.bodySite),
                ReportPage.Cell(LineChart.date(photo.takenAt.timeIntervalSince1970)),
                ReportPage.Cell(texts.filled("report.photos.answer.\(photo.answer ?? "none")"), flagged: advised(photo)),
                ReportPage.Cell(photo.certaintyPercent.map { "\(Markup.number($0)) %" } ?? "–"),
            ]
        }
        return ReportPage.Section(
            heading: texts.filled("report.photos.heading"),
            paragraphs: [texts.filled("report.photos.summary", ["count": "\(photos.count)", "advised": "\(photos.filter(advised).count)"])],
            tables: [
                ReportPage.Table(
                    caption: texts.filled("report.photos.caption"),
                    header: ["site", "taken", "answer", "certainty"].map { texts.filled("report.photos.column.\($0)") }, rows: rows)
            ])
    }

    /// The care-tracking patterns raised in the period, each with the readings it spans.
    func careSection(_ flags: [CareFlag]) -> ReportPage.Section {
        ReportPage.Section(
            heading: texts.filled("report.care.heading"),
            tables: [
                ReportPage.Table(
                    caption: texts.filled("report.care.caption"),
                    header: ["pattern", "from", "to"].map { texts.filled("report.care.column.\($0)") },
                    rows: flags.map {
                        [
                            ReportPage.Cell(texts.text("report.care.rule.\($0.rule)") ?? $0.rule, flagged: true),
                            ReportPage.Cell(LineChart.date($0.firstObservedAt.timeIntervalSince1970)),
                            ReportPage.Cell(LineChart.date($0.lastObservedAt.timeIntervalSince1970)),
                        ]
                    })
            ])
    }

    /// One NPI entry's own page (`GET …/npi/{npiId}/report`): every detail of that date, and its group's curve.
    static func npiPage(_ entry: Entry, patientID: String, texts: TipTexts, generatedAt: Date) -> ReportPage {
        let report = PatientReport(
            patientID: patientID, period: Period(start: entry.observedAt, end: entry.observedAt), entries: [entry], texts: texts,
            generatedAt: generatedAt)
        let date = LineChart.date(entry.observedAt.timeIntervalSince1970)
        var rows = zip(npiColumns, report.npiCells(entry)).map { column, cell in [ReportPage.Cell(texts.filled("report.npi.column.\(column)")), cell]
        }
        if let role = entry.inputs["recordedBy"]?["role"]?.stringValue {
            rows.append([ReportPage.Cell(texts.filled("report.npi.row.recordedBy")), ReportPage.Cell(role)])
        }
        if let tip = entry.tipText { rows.append([ReportPage.Cell(texts.filled("report.npi.row.advice")), ReportPage.Cell(tip)]) }
        let section = ReportPage.Section(
            heading: texts.filled("report.npi.entryTitle", ["date": date]), paragraphs: [texts.filled("report.npi.explanation")],
            charts: report.survivalChart(entry, id: "chart-npi-entry", titleKey: "report.npi.entryCurveTitle").map { [$0] } ?? [],
            tables: [ReportPage.Table(caption: texts.filled("report.npi.entryCaption"), header: ["", ""], rows: rows)])
        return ReportPage(
            title: texts.filled("report.npi.entryTitle", ["date": date]),
            subtitle: texts.filled("report.subtitle", ["patient": patientID, "period": date]),
            language: texts.language, sections: [section],
            footer: texts.filled("report.footer", ["date": LineChart.date(generatedAt.timeIntervalSince1970), "ruleSet": RuleSetVersion.current]))
    }

    /// Each released report as a table, its items in their order: what was measured, the value, the flag in words
    /// (HL7 table 0078) and the institution's advice. Every text the institution sent is escaped by the page.
    func examSection(_ exams: [Entry]) -> ReportPage.Section {
        let tables = exams.map { exam in
            let key = ExamKey(subjectID: exam.subjectID)
            return ReportPage.Table(
                caption: texts.filled(
                    "report.exam.caption",
                    [
                        "exam": key?.examID ?? exam.subjectID, "institution": key?.institutionID ?? "",
                        "date": LineChart.date(exam.observedAt.timeIntervalSince1970),
                    ]),
                header: ["test", "value", "result", "advice"].map { texts.filled("report.exam.column.\($0)") },
                rows: exam.items.map { item in
                    let flagged = item.interpretation != .N
                    return [
                        ReportPage.Cell("\(item.name) (\(item.code))"),
                        ReportPage.Cell("\(Markup.number(item.value, decimals: 2)) \(item.unit)", flagged: flagged),
                        ReportPage.Cell(texts.filled(item.interpretation.labelKey), flagged: flagged),
                        ReportPage.Cell(item.comment ?? ""),
                    ]
                })
        }
        let outside = exams.reduce(0) { $0 + $1.items.filter { $0.interpretation != .N }.count }
        return ReportPage.Section(
            heading: texts.filled("report.exam.heading"),
            paragraphs: [texts.filled("report.exam.summary", ["reports": "\(exams.count)", "outside": "\(outside)"])], tables: tables)
    }

    func melanomaSection(_ latest: Entry) -> ReportPage.Section {
        let interval = latest.values["selfExaminationIntervalMonths"]?.numberValue.map { Markup.number($0) } ?? "–"
        return ReportPage.Section(
            heading: texts.filled("report.melanoma.heading"),
            paragraphs: [
                texts.filled(
                    latest.severity == .normal ? "report.melanoma.latest" : "report.melanoma.latestFlagged",
                    [
                        "date": LineChart.date(latest.observedAt.timeIntervalSince1970),
                        "category": label(latest.category, namespace: MelanomaRiskCategory.labelNamespace),
                        "severity": severityLabel(latest.severity),
                    ]) + " " + texts.filled("report.melanoma.advice", ["months": interval])
            ])
    }

    /// An area's daily maxima: the UV index against the WHO bands and the US AQI against the EPA categories, each
    /// day at or above the level the alerts start at by default (UV 6, AQI 101; docs/clinical-rules.md §12) marked.
    func environmentSection(_ area: AreaHistory, index: Int) -> ReportPage.Section {
        let heading = texts.filled("report.environment.heading", ["area": area.name])
        guard !area.days.isEmpty else { return ReportPage.Section(heading: heading, paragraphs: [texts.filled("report.environment.none")]) }
        let start = period.start == Timestamp.plausibleRange.lowerBound ? area.days[0].day : period.start
        let end = period.end == Timestamp.plausibleRange.upperBound ? area.days[area.days.count - 1].day.addingTimeInterval(86_400) : period.end
        var charts: [LineChart] = []
        var facts: [String: String] = ["days": "\(area.days.count)", "uv": "–", "aqi": "–"]
        /// One chart of daily maxima against a reference table's bands; the highest value, with its category, for the summary.
        func chart(
            _ id: String, _ titleKey: String, _ days: [(Date, Double)], _ table: ReferenceTable, namespace: String, decimals: Int,
            classify: (Double) -> (category: String, marked: Bool)
        ) -> String? {
            guard let highest = days.map(\.1).max() else { return nil }
            let title = texts.filled(titleKey)
            let points = days.map { day, value in
                let (category, marked) = classify(value)
                return LineChart.Point(
                    time: day.timeIntervalSince1970, value: value, label: label(category, namespace: namespace), abnormal: marked)
            }
            let bands = (table.measures.first?.bands ?? []).enumerated().map { rank, band in
                LineChart.Band(label: label(band.category, namespace: namespace), from: band.from, below: band.below, level: min(rank, 3))
            }
            charts.append(
                LineChart(
                    id: "\(id)-\(index)", title: title, unit: "", series: [LineChart.Series(name: title, points: points)], bands: bands,
                    start: start.timeIntervalSince1970, end: end.timeIntervalSince1970))
            return "\(Markup.number(highest, decimals: decimals)) (\(label(classify(highest).category, namespace: namespace)))"
        }
        facts["uv"] =
            chart(
                "chart-uv", "report.environment.uvTitle", area.days.compactMap { day in day.uvIndexMax.map { (day.day, $0) } },
                .uvIndex, namespace: UVIndexCategory.labelNamespace, decimals: 1
            ) { value in
                let category = UVIndexCategory(uvIndex: value)
                return (category.rawValue, category >= .high)
            } ?? "–"
        facts["aqi"] =
            chart(
                "chart-aqi", "report.environment.aqiTitle", area.days.compactMap { day in day.aqiMax.map { (day.day, Double($0)) } },
                .airQuality, namespace: AirQualityCategory.labelNamespace, decimals: 0
            ) { value in
                let category = AirQualityCategory(aqi: Int(value))
                return (category.rawValue, category >= .unhealthyForSensitiveGroups)
            } ?? "–"
        return ReportPage.Section(heading: heading, paragraphs: [texts.filled("report.environment.summary", facts)], charts: charts)
    }

    func describe(_ period: Period) -> String {
        let from = period.start == Timestamp.plausibleRange.lowerBound ? nil : LineChart.date(period.start.timeIntervalSince1970)
        // The period's end is exclusive: the last day it covers is the one before.
        let to = period.end == Timestamp.plausibleRange.upperBound ? nil : LineChart.date(period.end.timeIntervalSince1970 - 1)
        switch (from, to) {
        case (let from?, let to?): return texts.filled("report.period.between", ["from": from, "to": to])
        case (let from?, nil): return texts.filled("report.period.from", ["from": from])
        case (nil, let to?): return texts.filled("report.period.until", ["to": to])
        case (nil, nil): return texts.filled("report.period.all")
        }
    }
}
