import CaretideDomain
import Foundation
import PropertyBased
import Testing

@Suite("Nottingham Prognostic Index")
struct NottinghamPrognosticIndexTests {
    func assess(_ size: Double, grade: Int, nodes: LymphNodeInput, date: Date = referenceNow - days(30))
        throws(DomainValidationError) -> NottinghamPrognosticIndexAssessment
    {
        try NottinghamPrognosticIndex.assess(
            NottinghamPrognosticIndexInput(tumourSizeCm: size, histologicalGrade: grade, lymphNodes: nodes, diagnosisDate: date),
            now: referenceNow)
    }

    @Test(
        "Golden table: every group edge in exact hundredths",
        arguments: [
            // size, grade, node stage, NPI×100, text, group
            (2.0, 1, 1, 240, "2.40", NPIPrognosticGroup.excellent),
            (2.01, 1, 1, 240, "2.40", .excellent),  // 0.402 → 0.40
            (2.02, 1, 1, 240, "2.40", .excellent),  // 0.404 → 0.40
            (2.03, 1, 1, 241, "2.41", .good),  // 0.406 → 0.41
            (2.05, 1, 1, 241, "2.41", .good),
            (7.0, 1, 1, 340, "3.40", .good),  // naive Double: 0.2*7 + 2 = 3.4000000000000004 → would be moderate
            (2.0, 2, 1, 340, "3.40", .good),
            (2.03, 2, 1, 341, "3.41", .moderate),
            (12.0, 1, 1, 440, "4.40", .moderate),  // 0.2*12 = 2.4000000000000004 in Double
            (2.0, 3, 2, 540, "5.40", .moderate),
            (17.0, 1, 1, 540, "5.40", .moderate),
            (2.03, 3, 2, 541, "5.41", .poor),
            (30.0, 3, 3, 1200, "12.00", .poor),
            (0.1, 1, 1, 202, "2.02", .excellent),
        ])
    func golden(size: Double, grade: Int, stage: Int, hundredths: Int, text: String, group: NPIPrognosticGroup) throws {
        let result = try assess(size, grade: grade, nodes: .stage(stage))
        #expect(result.npiHundredths == hundredths)
        #expect(result.npiText == text)
        #expect(result.npi == Double(hundredths) / 100)
        #expect(result.group == group)
        #expect(result.fiveYearSurvivalPercent == group.fiveYearSurvivalPercent)
        #expect(result.lymphNodeStage == stage)
    }

    @Test("Group boundaries on the hundredths scale")
    func groupFunction() {
        #expect(NottinghamPrognosticIndex.group(npiHundredths: 240) == .excellent)
        #expect(NottinghamPrognosticIndex.group(npiHundredths: 241) == .good)
        #expect(NottinghamPrognosticIndex.group(npiHundredths: 340) == .good)
        #expect(NottinghamPrognosticIndex.group(npiHundredths: 341) == .moderate)
        #expect(NottinghamPrognosticIndex.group(npiHundredths: 540) == .moderate)
        #expect(NottinghamPrognosticIndex.group(npiHundredths: 541) == .poor)
        #expect(NPIPrognosticGroup.allCases.map(\.fiveYearSurvivalPercent) == [93, 85, 70, 50])
    }

    @Test(
        "Positive-node count maps to stage (0 → 1, 1–3 → 2, ≥ 4 → 3)",
        arguments: [(0, 1), (1, 2), (2, 2), (3, 2), (4, 3), (12, 3), (100, 3)])
    func nodeCount(count: Int, stage: Int) throws {
        #expect(try NottinghamPrognosticIndex.lymphNodeStage(positiveNodes: count) == stage)
        let viaCount = try assess(2.0, grade: 2, nodes: .positiveNodeCount(count))
        let viaStage = try assess(2.0, grade: 2, nodes: .stage(stage))
        #expect(viaCount.npiHundredths == viaStage.npiHundredths)
        #expect(viaCount.lymphNodeStage == stage)
    }

    @Test("Tips per group")
    func tips() throws {
        #expect(try assess(1.0, grade: 1, nodes: .stage(1)).tip == .npiExcellent)
        #expect(try assess(1.0, grade: 2, nodes: .stage(1)).tip == .npiGood)
        #expect(try assess(1.0, grade: 2, nodes: .stage(2)).tip == .npiModerate)
        #expect(try assess(1.0, grade: 3, nodes: .stage(3)).tip == .npiPoor)
    }

