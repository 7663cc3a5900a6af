import CaretideDomain
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Testing

/// The mapping from recorded events to assessments; the rules themselves are tested in CaretideDomainTests.
@Suite struct AssessmentEngineTests {
    let now = Date(timeIntervalSince1970: 1_795_336_200)  // 2026-11-22T08:30:00Z
    let takenAt = Date(timeIntervalSince1970: 1_795_300_000)
    let id = UUID()

    func assess(_ payload: any EventPayload) throws -> Assessment {
        try #require(try AssessmentEngine.assess(payload, now: now))
    }

    @Test func bloodPressure() throws {
        let result = try assess(
            BloodPressureRecorded(measurementID: id, revision: 2, systolic: 142, diastolic: 91, takenAt: takenAt, source: .patient))
        #expect(result.kind == .bloodPressure)
        #expect(result.category == .bloodPressure(.stage2Hypertension))
        #expect(result.severity == .attention)
        #expect(result.subjectID == id.uuidString.lowercased())
        #expect(result.subjectRevision == 2)
        #expect(result.values == ["systolic": 142, "diastolic": 91])
        #expect(result.observedAt == takenAt)
        #expect(result.ruleSetVersion == RuleSetVersion.current)
    }

    @Test func bodyMassIndexFromWeightAndHeight() throws {
        let result = try assess(BodyMeasurementRecorded(measurementID: id, weightKg: 95, heightCm: 175, takenAt: takenAt, source: .device))
        #expect(result.kind == .bodyMassIndex)
        #expect(result.category == .bodyMassIndex(.obeseClassI))
        #expect(abs(result.values["bmi"]! - 31.02) < 0.01)
    }

    @Test func glucoseInEitherUnit() throws {
        let mg = try assess(GlucoseRecorded(measurementID: id, value: 126, unit: .mgPerDL, context: .fasting, takenAt: takenAt, source: .patient))
        let mmol = try assess(GlucoseRecorded(measurementID: id, value: 7.0, unit: .mmolPerL, context: .fasting, takenAt: takenAt, source: .patient))
        #expect(mg.category == .glucose(.diabetesRange))
        #expect(mmol.category == .glucose(.diabetesRange))
    }

    @Test("a lipid panel is headed by its most severe measure")
    func lipidPanelHeadline() throws {
        let result = try assess(
            LipidPanelRecorded(
                measurementID: id, unit: .mgPerDL, sex: .female, totalCholesterol: 180, ldlCholesterol: 195, hdlCholesterol: 55, triglycerides: 120,
                takenAt: takenAt, source: .institution))
        #expect(result.category == .lipids(.veryHigh))
        #expect(result.values["ldlCholesterolMgPerDL"] == 195)
        #expect(result.values.count == 4)
    }

    @Test func npiFromPositiveNodeCount() throws {
        let result = try assess(
            NPIInputsRecorded(
                npiID: id, tumourSizeCm: 2.2, histologicalGrade: 2, lymphNodeStage: nil, positiveNodes: 2, diagnosisDate: takenAt))
        #expect(result.kind == .nottinghamPrognosticIndex)
        #expect(result.values["npi"] == 4.44)
        #expect(result.category == .nottinghamPrognosticIndex(.moderate))
        #expect(result.severity == .attention)
    }

    @Test("NPI needs exactly one of node stage and node count, and no future date")
    func npiRefusals() {
        #expect(throws: DomainValidationError.self) {
            try AssessmentEngine.assess(
                NPIInputsRecorded(npiID: id, tumourSizeCm: 2, histologicalGrade: 2, lymphNodeStage: 1, positiveNodes: 0, diagnosisDate: takenAt),
                now: now)
        }
        #expect(throws: DomainValidationError.self) {
            try AssessmentEngine.assess(
                NPIInputsRecorded(npiID: id, tumourSizeCm: 2, histologicalGrade: 2, lymphNodeStage: nil, positiveNodes: nil, diagnosisDate: takenAt),
                now: now)
        }
        do {
            _ = try AssessmentEngine.assess(
                NPIInputsRecorded(
                    npiID: id, tumourSizeCm: 2, histologicalGrade: 2, lymphNodeStage: 1, positiveNodes: nil,
                    diagnosisDate: now.addingTimeInterval(86_400)), now: now)
            Issue.record("accepted a diagnosis date in the future")
        } catch {
            #expect(error.issues.map(\.field).contains("/diagnosisDate"))
        }
    }

    @Test("a melanoma profile missing factors names each of them")
    func melanomaMissingFactors() {
        do {
            _ = try AssessmentEngine.assess(
                MelanomaRiskProfileRecorded(profileID: id, answeredAt: takenAt, factors: MelanomaRiskInput(age: 40)), now: now)
            Issue.record("accepted an incomplete profile")
        } catch {
            #expect(error.issues.count == 11)
            #expect(error.issue(for: "/fitzpatrickSkinType") != nil)
        }
    }

    @Test("an exam report is flagged item by item and headed by its worst item; comments travel with the items")
    func examReport() throws {
        let exam = ExamResultRecorded(
            examID: "LAB-1", institutionID: "st-mary", reportedAt: takenAt,
            items: [
                ExamResultLine(code: "718-7", name: "Haemoglobin", value: 13.9, unit: "g/dL", referenceLow: 12, referenceHigh: 15.5),
                ExamResultLine(
                    code: "2345-7", name: "Glucose", value: 450, unit: "mg/dL", referenceLow: 70, referenceHigh: 99, criticalHigh: 400,
                    comment: "repeat"),
            ])
        let result = try assess(exam)
        #expect(result.subjectID == "st-mary/LAB-1")
        #expect(result.category == .examResult(.HH))
        #expect(result.severity == .urgent)
        #expect(result.flaggedItems.map(\.interpretation) == [.N, .HH])
        #expect(result.flaggedItems[1].comment == "repeat")
        #expect(result.values["abnormalItems"] == 1)
    }

    @Test("events that are not assessed give nil")
    func notAssessed() throws {
        #expect(try AssessmentEngine.assess(MeasurementDeleted(measurementID: id, kind: .pulse, deletedAt: now), now: now) == nil)
    }
}
