import CaretideDomain
import Foundation
import Testing

@Suite("Care-tracking trends")
struct TrendsTests {
    func bpSeries(_ values: [(Int, Int)]) -> [TimedBloodPressureReading] {
        values.enumerated().map { index, v in
            TimedBloodPressureReading(takenAt: referenceNow + days(Double(index)), systolic: v.0, diastolic: v.1)
        }
    }

    func glucoseSeries(_ values: [(Double, GlucoseUnit)]) -> [TimedFastingGlucoseReading] {
        values.enumerated().map { index, v in
            TimedFastingGlucoseReading(takenAt: referenceNow + days(Double(7 * index)), value: v.0, unit: v.1)
        }
    }

    // MARK: Blood pressure

    @Test("Three consecutive stage-2 readings raise one flag")
    func threeStage2() throws {
        let readings = bpSeries([(142, 85), (150, 92), (139, 91)])
        let flags = try Trends.sustainedStage2BloodPressure(readings)
        #expect(flags.count == 1)
        let flag = try #require(flags.first)
        #expect(flag.kind == .sustainedStage2BloodPressure)
        #expect(flag.detail == .bloodPressureRun(readingCount: 3, highestCategory: .stage2Hypertension))
        #expect(flag.firstObservedAt == readings[0].takenAt)
        #expect(flag.lastObservedAt == readings[2].takenAt)
        #expect(flag.severity == .attention)
        #expect(flag.tip == .trendSustainedStage2BloodPressure)
        #expect(flag.ruleSetVersion == RuleSetVersion.current)
    }

    @Test("Crisis counts as 'stage 2 or worse'; the highest category is reported")
    func crisisCounts() throws {
        let flags = try Trends.sustainedStage2BloodPressure(bpSeries([(145, 80), (190, 100), (141, 70)]))
        #expect(flags.map(\.detail) == [.bloodPressureRun(readingCount: 3, highestCategory: .hypertensiveCrisis)])
    }

    @Test("Two readings, or an interruption, do not flag")
    func notEnough() throws {
        #expect(try Trends.sustainedStage2BloodPressure(bpSeries([(150, 95), (150, 95)])).isEmpty)
        #expect(try Trends.sustainedStage2BloodPressure(bpSeries([(150, 95), (150, 95), (139, 89), (150, 95), (150, 95)])).isEmpty)
        #expect(try Trends.sustainedStage2BloodPressure(bpSeries([(150, 95), (135, 85), (150, 95)])).isEmpty)  // stage 1 breaks the run
        #expect(try Trends.sustainedStage2BloodPressure([]).isEmpty)
    }

