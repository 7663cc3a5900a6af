import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Testing

@testable import ScoringService

/// The series a chart draws: which kinds have one, which of their values are charted, and which points survive when
/// a long series is thinned.
@Suite struct SeriesTests {
    /// 2026-09-21T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_789_948_800)
    static let id = UUID(uuidString: "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11")!

    /// Twelve hourly blood pressures: systolic highest at 3 and lowest at 8, diastolic highest at 5 and lowest at 10,
    /// and the first without a diastolic value.
    static let readings: [SeriesRoutes.Point] = {
        let systolic: [Double] = [130, 135, 140, 180, 150, 145, 138, 132, 100, 128, 126, 134]
        let diastolic: [Double?] = [nil, 85, 88, 90, 92, 110, 80, 84, 86, 70, 60, 75]
        return systolic.indices.map { index in
            var members: [String: JSONValue] = ["systolic": .number(systolic[index])]
            if let value = diastolic[index] { members["diastolic"] = .number(value) }
            return SeriesRoutes.Point(
                observedAt: SeriesTests.start.addingTimeInterval(Double(index) * 3_600), values: .object(members), category: "stage1Hypertension",
                severity: "attention", subjectId: "\(index)")
        }
    }()

    static func thinned(_ query: SeriesQuery) throws -> SeriesResponse<SeriesRoutes.Point> {
        let fields = try #require(SeriesRoutes.charted[.bloodPressure])
        return SeriesResponse(readings, query: query, time: \.observedAt, values: { SeriesRoutes.values(of: $0, fields: fields) }, point: { $0 })
    }

    @Test("every kind of assessment has a series here except exam results (charted by ingest) and skin photos")
    func chartedKinds() {
        #expect(Set(SeriesRoutes.charted.keys) == Set(AssessmentKind.allCases).subtracting([.examResult, .lesionPhoto]))
        #expect(SeriesRoutes.charted.values.allSatisfy { !$0.isEmpty })
    }

    @Test("every value a series charts is one the rules write for that kind, so no chart line is empty by a misspelling")
    func chartedValuesExist() throws {
        let bloodPressure = try AssessmentEngine.assess(
            BloodPressureRecorded(measurementID: Self.id, systolic: 128, diastolic: 82, takenAt: Self.start, source: .patient), now: Self.start)
        let pulse = try AssessmentEngine.assess(
            PulseRecorded(measurementID: Self.id, beatsPerMinute: 72, takenAt: Self.start, source: .patient), now: Self.start)
        let body = try AssessmentEngine.assess(
            BodyMeasurementRecorded(measurementID: Self.id, weightKg: 70, heightCm: 175, takenAt: Self.start, source: .patient), now: Self.start)
        let hba1c = try AssessmentEngine.assess(
            HbA1cRecorded(measurementID: Self.id, percent: 6, takenAt: Self.start, source: .patient), now: Self.start)
        let assessed: [(AssessmentKind, Assessment?)] = [(.bloodPressure, bloodPressure), (.pulse, pulse), (.bodyMassIndex, body), (.hba1c, hba1c)]
        for (kind, assessment) in assessed {
            let found = try #require(assessment, "\(kind)")
            let written = found.values.keys
            let fields = try #require(SeriesRoutes.charted[kind])
            #expect(Set(fields).isSubset(of: written), "\(kind): \(fields) of \(written.sorted())")
        }
    }

    @Test("a point's values come in the charted order; one it lacks, or that is not a number, is NaN")
    func values() {
        let point = SeriesRoutes.Point(
            observedAt: Self.start, values: .object(["systolic": .number(150), "diastolic": .string("95")]), category: "stage2Hypertension",
            severity: "attention", subjectId: "m")
        let values = SeriesRoutes.values(of: point, fields: ["systolic", "diastolic", "beatsPerMinute"])
        #expect(values.count == 3 && values[0] == 150 && values[1].isNaN && values[2].isNaN)
        #expect(SeriesRoutes.values(of: point, fields: []).isEmpty)
    }

    @Test("thinned to 4 points, a series keeps the readings with the highest and lowest systolic and diastolic, in time order")
    func thinning() throws {
        let response = try Self.thinned(SeriesQuery(period: .always, points: 4))
        #expect(response.points.map(\.subjectId) == ["3", "5", "8", "10"])
        #expect(response.count == 12 && response.method == "min-max" && response.bucketSeconds != nil)
        // An open period is reported as the series' own first and last reading.
        #expect(response.from == Self.start && response.to == Self.start.addingTimeInterval(11 * 3_600))
    }

    @Test("a series within the points asked for is answered whole, over the period asked for")
    func whole() throws {
        let period = Period(start: Self.start.addingTimeInterval(-86_400), end: Self.start.addingTimeInterval(86_400))
        let response = try Self.thinned(SeriesQuery(period: period, points: SeriesQuery.defaultPoints))
        #expect(response.points.map(\.subjectId) == (0..<12).map { "\($0)" })
        #expect(response.method == "all" && response.bucketSeconds == nil)
        #expect(response.from == period.start && response.to == period.end)
    }
}
