import CaretideCharts
import CaretideDomain
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import ScoringService

/// The report's words come from the same catalogue as the tips: a translation gives headings, captions and
/// sentences, and whatever it leaves out stays English, never a bare key or an unfilled `{placeholder}`.
@Suite struct PatientReportTests {
    /// 2026-09-21T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_789_948_800)

    static func report(_ texts: TipTexts) throws -> String {
        let result = try BloodPressure.assess(systolic: 150, diastolic: 95)
        let entries: [PatientReport.Entry] = [
            .init(
                kind: .bloodPressure, observedAt: start.addingTimeInterval(86_400), category: result.category.rawValue, severity: result.severity,
                values: .object(["systolic": .number(150), "diastolic": .number(95)])),
            .init(
                kind: .nottinghamPrognosticIndex, observedAt: start.addingTimeInterval(2 * 86_400), category: "moderate", severity: .attention,
                values: .object(["npi": .number(4.4), "fiveYearSurvivalPercent": .number(70)])),
            .init(
                kind: .melanomaRisk, observedAt: start.addingTimeInterval(3 * 86_400), category: "higher", severity: .attention,
                values: .object(["selfExaminationIntervalMonths": .number(1)])),
        ]
        return PatientReport(
            patientID: "p-1", period: Period(start: start, end: start.addingTimeInterval(30 * 86_400)), entries: entries, texts: texts,
            generatedAt: start.addingTimeInterval(30 * 86_400)
        ).page.html
    }

    @Test("systolic and diastolic are each drawn over their own bands: a diastolic 95 lies in stage 2, not in normal")
    func bloodPressureBands() throws {
        let result = try BloodPressure.assess(systolic: 118, diastolic: 95)
        let report = PatientReport(
            patientID: "p-1", period: Period(start: Self.start, end: Self.start.addingTimeInterval(30 * 86_400)),
            entries: [
                .init(
                    kind: .bloodPressure, observedAt: Self.start.addingTimeInterval(86_400), category: result.category.rawValue,
                    severity: result.severity, values: .object(["systolic": .number(118), "diastolic": .number(95)]))
            ], texts: .english, generatedAt: Self.start.addingTimeInterval(30 * 86_400))
        let charts = try #require(report.page.sections.first?.charts)
        #expect(charts.map(\.id) == ["chart-bloodPressure-systolic", "chart-bloodPressure-diastolic"])
        for chart in charts {
            // Every point lies in exactly one band of its own chart, and that band is the point's own measure's.
            for point in chart.series.flatMap(\.points) {
                let holding = chart.bands.filter { ($0.from ?? -.infinity) <= point.value && point.value < ($0.below ?? .infinity) }
                #expect(holding.count == 1, "\(chart.id): \(point.value)")
            }
        }
        let diastolicBand = charts[1].bands.first { ($0.from ?? -.infinity) <= 95 && 95 < ($0.below ?? .infinity) }
        let systolicBand = charts[0].bands.first { ($0.from ?? -.infinity) <= 118 && 118 < ($0.below ?? .infinity) }
        #expect(diastolicBand?.level == 1 && diastolicBand?.from == 90 && diastolicBand?.below == 121)
        #expect(systolicBand?.level == 0 && systolicBand?.below == 120)
        #expect(charts.map { $0.series.map(\.name) } == [["Systolic"], ["Diastolic"]])
    }

