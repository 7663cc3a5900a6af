import CaretideDomain
import Foundation
import PropertyBased
import Testing

@Suite("Blood pressure (ACC/AHA 2017)")
struct BloodPressureTests {
    @Test(
        "Golden table: every band edge",
        arguments: [
            (50, 20, BloodPressureCategory.normal, Severity.normal),
            (119, 79, .normal, .normal),
            (120, 79, .elevated, .normal),
            (129, 79, .elevated, .normal),
            (130, 79, .stage1Hypertension, .attention),
            (119, 80, .stage1Hypertension, .attention),
            (129, 80, .stage1Hypertension, .attention),
            (139, 89, .stage1Hypertension, .attention),
            (140, 89, .stage2Hypertension, .attention),
            (139, 90, .stage2Hypertension, .attention),
            (140, 60, .stage2Hypertension, .attention),
            (110, 95, .stage2Hypertension, .attention),
            (180, 120, .stage2Hypertension, .attention),
            (181, 80, .hypertensiveCrisis, .urgent),
            (150, 121, .hypertensiveCrisis, .urgent),
            (181, 121, .hypertensiveCrisis, .urgent),
            (300, 200, .hypertensiveCrisis, .urgent),
        ])
    func goldenTable(systolic: Int, diastolic: Int, category: BloodPressureCategory, severity: Severity) throws {
        let result = try BloodPressure.assess(systolic: systolic, diastolic: diastolic)
        #expect(result.category == category)
        #expect(result.severity == severity)
        #expect(result.ruleSetVersion == RuleSetVersion.current)
    }

    @Test("Each category has its own tip")
    func tips() throws {
        #expect(try BloodPressure.assess(systolic: 110, diastolic: 70).tip == .bloodPressureNormal)
        #expect(try BloodPressure.assess(systolic: 125, diastolic: 70).tip == .bloodPressureElevated)
        #expect(try BloodPressure.assess(systolic: 135, diastolic: 70).tip == .bloodPressureStage1)
        #expect(try BloodPressure.assess(systolic: 145, diastolic: 70).tip == .bloodPressureStage2)
        #expect(try BloodPressure.assess(systolic: 190, diastolic: 70).tip == .bloodPressureCrisis)
    }

    @Test(
        "Implausible single fields name the field and allowed range",
        arguments: [
            (49, 30, "/systolic", "50...300 mmHg"),
            (301, 80, "/systolic", "50...300 mmHg"),
            (120, 19, "/diastolic", "20...200 mmHg"),
            (250, 201, "/diastolic", "20...200 mmHg"),
        ])
    func implausibleField(systolic: Int, diastolic: Int, field: String, allowed: String) throws {
        let error = try #require(validationError { try BloodPressure.assess(systolic: systolic, diastolic: diastolic) })
        #expect(error.issues.count == 1)
        #expect(error.issues.first?.field == field)
        #expect(error.issues.first?.allowedRange == allowed)
    }

    @Test("All failing fields are reported, not just the first")
    func allFieldsReported() throws {
        let error = try #require(validationError { try BloodPressure.assess(systolic: 20, diastolic: 250) })
        #expect(error.fields == ["/systolic", "/diastolic"])
        #expect(error.issue(for: "/systolic")?.allowedRange == "50...300 mmHg")
        #expect(error.issue(for: "/diastolic")?.allowedRange == "20...200 mmHg")
    }

    @Test("Systolic must exceed diastolic", arguments: [(80, 80), (70, 90)])
    func systolicAboveDiastolic(systolic: Int, diastolic: Int) throws {
        let error = try #require(validationError { try BloodPressure.assess(systolic: systolic, diastolic: diastolic) })
        #expect(error.fields == ["/systolic"])
        #expect(error.issues[0].allowedRange == "\(diastolic + 1)...300 mmHg")
    }

    @Test("Category order is normal < elevated < stage 1 < stage 2 < crisis")
    func ordering() {
        #expect(BloodPressureCategory.allCases.sorted() == BloodPressureCategory.allCases)
        #expect(BloodPressureCategory.normal < .elevated)
        #expect(BloodPressureCategory.stage2Hypertension < .hypertensiveCrisis)
        #expect(Severity.normal < .attention && Severity.attention < .urgent)
    }

    @Test("JSON shape matches the BloodPressureAssessed event fields")
    func codable() throws {
        let result = try BloodPressure.assess(systolic: 135, diastolic: 85)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: String]
        #expect(
            json == [
                "category": "stage1Hypertension", "severity": "attention", "tip": "bloodPressure.stage1",
                "ruleSetVersion": RuleSetVersion.current,
            ])
        #expect(try JSONDecoder().decode(BloodPressureAssessment.self, from: JSONEncoder().encode(result)) == result)
    }

    @Test("Property: a higher systolic or diastolic never lowers the category")
    func monotonic() async {
        await propertyCheck(
            count: 500,
            input: Gen.int(in: 20...199), Gen.int(in: 1...150), Gen.int(in: 0...60), Gen.int(in: 0...60)
        ) { diastolic, gap, raiseSystolic, raiseDiastolic in
            let systolic = diastolic + gap
            let higherSystolic = systolic + raiseSystolic
            let higherDiastolic = diastolic + raiseDiastolic
            guard let base = try? BloodPressure.assess(systolic: systolic, diastolic: diastolic),
                let raised = try? BloodPressure.assess(systolic: higherSystolic, diastolic: higherDiastolic)
            else { return }  // one of the pair is implausible; nothing to compare
            #expect(raised.category >= base.category, "\(systolic)/\(diastolic) → \(higherSystolic)/\(higherDiastolic)")
            #expect(raised.severity >= base.severity)
        }
    }

    @Test("Property: every plausible reading yields a category consistent with the table")
    func exhaustiveAgreement() throws {
        // Exhaustive over the whole plausible grid: an independent restatement of the guideline table.
        for systolic in stride(from: 50, through: 300, by: 1) {
            for diastolic in stride(from: 20, through: min(200, systolic - 1), by: 1) {
                let expected: BloodPressureCategory =
                    if systolic > 180 || diastolic > 120 { .hypertensiveCrisis } else if systolic >= 140 || diastolic >= 90 {
                        .stage2Hypertension
                    } else if (130...139).contains(systolic) || (80...89).contains(diastolic) {
                        .stage1Hypertension
                    } else if (120...129).contains(systolic) && diastolic < 80 { .elevated } else { .normal }
                let actual = try BloodPressure.assess(systolic: systolic, diastolic: diastolic).category
                if actual != expected {
                    Issue.record("\(systolic)/\(diastolic): expected \(expected), got \(actual)")
                    return
                }
            }
        }
    }
}
