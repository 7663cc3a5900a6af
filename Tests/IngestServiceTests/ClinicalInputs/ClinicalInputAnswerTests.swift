import CaretideDomain
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// What the clinical-input routes add to the rules: a melanoma profile completed from the patient's profile (age in
/// the profile's own time zone, sex when known), and the answer an app shows at once (`RuleAnswer`).
@Suite struct ClinicalInputAnswerTests {
    /// 2026-06-14T13:00:00Z: already the 15th in Auckland (UTC+12 in June), still the 14th in UTC.
    static let instant = Date(timeIntervalSince1970: 1_781_442_000)
    static let now = Date(timeIntervalSince1970: 1_795_336_200)  // 2026-11-22T08:30:00Z
    static let id = "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"
    /// Born on 15 June 1980: 46 on the 15th, 45 the day before.
    static let profile = PatientProfile(sex: .female, birthDate: LocalDate(year: 1980, month: 6, day: 15), timeZone: "Pacific/Auckland")

    /// The melanoma request schema's own example: every required factor, none of the optional ones.
    static let melanomaBody: JSONValue = .object([
        "age": .number(46), "sex": .string("female"), "fitzpatrickSkinType": .number(2), "eyeColour": .string("blueOrGrey"),
        "hairColour": .string("blond"), "commonMoles": .string("from16To40"), "atypicalMoleCount": .number(1), "freckling": .string("many"),
        "familyHistory": .string("none"), "personalHistory": .string("none"), "immunosuppression": .array([]), "sunburnHistory": .bool(true),
    ])

    @Test("a body without age and sex takes both from the profile: the age on the day it is in the profile's zone")
    func completesBoth() {
        let (body, fromProfile) = ClinicalInputRoutes.completed(.object(["fitzpatrickSkinType": .number(2)]), from: Self.profile, at: Self.instant)
        #expect(body["age"] == .number(46) && body["sex"] == .string("female") && body["fitzpatrickSkinType"] == .number(2))
        #expect(fromProfile == ["age", "sex"])

        var inUTC = Self.profile
        inUTC.timeZone = nil
        #expect(ClinicalInputRoutes.completed(.object([:]), from: inUTC, at: Self.instant).0["age"] == .number(45))
    }

    @Test("what the body gives is kept: only the missing factor is taken, and named")
    func keepsWhatIsGiven() {
        let (body, fromProfile) = ClinicalInputRoutes.completed(.object(["sex": .string("male")]), from: Self.profile, at: Self.instant)
        #expect(body["sex"] == .string("male") && body["age"] == .number(46) && fromProfile == ["age"])

        let complete: JSONValue = .object(["age": .number(30), "sex": .string("male")])
        #expect(!ClinicalInputRoutes.lacksProfileFactors(complete))
        #expect(ClinicalInputRoutes.lacksProfileFactors(.object(["age": .number(30)])))
        let untouched = ClinicalInputRoutes.completed(complete, from: Self.profile, at: Self.instant)
        #expect(untouched.0 == complete && untouched.1 == nil)
    }

    @Test("no profile, or one that knows neither a date of birth nor a sex (unknown gives none), leaves the body for the rule to refuse")
    func nothingToTake() {
        let body: JSONValue = .object(["fitzpatrickSkinType": .number(2)])
        let none = ClinicalInputRoutes.completed(body, from: nil, at: Self.instant)
        #expect(none.0 == body && none.1 == nil)
        let unknown = ClinicalInputRoutes.completed(body, from: PatientProfile(sex: .unknown), at: Self.instant)
        #expect(unknown.0 == body && unknown.1 == nil)
        let onlySex = ClinicalInputRoutes.completed(body, from: PatientProfile(sex: .male), at: Self.instant)
        #expect(onlySex.0["age"] == nil && onlySex.0["sex"] == .string("male") && onlySex.1 == ["sex"])
    }

    @Test("an NPI's payload carries its id and revision; its answer the index, group, 5-year survival and the group's curve")
    func npiAnswer() throws {
        let body: JSONValue = .object([
            "tumourSizeCm": .number(2.2), "histologicalGrade": .number(2), "positiveNodes": .number(2),
            "diagnosisDate": .string("2026-10-01T00:00:00Z"),
        ])
        let decoded = try ClinicalInputRoutes.npi.decode(body, Self.id)
        // A correction is the same request as the next revision: only the event's revision differs.
        let third = try #require(decoded.revised(3).event as? NPIInputsRecorded)
        #expect(third.npiID == UUID(uuidString: Self.id) && third.revision == 3 && third.tumourSizeCm == 2.2 && third.positiveNodes == 2)
        #expect((decoded.event as? NPIInputsRecorded)?.revision == 1 && decoded.recordID == Self.id && decoded.namedID == nil)
        let answer = try ClinicalInputRoutes.answer(try decoded.rule(Self.now), body: body)
        #expect(answer.kind == .nottinghamPrognosticIndex && answer.category == "moderate" && answer.severity == .attention)
        #expect(answer.values == ["npi": 4.44, "lymphNodeStage": 2, "fiveYearSurvivalPercent": 70])
        let curve = try NottinghamPrognosticIndex.survivalCurve(for: .moderate)
        #expect(answer.survivalCurve == curve)
        #expect(answer.survivalCurve?.last?.monthsSinceDiagnosis == 60 && answer.survivalCurve?.last?.survivalProbability == 0.7)
        #expect(answer.unansweredFactors == nil && answer.fromProfile == nil)
    }

    @Test("a melanoma answer names the optional factors left out, which carried no weight, and those the profile gave")
    func melanomaAnswer() throws {
        let decoded = try ClinicalInputRoutes.melanomaRiskProfile.decode(Self.melanomaBody, Self.id)
        let answer = try ClinicalInputRoutes.answer(try decoded.rule(Self.now), body: Self.melanomaBody, fromProfile: ["age"])
        let expected = try MelanomaRisk.assess(try JSONValueDecoder.decode(MelanomaRiskInput.self, from: Self.melanomaBody))
        #expect(answer.kind == .melanomaRisk && answer.category == expected.category.rawValue)
        #expect(answer.unansweredFactors == ["inflammatoryBowelDisease", "bodyMassIndex", "intermittentSunExposure", "sunbedUse"])
        #expect(answer.fromProfile == ["age"] && answer.survivalCurve == nil)

        let fuller = Self.melanomaBody.merging(["bodyMassIndex": .number(23.5), "sunbedUse": .string("never")])
        let partly = try ClinicalInputRoutes.melanomaRiskProfile.decode(fuller, Self.id)
        let answered = try ClinicalInputRoutes.answer(try partly.rule(Self.now), body: fuller)
        #expect(answered.unansweredFactors == ["inflammatoryBowelDisease", "intermittentSunExposure"] && answered.fromProfile == nil)
    }

    @Test("a kind whose rule answers nothing is a server error, never an empty answer")
    func noAssessment() {
        #expect(throws: (any Error).self) { try ClinicalInputRoutes.answer(nil, body: Self.melanomaBody) }
    }
}