    @Test("an NPI shows what was entered beside it; one entry's page holds every detail of its date and its group's curve")
    func npiDetails() throws {
        let entry = PatientReport.Entry(
            kind: .nottinghamPrognosticIndex, observedAt: Self.start, category: "moderate", severity: .attention,
            values: .object(["npi": .number(4.4), "lymphNodeStage": .number(2), "fiveYearSurvivalPercent": .number(70)]),
            inputs: .object([
                "tumourSizeCm": .number(2), "histologicalGrade": .number(2), "positiveNodes": .number(2),
                "recordedBy": .object(["role": .string("consultant"), "id": .string("dr-a")]),
            ]), tipText: "Talk it over with your care team.")
        let report = PatientReport(
            patientID: "p-1", period: Period(start: Self.start, end: Self.start.addingTimeInterval(86_400)), entries: [entry], texts: .english,
            generatedAt: Self.start)
        let table = try #require(report.page.sections.first?.tables.first)
        #expect(table.header == ["Diagnosis", "Tumour size", "Grade", "Lymph nodes", "NPI", "Prognostic group", "5-year survival"])
        #expect(table.rows.first?.map(\.text) == ["2026-09-21", "2 cm", "2", "2 positive (stage 2)", "4.4", "Moderate prognosis group", "70 %"])
        let page = PatientReport.npiPage(entry, patientID: "p-1", texts: .english, generatedAt: Self.start).html
        #expect(page.contains("Nottingham Prognostic Index, diagnosis of 2026-09-21") && page.contains("2 positive (stage 2)"))
        #expect(page.contains("consultant") && page.contains("Talk it over with your care team.") && page.contains("chart-npi-entry"))
        #expect(page.firstMatch(of: /\{[a-zA-Z]+\}/) == nil && !page.contains("report."))
    }

