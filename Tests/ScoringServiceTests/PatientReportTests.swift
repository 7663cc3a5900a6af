import CaretideCharts
import CaretideDomain
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
}
