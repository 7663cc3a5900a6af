import CaretideDomain
import CaretideSchemas
import Foundation
import Testing

/// An assessment's category is its rule's typed value from the rule to the alert: every word of every kind's rule
/// reads back as itself, a word the kind's rule does not have is refused, and on the wire it is the rule's word.
@Suite struct AssessmentCategoryTests {
    /// Every category each kind's rule can give, listed from the domain's own enums.
    static let all: [AssessmentCategory] =
        BloodPressureCategory.allCases.map(AssessmentCategory.bloodPressure) + PulseCategory.allCases.map(AssessmentCategory.pulse)
        + BodyMassIndexCategory.allCases.map(AssessmentCategory.bodyMassIndex) + GlucoseCategory.allCases.map(AssessmentCategory.glucose)
        + GlucoseCategory.allCases.map(AssessmentCategory.hba1c)
        + (TotalCholesterolCategory.allCases.map(LipidPanelCategory.init) + LDLCholesterolCategory.allCases.map(LipidPanelCategory.init)
        + HDLCholesterolCategory.allCases.map(LipidPanelCategory.init) + TriglycerideCategory.allCases.map(LipidPanelCategory.init))
        .map(AssessmentCategory.lipids)
        + NPIPrognosticGroup.allCases.map(AssessmentCategory.nottinghamPrognosticIndex)
        + MelanomaRiskCategory.allCases.map(AssessmentCategory.melanomaRisk) + InterpretationCode.allCases.map(AssessmentCategory.examResult)
        + LesionPhotoCategory.allCases.map(AssessmentCategory.lesionPhoto)

    @Test("every category reads back from its kind and word, and names its alert's message key")
    func roundTrip() {
        #expect(Set(Self.all.map(\.kind)) == Set(AssessmentKind.allCases))
        for category in Self.all {
            #expect(AssessmentCategory(kind: category.kind, rawValue: category.rawValue) == category)
            #expect(AlertTopic.assessment(category).messageKey == "alert.\(category.kind.rawValue).\(category.rawValue)")
        }
    }

    @Test("the lipid panel's vocabulary is exactly the four measures' words")
    func lipidVocabulary() {
        let words = Set(
            TotalCholesterolCategory.allCases.map(\.rawValue) + LDLCholesterolCategory.allCases.map(\.rawValue)
                + HDLCholesterolCategory.allCases.map(\.rawValue) + TriglycerideCategory.allCases.map(\.rawValue))
        #expect(Set(LipidPanelCategory.allCases.map(\.rawValue)) == words)
    }

    @Test("a word another kind's rule has, or no rule has, is not a category of this kind")
    func foreignWords() {
        #expect(AssessmentCategory(kind: .bloodPressure, rawValue: "higher") == nil)
        #expect(AssessmentCategory(kind: .melanomaRisk, rawValue: "stage2Hypertension") == nil)
        #expect(AssessmentCategory(kind: .examResult, rawValue: "notACategory") == nil)
    }

    @Test("assessment.recorded carries the rule's word, and an event whose word its kind lacks is refused with the reason")
    func wire() throws {
        let event = EventEnvelope(
            producer: "scoring-service", patientID: "p1", traceID: nil,
            payload: AssessmentRecorded(
                assessmentID: UUID(), sourceEventID: UUID(), subjectID: "m-1", category: .glucose(.prediabetes), severity: .attention,
                tip: "glucose.prediabetes", ruleSetVersion: "2026.11.1", observedAt: Date(timeIntervalSince1970: 1_800_000_000),
                supersedes: nil, values: ["value": 110]))
        let bytes = try EventCodec().encode(event)
        let document = try CaretideJSON.parse(bytes)
        #expect(document["payload"]?["kind"]?.stringValue == "glucose")
        #expect(document["payload"]?["category"]?.stringValue == "prediabetes")
        #expect(try EventCodec().decode(bytes).payload(AssessmentRecorded.self).category == .glucose(.prediabetes))

        let foreign = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\"prediabetes\"", with: "\"higher\"")
        #expect {
            try EventCodec().decode(Array(foreign.utf8))
        } throws: { error in
            (error as? EventRejection)?.reason == "payload does not decode as assessment.recorded"
        }
    }
}