    @Test("the diet days and the care-tracking patterns of the period appear as sections when there are any")
    func dietAndCare() throws {
        // A salty, sugary day (5 g sodium, 100 g of free sugars in 2,000 kcal) and a plain one.
        func day(_ date: String, sodiumMg: Double, freeSugarsG: Double) -> NutritionRoutes.Day {
            let nutrients = Nutrients(
                energyKcal: 2_000, proteinG: 60, fatG: 50, saturatedFatG: 10, carbohydrateG: 250, sugarsG: freeSugarsG + 10, fibreG: 25,
                sodiumMg: sodiumMg, freeSugarsG: freeSugarsG)
            let entry = NutritionRoutes.Entry(
                mealId: UUID(), eatenAt: Self.start, timeZone: "UTC", foodId: "01001", foodName: "Butter, salted", foodRelease: "usda-sr28",
                grams: 100, portion: nil, nutrients: nutrients)
            return NutritionRoutes.day(
                date, entries: [.init(day: date, meal: .lunch, entry: entry)], sex: .female, age: 40, texts: .english, withMeals: false)
        }
        var report = PatientReport(
            patientID: "p-1", period: Period(start: Self.start, end: Self.start.addingTimeInterval(30 * 86_400)), entries: [], texts: .english,
            generatedAt: Self.start)
        #expect(report.page.sections.allSatisfy { $0.heading != "Diet" && $0.heading != "Care tracking" })
        report.diet = [day("2026-09-22", sodiumMg: 5_000, freeSugarsG: 100), day("2026-09-23", sodiumMg: 1_000, freeSugarsG: 5)]
        report.careFlags = [
            .init(rule: "persistentHighSodium", firstObservedAt: Self.start, lastObservedAt: Self.start.addingTimeInterval(6 * 86_400))
        ]
        let diet = try #require(report.page.sections.first { $0.heading == "Diet" })
        #expect(diet.paragraphs == ["Days with meals recorded: 2. Days at or above a WHO limit, marked ▲: 1."])
        let rows = try #require(diet.tables.first?.rows)
        #expect(
            rows.map { $0.map(\.text) }.first == [
                "2026-09-22", "1", "2000 kcal", "12.5 g", "at or above the limit", "at or above the limit", "below the limit",
            ])
        #expect(rows[0][4].flagged && !rows[1][4].flagged && rows[1][4].text == "below the limit")
        let care = try #require(report.page.sections.first { $0.heading == "Care tracking" })
        #expect(
            care.tables.first?.rows.first?.map(\.text) == [
                "Sodium at or above the WHO limit on 5 of 7 days, with high blood pressure", "2026-09-21", "2026-09-27",
            ])
        let html = report.page.html
        #expect(html.firstMatch(of: /\{[a-zA-Z]+\}/) == nil && !html.contains("report."))
    }

    @Test("skin photos appear by body site with the classifier's answer and certainty; one advising a dermatologist is marked")
    func photos() throws {
        var report = PatientReport(
            patientID: "p-1", period: Period(start: Self.start, end: Self.start.addingTimeInterval(30 * 86_400)), entries: [], texts: .english,
            generatedAt: Self.start)
        report.photos = [
            .init(bodySite: "upperBack", side: nil, takenAt: Self.start, answer: "notSuspicious", certaintyPercent: 80),
            .init(bodySite: "upperBack", side: nil, takenAt: Self.start.addingTimeInterval(86_400), answer: "suspicious", certaintyPercent: 40),
            .init(bodySite: "upperArm", side: "left", takenAt: Self.start, answer: nil, certaintyPercent: nil),
        ]
        let section = try #require(report.page.sections.first { $0.heading == "Skin photos" })
        #expect(section.paragraphs == ["Photos taken: 3. Answers advising a dermatologist, marked ▲: 1."])
        let rows = try #require(section.tables.first?.rows)
        #expect(rows.map { $0.map(\.text) }[1] == ["upperBack", "2026-09-22", "Suspicious: see a dermatologist", "40 %"])
        #expect(rows.map { $0[2].flagged } == [false, true, false])
        #expect(rows[2].map(\.text) == ["upperArm (left)", "2026-09-21", "No answer yet", "–"])
    }

    @Test("in English every placeholder is filled and every word is there")
    func english() throws {
        let html = try Self.report(.english)
        #expect(html.firstMatch(of: /\{[a-zA-Z]+\}/) == nil && !html.contains("report."))
        #expect(html.contains("<h2>Blood pressure</h2>") && html.contains("Readings: 1. Outside the normal range: 1."))
        #expect(html.contains("Latest profile (2026-09-24): Higher risk ▲ (Needs attention). Check your skin every 1 months"))
        #expect(html.contains("Not recorded in this period"))
    }

    @Test("a translation gives the report's words; what it leaves out stays English")
    func translated() throws {
        let german = TipTexts(
            language: "de",
            texts: [
                "report.title": "Gesundheitsbericht", "report.heading.bloodPressure": "Blutdruck",
                "report.readings": "Messungen: {count}. Außerhalb des Normbereichs: {outside}.", "report.period.between": "{from} bis {to}",
            ])
        let html = try Self.report(german)
        #expect(html.contains("lang=\"de\"") && html.contains("<h1>Gesundheitsbericht</h1>") && html.contains("<h2>Blutdruck</h2>"))
        #expect(html.contains("Messungen: 1. Außerhalb des Normbereichs: 1.") && html.contains("2026-09-21 bis 2026-10-20"))
        #expect(html.contains("<h2>Nottingham Prognostic Index</h2>") && html.firstMatch(of: /\{[a-zA-Z]+\}/) == nil)
    }

    @Test("every report word is a key a translation may give, and filling leaves no placeholder it was given")
    func keys() {
        #expect(ReportWords.english.keys.allSatisfy { TipTexts.keys.contains($0) })
        #expect(TipTexts.english.filled("report.summary.caption", ["heading": "Pulse"]) == "Pulse: summary")
        #expect(TipTexts.english.filled("no.such.key") == "no.such.key")
    }

    @Test("an area the patient follows: its daily maxima charted against the WHO and EPA bands, high days marked")
    func environment() throws {
        let day = 86_400.0
        var report = PatientReport(
            patientID: "p-1", period: Period(start: Self.start, end: Self.start.addingTimeInterval(30 * day)), entries: [], texts: .english,
            generatedAt: Self.start.addingTimeInterval(30 * day))
        report.environment = [
            .init(
                areaCode: "lisbon", name: "Lisbon",
                days: [
                    .init(day: Self.start, uvIndexMax: 7.2, aqiMax: 160),
                    .init(day: Self.start.addingTimeInterval(day), uvIndexMax: 2.4, aqiMax: nil),
                ]),
            .init(areaCode: "porto", name: "Porto", days: []),
        ]
        let html = report.page.html
        #expect(html.contains("<h2>UV index and air quality: Lisbon</h2>") && html.contains("Days with readings: 2."))
        #expect(html.contains("Highest UV index: 7.2 (High)") && html.contains("Highest air quality index (US AQI): 160 (Unhealthy)"))
        #expect(html.contains("id=\"chart-uv-0-title\"") && html.contains("id=\"chart-aqi-0-title\""))
        #expect(html.contains("<h2>UV index and air quality: Porto</h2>") && html.contains("No readings in this period."))
        #expect(html.firstMatch(of: /\{[a-zA-Z]+\}/) == nil)
    }
}