    @Test("One flag per maximal run")
    func runs() throws {
        let readings = bpSeries([
            (150, 95), (150, 95), (118, 75), (140, 80), (140, 80), (140, 80), (140, 80), (120, 70), (160, 100), (160, 100),
            (160, 100),
        ])
        let flags = try Trends.sustainedStage2BloodPressure(readings)
        #expect(
            flags.map(\.detail) == [
                .bloodPressureRun(readingCount: 4, highestCategory: .stage2Hypertension),
                .bloodPressureRun(readingCount: 3, highestCategory: .stage2Hypertension),
            ])
        #expect(flags[0].firstObservedAt == readings[3].takenAt && flags[0].lastObservedAt == readings[6].takenAt)
        #expect(flags[1].firstObservedAt == readings[8].takenAt && flags[1].lastObservedAt == readings[10].takenAt)
    }

    @Test("Invalid or out-of-order readings are reported by index")
    func bpValidation() throws {
        var readings = bpSeries([(150, 95), (40, 95), (150, 95), (150, 160)])
        readings[2].takenAt = referenceNow - days(10)
        let error = try #require(validationError { try Trends.sustainedStage2BloodPressure(readings) })
        #expect(error.fields == ["/readings/1/systolic", "/readings/3/systolic", "/readings/2/takenAt"])
    }

    // MARK: Fasting glucose

    @Test("Strictly rising over the last 3 and crossing into prediabetes flags")
    func risingGlucose() throws {
        let readings = glucoseSeries([(95, .mgPerDL), (105, .mgPerDL), (110, .mgPerDL)])
        let flag = try #require(try Trends.risingFastingGlucose(readings))
        #expect(flag.kind == .risingFastingGlucose)
        #expect(flag.detail == .glucoseRise(from: .normal, to: .prediabetes, valuesMgPerDL: [95, 105, 110]))
        #expect(flag.firstObservedAt == readings[0].takenAt && flag.lastObservedAt == readings[2].takenAt)
        #expect(flag.severity == .attention)
        #expect(flag.tip == .trendRisingFastingGlucose)
    }

    @Test(
        "Rising-glucose rule: non-flagging series",
        arguments: [
            [101.0, 110, 120],  // rising but no category crossed (all prediabetes)
            [90, 100, 99],  // crossed, but not strictly rising
            [100, 100, 130],  // equal values are not strictly rising
            [50, 60, 80],  // recovery from hypoglycaemia
            [95, 105, 110, 100],  // only the last three count
            [95, 130],  // fewer than three readings
        ])
    func notRising(values: [Double]) throws {
        #expect(try Trends.risingFastingGlucose(glucoseSeries(values.map { ($0, .mgPerDL) })) == nil)
    }

    @Test("Rising-glucose rule works across units")
    func mixedUnits() throws {
        let flag = try #require(
            try Trends.risingFastingGlucose(glucoseSeries([(80, .mgPerDL), (5.0, .mmolPerL), (92, .mgPerDL), (7.1, .mmolPerL)])))
        guard case .glucoseRise(let from, let to, let values) = flag.detail else {
            Issue.record("wrong detail")
            return
        }
        #expect(from == .normal && to == .diabetesRange)
        #expect(abs(values[0] - 90.08) < 1e-9 && values[1] == 92 && abs(values[2] - 127.9136) < 1e-9)
    }

    @Test("Glucose series validation")
    func glucoseValidation() throws {
        var readings = glucoseSeries([(95, .mgPerDL), (5, .mgPerDL), (110, .mgPerDL)])
        readings[2].takenAt = referenceNow - days(1)
        let error = try #require(validationError { try Trends.risingFastingGlucose(readings) })
        #expect(error.fields == ["/readings/1/value", "/readings/2/takenAt"])
    }

    // MARK: NPI

    @Test("Every change of NPI group between consecutive assessments is flagged")
    func npiChanges() throws {
        let groups: [NPIPrognosticGroup] = [.excellent, .good, .good, .moderate, .good]
        let series = groups.enumerated().map { TimedNPIGroup(assessedAt: referenceNow + days(Double(100 * $0)), group: $1) }
        let flags = try Trends.npiGroupChanges(series)
        #expect(
            flags.map(\.detail) == [
                .npiGroupChange(from: .excellent, to: .good), .npiGroupChange(from: .good, to: .moderate),
                .npiGroupChange(from: .moderate, to: .good),
            ])
        #expect(flags.map(\.severity) == [.attention, .attention, .normal])
        #expect(flags.map(\.tip) == [.trendNPIGroupWorsened, .trendNPIGroupWorsened, .trendNPIGroupImproved])
        #expect(flags[1].firstObservedAt == series[2].assessedAt && flags[1].lastObservedAt == series[3].assessedAt)
        #expect(try Trends.npiGroupChanges([series[0]]).isEmpty)
        #expect(try Trends.npiGroupChanges([series[1], series[2]]).isEmpty)
    }

    @Test("NPI series must be chronological")
    func npiOrder() throws {
        let series = [
            TimedNPIGroup(assessedAt: referenceNow, group: .good),
            TimedNPIGroup(assessedAt: referenceNow - 1, group: .poor),
        ]
        #expect(validationError { try Trends.npiGroupChanges(series) }?.fields == ["/assessments/1/assessedAt"])
    }
}
