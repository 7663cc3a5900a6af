import CaretideDomain
import Foundation
import Testing

@Suite("Texts as data, rule-set version")
struct TipsAndVersionTests {
    @Test("Every tip key has a non-empty English text")
    func tipsComplete() {
        #expect(Tips.english.count == TipKey.allCases.count)
        for key in TipKey.allCases {
            let text = Tips.english[key] ?? ""
            #expect(!text.isEmpty, "missing text for \(key.rawValue)")
            #expect(text.hasSuffix("."), "\(key.rawValue) should be a full sentence")
        }
        #expect(Set(TipKey.allCases.map(\.rawValue)).count == TipKey.allCases.count)
    }

    func labelKeys<C: LabelledCategory>(_ type: C.Type) -> [String] { C.allCases.map(\.labelKey) }

    @Test("Every category case has exactly one English label")
    func labelsComplete() {
        let keys =
            labelKeys(Severity.self) + labelKeys(BloodPressureCategory.self) + labelKeys(PulseCategory.self)
            + labelKeys(BodyMassIndexCategory.self) + labelKeys(GlucoseCategory.self)
            + labelKeys(TotalCholesterolCategory.self) + labelKeys(LDLCholesterolCategory.self)
            + labelKeys(HDLCholesterolCategory.self) + labelKeys(TriglycerideCategory.self)
            + labelKeys(NPIPrognosticGroup.self) + labelKeys(MelanomaRiskCategory.self) + labelKeys(LesionPhotoCategory.self)
            + labelKeys(InterpretationCode.self)
            + labelKeys(UVIndexCategory.self) + labelKeys(AirQualityCategory.self)
        for key in keys { #expect(Tips.categoryLabelsEnglish[key]?.isEmpty == false, "missing label \(key)") }
        #expect(Set(keys) == Set(Tips.categoryLabelsEnglish.keys))
        #expect(Tips.label(for: BloodPressureCategory.stage1Hypertension) == "High blood pressure (stage 1)")
    }

    @Test("Lookup falls back to English for a partial translation")
    func fallback() {
        let partialGerman: [TipKey: String] = [.pulseNormal: "Ihr Ruhepuls liegt im Normalbereich."]
        #expect(Tips.text(for: .pulseNormal, in: partialGerman) == "Ihr Ruhepuls liegt im Normalbereich.")
        #expect(Tips.text(for: .bmiNormal, in: partialGerman) == Tips.english[.bmiNormal])
        #expect(Tips.label(for: Severity.urgent, in: ["severity.urgent": "Dringend"]) == "Dringend")
        #expect(Tips.label(for: Severity.normal, in: [:]) == "Normal")
    }

    @Test("Rule-set version is a single dotted version recorded by every assessment")
    func version() throws {
        #expect(RuleSetVersion.current == "2026.11.4")
        let versions: [String] = [
            try BloodPressure.assess(systolic: 120, diastolic: 80).ruleSetVersion,
            try Pulse.assess(restingBeatsPerMinute: 70).ruleSetVersion,
            try BodyMassIndex.assess(weightKg: 70, heightCm: 170).ruleSetVersion,
            try Glucose.assess(value: 90, unit: .mgPerDL, context: .fasting).ruleSetVersion,
            try Glucose.assessHbA1c(percent: 5.0).ruleSetVersion,
            try Lipids.assess(LipidPanelInput(totalCholesterol: 180, unit: .mgPerDL)).ruleSetVersion,
            try Lipids.assessTriglycerides(100, unit: .mgPerDL).ruleSetVersion,
            try NottinghamPrognosticIndex.assess(
                NottinghamPrognosticIndexInput(tumourSizeCm: 1, histologicalGrade: 1, lymphNodes: .stage(1), diagnosisDate: referenceNow),
                now: referenceNow
            ).ruleSetVersion,
            try MelanomaRisk.assess(lowestRiskMelanomaInput).ruleSetVersion,
            try ReferenceRangeFlag.flag(
                ExamResultItem(code: "x", value: 1, unit: "u", referenceRange: ReferenceRange(low: 0, high: 2))
            ).ruleSetVersion,
        ]
        #expect(versions.allSatisfy { $0 == RuleSetVersion.current })
    }

    @Test("Validation errors are Equatable and Codable")
    func errorValue() throws {
        let error = DomainValidationError(issues: [FieldIssue(field: "/a", message: "m", allowedRange: "1...2")])
        #expect(try JSONDecoder().decode(DomainValidationError.self, from: JSONEncoder().encode(error)) == error)
        #expect(error != DomainValidationError(issues: []))
    }
}
