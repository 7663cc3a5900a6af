import ArgumentParser
import CaretideRuntime
import CaretideSchemas
import Foundation
import PhenotypeRanking
import ScoringService

/// A chart's series thinned on the server (a 100,000-point series in ≤ 20 ms p50): a year of blood
/// pressures every five minutes, as scoring-service holds them (values in a JSON object), thinned to 500 points by
/// `SeriesResponse` (per-bucket min/max of systolic and diastolic) and encoded as the answer, timed apart.
struct SeriesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "series", abstract: "Milliseconds to thin a long series for a chart, and to encode the answer.")

    @Option(help: "Points in the series.") var points = 100_000
    @Option(help: "Points the chart asks for.") var chart = 500
    @Option(help: "Timed repetitions.") var repetitions = 50

    struct Point: Encodable, Sendable {
        let observedAt: Date
        let values: JSONValue
        let category: String
        let severity: String
    }

    func run() async throws {
        var generator = SplitMix64(seed: 7)
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let rows = (0..<points).map { index in
            let systolic = Double(100 + generator.next() % 80)
            let diastolic = Double(60 + generator.next() % 40)
            return Point(
                observedAt: start.addingTimeInterval(Double(index) * 300),
                values: .object(["systolic": .number(systolic), "diastolic": .number(diastolic)]),
                category: "normal", severity: "normal")
        }
        let query = SeriesQuery(period: Period(start: start, end: start.addingTimeInterval(365 * 86_400)), points: chart)
        let fields = ["systolic", "diastolic"]
        var thinning: [Duration] = []
        var encoding: [Duration] = []
        var kept = 0
        let clock = ContinuousClock()
        for _ in 0..<repetitions {
            let began = clock.now
            let response = SeriesResponse<Point>(
                rows, query: query, time: { (row: Point) in row.observedAt }, values: { row in fields.map { row.values[$0]?.numberValue ?? .nan } },
                point: { $0 })
            let thinned = clock.now
            let bytes = try CaretideJSON.encode(response)
            encoding.append(clock.now - thinned)
            thinning.append(thinned - began)
            kept = response.points.count + bytes.count % 1
        }
        let thin = LatencySummary(thinning)
        let encode = LatencySummary(encoding)
        print("series: \(points) points thinned to \(kept) (asked \(chart)), \(repetitions) repetitions")
        print("  thinning p50 \(thin.milliseconds(0.5, digits: 2)), p99 \(thin.milliseconds(0.99, digits: 2))")
        print("  encoding the answer p50 \(encode.milliseconds(0.5, digits: 2)), p99 \(encode.milliseconds(0.99, digits: 2))")
    }
}

/// The patient report rendered to HTML (a one-year report with 2,000 measurements in ≤ 50 ms p50): a year
/// of blood pressures, pulses and glucose values with an NPI, laid out with its charts and tables as scoring-service
/// does for `GET …/report`, from values already read (the database's part is the history's query).
struct ReportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "report", abstract: "Milliseconds to render a one-year patient report to HTML.")

    @Option(help: "Measurements in the year.") var measurements = 2_000
    @Option(help: "Timed repetitions.") var repetitions = 50

    func run() async throws {
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let html = try ScoringService.benchmarkReport(measurements: measurements, from: start)
        var durations: [Duration] = []
        let clock = ContinuousClock()
        var bytes = 0
        for _ in 0..<repetitions {
            let began = clock.now
            bytes = try ScoringService.benchmarkReport(measurements: measurements, from: start).utf8.count
            durations.append(clock.now - began)
        }
        let summary = LatencySummary(durations)
        print("report: \(measurements) measurements over a year, \(html.utf8.count) bytes of HTML (\(bytes)), \(repetitions) repetitions")
        print("  rendering p50 \(summary.milliseconds(0.5, digits: 2)), p99 \(summary.milliseconds(0.99, digits: 2))")
    }
}
