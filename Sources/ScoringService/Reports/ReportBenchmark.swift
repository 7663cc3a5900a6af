import CaretideCharts
import CaretideDomain
import CaretideRuntime
import CaretideSchemas
public import Foundation

extension ScoringService {
    /// The report `caretide-bench report` times: `measurements` readings over a year (blood pressure, pulse and
    /// glucose in turn, every category met) and one NPI, rendered as `GET …/report` renders them.
    public static func benchmarkReport(measurements: Int, from start: Date) throws -> String {
        let year = 365 * 86_400.0
        var entries: [PatientReport.Entry] = []
        for index in 0..<measurements {
            let time = start.addingTimeInterval(year * Double(index) / Double(measurements))
            switch index % 3 {
            case 0:
                let systolic = 100 + index % 95
                let diastolic = min(60 + index % 55, systolic - 20)
                let result = try BloodPressure.assess(systolic: systolic, diastolic: diastolic)
                entries.append(
                    .init(
                        kind: .bloodPressure, observedAt: time, category: result.category.rawValue, severity: result.severity,
                        values: .object(["systolic": .number(Double(systolic)), "diastolic": .number(Double(diastolic))])))
            case 1:
                let bpm = 45 + index % 90
                let result = try Pulse.assess(restingBeatsPerMinute: bpm)
                entries.append(
                    .init(
                        kind: .pulse, observedAt: time, category: result.category.rawValue, severity: result.severity,
                        values: .object(["beatsPerMinute": .number(Double(bpm))])))
            default:
                let value = Double(60 + index % 180)
                let result = try Glucose.assess(value: value, unit: .mgPerDL, context: .fasting)
                entries.append(
                    .init(
                        kind: .glucose, observedAt: time, category: result.category.rawValue, severity: result.severity,
                        values: .object(["value": .number(value), "valueMgPerDL": .number(value)])))
            }
        }
        entries.append(
            .init(
                kind: .nottinghamPrognosticIndex, observedAt: start.addingTimeInterval(30 * 86_400), category: "moderate", severity: .attention,
                values: .object(["npi": .number(4.4), "fiveYearSurvivalPercent": .number(70)])))
        let report = PatientReport(
            patientID: "p-bench", period: Period(start: start, end: start.addingTimeInterval(year)), entries: entries, texts: TipTexts.english,
            generatedAt: start.addingTimeInterval(year))
        return report.page.html
    }
}