    @Test(
        "Invalid inputs name the field",
        arguments: [
            (0.0, 1, LymphNodeInput.stage(1), "/tumourSizeCm"),
            (-1.5, 1, .stage(1), "/tumourSizeCm"),
            (30.01, 1, .stage(1), "/tumourSizeCm"),
            (Double.nan, 1, .stage(1), "/tumourSizeCm"),
            (2.0, 0, .stage(1), "/histologicalGrade"),
            (2.0, 4, .stage(1), "/histologicalGrade"),
            (2.0, 1, .stage(0), "/lymphNodes/stage"),
            (2.0, 1, .stage(4), "/lymphNodes/stage"),
            (2.0, 1, .positiveNodeCount(-1), "/lymphNodes/positiveNodeCount"),
            (2.0, 1, .positiveNodeCount(101), "/lymphNodes/positiveNodeCount"),
        ])
    func invalid(size: Double, grade: Int, nodes: LymphNodeInput, field: String) throws {
        let error = try #require(validationError { try assess(size, grade: grade, nodes: nodes) })
        #expect(error.fields == [field])
        #expect(error.issues[0].allowedRange != nil)
    }

    @Test("Negative node count is rejected by the mapping function too")
    func negativeCountMapping() {
        #expect(
            validationError { try NottinghamPrognosticIndex.lymphNodeStage(positiveNodes: -3) }?.fields
                == ["/lymphNodes/positiveNodeCount"])
    }

    @Test("Dates: future rejected, past and 'now' accepted")
    func dates() throws {
        let future = try #require(validationError { try assess(2.0, grade: 1, nodes: .stage(1), date: referenceNow + 1) })
        #expect(future.fields == ["/diagnosisDate"])
        #expect(try assess(2.0, grade: 1, nodes: .stage(1), date: referenceNow).group == .excellent)
        #expect(try assess(2.0, grade: 1, nodes: .stage(1), date: referenceNow - days(3650)).group == .excellent)
    }

    @Test("All failing fields are reported together")
    func allFields() throws {
        let error = try #require(
            validationError { try assess(0, grade: 5, nodes: .positiveNodeCount(-2), date: referenceNow + days(1)) })
        #expect(error.fields == ["/tumourSizeCm", "/histologicalGrade", "/lymphNodes/positiveNodeCount", "/diagnosisDate"])
    }

    @Test("Survival curve: exponential through the group's 5-year survival", arguments: NPIPrognosticGroup.allCases)
    func survivalCurve(group: NPIPrognosticGroup) throws {
        let points = try NottinghamPrognosticIndex.survivalCurve(for: group)
        #expect(points.map(\.monthsSinceDiagnosis) == Array(stride(from: 0, through: 60, by: 6)))
        #expect(points.first?.survivalProbability == 1)
        #expect(points.last?.survivalProbability == Double(group.fiveYearSurvivalPercent) / 100)
        for (a, b) in zip(points, points.dropFirst()) { #expect(b.survivalProbability < a.survivalProbability) }
        // Constant hazard: S(2.5 y) = sqrt(S(5 y)).
        let halfway = try #require(points.first { $0.monthsSinceDiagnosis == 30 })
        #expect(abs(halfway.survivalProbability - (Double(group.fiveYearSurvivalPercent) / 100).squareRoot()) < 1e-12)
    }

    @Test("Survival curve: uneven step still ends at 60 months; invalid step rejected")
    func survivalCurveSteps() throws {
        let points = try NottinghamPrognosticIndex.survivalCurve(for: .moderate, stepMonths: 7)
        #expect(points.map(\.monthsSinceDiagnosis) == [0, 7, 14, 21, 28, 35, 42, 49, 56, 60])
        #expect(abs(points[1].survivalProbability - exp(log(0.70) / 5 * 7 / 12)) < 1e-12)
        #expect(validationError { try NottinghamPrognosticIndex.survivalCurve(for: .good, stepMonths: 0) }?.fields == ["/stepMonths"])
        #expect(validationError { try NottinghamPrognosticIndex.survivalCurve(for: .good, stepMonths: 61) } != nil)
    }

    @Test("Property: larger tumour, higher grade or more nodes never improves the group")
    func monotonic() async {
        await propertyCheck(
            count: 500,
            input: Gen.double(in: 0.01...30), Gen.int(in: 1...3), Gen.int(in: 0...100),
            Gen.double(in: 0...30), Gen.int(in: 0...2), Gen.int(in: 0...100)
        ) { size, grade, nodes, extraSize, extraGrade, extraNodes in
            let base = try assess(size, grade: grade, nodes: .positiveNodeCount(nodes))
            let biggerSize = min(30, size + extraSize)
            let higherGrade = min(3, grade + extraGrade)
            let moreNodes = min(100, nodes + extraNodes)
            let worse = [
                try assess(biggerSize, grade: grade, nodes: .positiveNodeCount(nodes)),
                try assess(size, grade: higherGrade, nodes: .positiveNodeCount(nodes)),
                try assess(size, grade: grade, nodes: .positiveNodeCount(moreNodes)),
                try assess(biggerSize, grade: higherGrade, nodes: .positiveNodeCount(moreNodes)),
            ]
            for result in worse {
                #expect(result.group >= base.group)
                #expect(result.npiHundredths >= base.npiHundredths)
            }
        }
    }
}
