import CaretideDomain
import Foundation
import PropertyBased
import Testing

/// Everyone at the reference level of every factor.
let lowestRiskMelanomaInput = MelanomaRiskInput(
    age: 40, sex: .female, fitzpatrickSkinType: 4, eyeColour: .brownOrBlack, hairColour: .darkBrownOrBlack,
    commonMoles: .upTo15, atypicalMoleCount: 0, freckling: .noneOrFew, familyHistory: MelanomaFamilyHistory.none,
    personalHistory: PersonalSkinCancerHistory.none, immunosuppression: [], sunburnHistory: false)

@Suite("Melanoma risk profile")
struct MelanomaRiskTests {
    @Test("Reference profile scores 0, lower category, 6-monthly self-examination; the optional factors it leaves out are named")
    func reference() throws {
        let profile = try MelanomaRisk.assess(lowestRiskMelanomaInput)
        #expect(profile.score == 0)
        #expect(profile.category == .lower)
        #expect(profile.selfExaminationIntervalMonths == 6)
        #expect(profile.unansweredFactors == [.inflammatoryBowelDisease, .bodyMassIndex, .intermittentSunExposure, .sunbedUse])
        var answered = lowestRiskMelanomaInput
        answered.inflammatoryBowelDisease = InflammatoryBowelDisease.none
        answered.bodyMassIndex = 22
        answered.intermittentSunExposure = false
        answered.sunbedUse = .never
        let complete = try MelanomaRisk.assess(answered)
        #expect(complete.unansweredFactors.isEmpty && complete.score == 0 && complete.raisingFactors.isEmpty)
        #expect(profile.professionalSkinCheckAdvised == false)
        #expect(profile.raisingFactors.isEmpty)
        #expect(profile.tip == .melanomaLower)
        #expect(profile.ruleSetVersion == RuleSetVersion.current)
    }

    @Test("Worked examples (score = whole doublings of the combined RR)")
    func workedExamples() throws {
        // Fair: skin II 1.63 × blue 1.47 × light brown 1.49 × 16–40 moles 1.47 × sunburn 2.03 ≈ 10.66 → log2 3.41 → 3.
        var fair = lowestRiskMelanomaInput
        fair.fitzpatrickSkinType = 2
        fair.eyeColour = .blueOrGrey
        fair.hairColour = .lightBrown
        fair.commonMoles = .from16To40
        fair.sunburnHistory = true
        let fairProfile = try MelanomaRisk.assess(fair)
        #expect(fairProfile.score == 3)
        #expect(fairProfile.category == .medium)
        #expect(fairProfile.selfExaminationIntervalMonths == 1)
        #expect(fairProfile.raisingFactors == [.fitzpatrickSkinType, .eyeColour, .hairColour, .commonMoles, .sunburnHistory])

        // Red hair 3.64 × skin I 2.09 × many freckles 2.10 × sunburn 2.03 ≈ 32.4 → log2 5.02 → 5 → higher.
        var celtic = lowestRiskMelanomaInput
        celtic.hairColour = .red
        celtic.fitzpatrickSkinType = 1
        celtic.freckling = .many
        celtic.sunburnHistory = true
        let celticProfile = try MelanomaRisk.assess(celtic)
        #expect(celticProfile.score == 5)
        #expect(celticProfile.category == .higher)
        #expect(celticProfile.professionalSkinCheckAdvised)
        #expect(celticProfile.tip == .melanomaHigher)

        // One first-degree relative alone: 1.74 → 0 doublings → lower.
        var family = lowestRiskMelanomaInput
        family.familyHistory = .oneFirstDegreeRelative
        #expect(try MelanomaRisk.assess(family).score == 0)
        // Two relatives: 3.03 → 1 → still lower.
        family.familyHistory = .moreThanOneFirstDegreeRelative
        #expect(try MelanomaRisk.assess(family).score == 1)
        #expect(try MelanomaRisk.assess(family).category == .lower)

        // Five or more atypical moles: 6.36 → 2 → medium; 40 atypical moles is not extrapolated.
        var atypical = lowestRiskMelanomaInput
        atypical.atypicalMoleCount = 5
        #expect(try MelanomaRisk.assess(atypical).score == 2)
        atypical.atypicalMoleCount = 40
        #expect(try MelanomaRisk.assess(atypical).score == 2)
        #expect(try MelanomaRisk.assess(atypical).category == .medium)

        // Several reasons for immunosuppression: the largest RR counts once (2.71 → 1).
        var immuno = lowestRiskMelanomaInput
        immuno.immunosuppression = [.hiv, .organTransplant, .immunosuppressiveTreatment]
        #expect(try MelanomaRisk.assess(immuno).score == 1)
        #expect(try MelanomaRisk.assess(immuno).raisingFactors == [.immunosuppression])
    }

    @Test("Personal history of melanoma always gives the higher category")
    func personalMelanoma() throws {
        var input = lowestRiskMelanomaInput
        input.personalHistory = .melanoma
        let profile = try MelanomaRisk.assess(input)
        #expect(profile.score == 2)  // 4.28 → 2 doublings
        #expect(profile.category == .higher)
        input.personalHistory = .otherSkinCancer
        #expect(try MelanomaRisk.assess(input).category == .medium)
    }

    @Test("Score is an integer capped at 10")
    func cap() throws {
        let everything = MelanomaRiskInput(
            age: 70, sex: .male, fitzpatrickSkinType: 1, eyeColour: .blueOrGrey, hairColour: .red, commonMoles: .over100,
            atypicalMoleCount: 9, freckling: .many, familyHistory: .moreThanOneFirstDegreeRelative,
            personalHistory: .melanoma, immunosuppression: [.organTransplant], sunburnHistory: true)
        let profile = try MelanomaRisk.assess(everything)
        #expect(profile.score == 10)
        #expect(profile.category == .higher)
        #expect(profile.raisingFactors.count == 10)
    }

    @Test("Category cut-offs on the score: 0–1 lower, 2–4 medium, 5–10 higher")
    func cutoffs() throws {
        // Build inputs with a known number of doublings using the (published) sunburn 2.03 and skin type I 2.09.
        var oneDoubling = lowestRiskMelanomaInput
        oneDoubling.sunburnHistory = true  // 2.03 → 1
        #expect(try MelanomaRisk.assess(oneDoubling).category == .lower)
        var fourDoublings = oneDoubling
        fourDoublings.fitzpatrickSkinType = 1  // 4.24 → 2
        fourDoublings.freckling = .many  // 8.91 → 3
        fourDoublings.eyeColour = .blueOrGrey  // 13.1 → 3
        fourDoublings.hairColour = .blond  // 24.1 → 4
        let four = try MelanomaRisk.assess(fourDoublings)
        #expect(four.score == 4)
        #expect(four.category == .medium)
        fourDoublings.commonMoles = .from16To40  // 35.4 → 5
        #expect(try MelanomaRisk.assess(fourDoublings).score == 5)
        #expect(try MelanomaRisk.assess(fourDoublings).category == .higher)
    }

    @Test("Every missing factor is named")
    func missing() throws {
        let error = try #require(validationError { try MelanomaRisk.assess(MelanomaRiskInput()) })
        #expect(
            error.fields == [
                "/age", "/sex", "/fitzpatrickSkinType", "/eyeColour", "/hairColour", "/commonMoles", "/atypicalMoleCount",
                "/freckling", "/familyHistory", "/personalHistory", "/immunosuppression", "/sunburnHistory",
            ])
        #expect(error.issues.allSatisfy { $0.message == "is required" && $0.allowedRange != nil })
        var oneMissing = lowestRiskMelanomaInput
        oneMissing.hairColour = nil
        let single = try #require(validationError { try MelanomaRisk.assess(oneMissing) })
        #expect(
            single.issues == [
                FieldIssue(field: "/hairColour", message: "is required", allowedRange: "one of: red, blond, lightBrown, darkBrownOrBlack")
            ])
    }

    @Test("A child is refused with the reason, at every age below 18; 18 is scored")
    func children() throws {
        var input = lowestRiskMelanomaInput
        for age in [0, 9, 17] {
            input.age = age
            let error = try #require(validationError { try MelanomaRisk.assess(input) })
            #expect(error.fields == ["/age"])
            #expect(error.issue(for: "/age")?.message.contains("for adults") == true)
            #expect(error.issue(for: "/age")?.allowedRange == "18...120 years")
        }
        input.age = 18
        #expect(try MelanomaRisk.assess(input).category == .lower)
        input.age = -1
        #expect(validationError { try MelanomaRisk.assess(input) }?.issue(for: "/age")?.message == "is outside the plausible range")
    }

    @Test("Implausible values name field and allowed range")
    func implausible() throws {
        var input = lowestRiskMelanomaInput
        input.age = 9999
        input.fitzpatrickSkinType = 7
        input.atypicalMoleCount = -1
        let error = try #require(validationError { try MelanomaRisk.assess(input) })
        #expect(error.fields == ["/age", "/fitzpatrickSkinType", "/atypicalMoleCount"])
        #expect(error.issue(for: "/age")?.allowedRange == "18...120 years")
        #expect(error.issue(for: "/fitzpatrickSkinType")?.allowedRange == "1...6")
        #expect(error.issue(for: "/atypicalMoleCount")?.allowedRange == "0...100")
        input = lowestRiskMelanomaInput
        input.fitzpatrickSkinType = 0
        #expect(validationError { try MelanomaRisk.assess(input) }?.fields == ["/fitzpatrickSkinType"])
    }

    @Test("Weight table: published values, completeness, never below 1")
    func weights() {
        let published: [(MelanomaRiskFactor, String, Double)] = [
            (.commonMoles, "over100", 6.89), (.atypicalMoleCount, "5+", 6.36), (.fitzpatrickSkinType, "1", 2.09),
            (.freckling, "many", 2.10), (.eyeColour, "blueOrGrey", 1.47), (.hairColour, "red", 3.64),
            (.hairColour, "blond", 1.84), (.hairColour, "lightBrown", 1.49),
            (.familyHistory, "oneFirstDegreeRelative", 1.74), (.personalHistory, "otherSkinCancer", 4.28),
            (.immunosuppression, "organTransplant", 2.71), (.immunosuppression, "hiv", 1.50), (.sunburnHistory, "yes", 2.03),
            (.inflammatoryBowelDisease, "crohnsDisease", 1.80), (.inflammatoryBowelDisease, "ulcerativeColitis", 1.23),
            (.inflammatoryBowelDisease, "unclassified", 1.37), (.bodyMassIndex, "male.overweight", 1.31), (.bodyMassIndex, "male.obese", 1.31),
            (.intermittentSunExposure, "yes", 1.61), (.sunbedUse, "ever", 1.20), (.sunbedUse, "firstBeforeAge35", 1.87),
        ]
        for (factor, level, rr) in published {
            #expect(MelanomaRisk.relativeRisk(factor, level: level) == rr, "\(factor).\(level)")
        }
        var levels: [(MelanomaRiskFactor, String)] = []
        levels += (1...6).map { (.fitzpatrickSkinType, String($0)) }
        levels += EyeColour.allCases.map { (.eyeColour, $0.rawValue) }
        levels += HairColour.allCases.map { (.hairColour, $0.rawValue) }
        levels += CommonMoleBand.allCases.map { (.commonMoles, $0.rawValue) }
        levels += ["0", "1", "2", "3", "4", "5+"].map { (.atypicalMoleCount, $0) }
        levels += FrecklingDensity.allCases.map { (.freckling, $0.rawValue) }
        levels += MelanomaFamilyHistory.allCases.map { (.familyHistory, $0.rawValue) }
        levels += PersonalSkinCancerHistory.allCases.map { (.personalHistory, $0.rawValue) }
        levels += (["none"] + ImmunosuppressionKind.allCases.map(\.rawValue)).map { (.immunosuppression, $0) }
        levels += [(.sunburnHistory, "yes"), (.sunburnHistory, "no"), (.age, "any"), (.sex, "any")]
        levels += (InflammatoryBowelDisease.allCases.map(\.rawValue) + ["notAnswered"]).map { (.inflammatoryBowelDisease, $0) }
        levels += ["below25", "notAnswered"].map { (.bodyMassIndex, $0) }
        levels += AdministrativeSex.allCases.flatMap { sex in ["overweight", "obese"].map { (.bodyMassIndex, "\(sex.rawValue).\($0)") } }
        levels += ["yes", "no", "notAnswered"].map { (.intermittentSunExposure, $0) }
        levels += (SunbedUse.allCases.map(\.rawValue) + ["notAnswered"]).map { (.sunbedUse, $0) }
        for (factor, level) in levels {
            #expect(MelanomaRisk.relativeRisk(factor, level: level) != nil, "missing weight \(factor).\(level)")
        }
        #expect(levels.count == MelanomaRisk.weights.count)
        #expect(MelanomaRisk.weights.allSatisfy { $0.relativeRisk >= 1 && !$0.source.isEmpty })
        // Ordered factors have non-decreasing weights.
        let moles = CommonMoleBand.allCases.compactMap { MelanomaRisk.relativeRisk(.commonMoles, level: $0.rawValue) }
        #expect(moles == moles.sorted())
        let atypical = ["0", "1", "2", "3", "4", "5+"].compactMap { MelanomaRisk.relativeRisk(.atypicalMoleCount, level: $0) }
        #expect(atypical == atypical.sorted())
    }

    @Test("Body-mass index: WHO classes at 25.0 and 30.0, weighted for men only; sex other accepted and not guessed; 10–80 kg/m²")
    func bodyMassIndex() throws {
        func assessed(_ bmi: Double, _ sex: AdministrativeSex) throws -> MelanomaRiskProfile {
            var input = lowestRiskMelanomaInput
            input.sex = sex
            input.bodyMassIndex = bmi
            // Two first-degree relatives (3.03): one more factor of 1.31 crosses a doubling (3.97 stays below 4).
            input.familyHistory = .moreThanOneFirstDegreeRelative
            return try MelanomaRisk.assess(input)
        }
        #expect(BodyMassIndexClass(24.99) == .below25)
        #expect(BodyMassIndexClass(25.0) == .overweight)
        #expect(BodyMassIndexClass(29.99) == .overweight)
        #expect(BodyMassIndexClass(30.0) == .obese)
        #expect(try assessed(24.9, .male).raisingFactors == [.familyHistory])
        #expect(try assessed(25.0, .male).raisingFactors == [.familyHistory, .bodyMassIndex])
        #expect(try assessed(30.0, .male).raisingFactors == [.familyHistory, .bodyMassIndex])
        // 3.03 × 1.31 = 3.97: still one doubling; the weight shows in the raising factors, not yet in the score.
        #expect(try assessed(30.0, .male).score == 1)
        for sex in [AdministrativeSex.female, .other] {
            #expect(try assessed(35, sex).raisingFactors == [.familyHistory], "\(sex)")
        }
        for bmi in [9.9, 80.1, .nan] {
            var input = lowestRiskMelanomaInput
            input.bodyMassIndex = bmi
            #expect(validationError { try MelanomaRisk.assess(input) }?.fields == ["/bodyMassIndex"], "\(bmi)")
        }
        var edge = lowestRiskMelanomaInput
        edge.bodyMassIndex = 10
        #expect(try MelanomaRisk.assess(edge).unansweredFactors == [.inflammatoryBowelDisease, .intermittentSunExposure, .sunbedUse])
        edge.bodyMassIndex = 80
        #expect(try MelanomaRisk.assess(edge).score == 0)
    }

    @Test("Inflammatory bowel disease, intermittent sun and sunbeds: each level's weight moves the score as the table says")
    func sunAndBowel() throws {
        // Sunburn 2.03 alone is one doubling; × 1.61 (intermittent sun) = 3.27, still one; × 1.23 (ulcerative
        // colitis) = 4.02, two doublings: medium.
        var input = lowestRiskMelanomaInput
        input.sunburnHistory = true
        #expect(try MelanomaRisk.assess(input).score == 1)
        input.intermittentSunExposure = true
        #expect(try MelanomaRisk.assess(input).score == 1)
        input.inflammatoryBowelDisease = .ulcerativeColitis
        let medium = try MelanomaRisk.assess(input)
        #expect(medium.score == 2 && medium.category == .medium && medium.selfExaminationIntervalMonths == 1)
        #expect(medium.raisingFactors == [.sunburnHistory, .inflammatoryBowelDisease, .intermittentSunExposure])
        // Crohn's 1.80 × sunbeds before 35 1.87 = 3.37 → 1; with ever-use instead (1.20): 2.16 → 1; with neither: 0.
        var bowel = lowestRiskMelanomaInput
        bowel.inflammatoryBowelDisease = .crohnsDisease
        #expect(try MelanomaRisk.assess(bowel).score == 0)
        bowel.sunbedUse = .ever
        #expect(try MelanomaRisk.assess(bowel).score == 1)
        bowel.sunbedUse = .firstBeforeAge35
        #expect(try MelanomaRisk.assess(bowel).score == 1)
        #expect(try MelanomaRisk.assess(bowel).raisingFactors == [.inflammatoryBowelDisease, .sunbedUse])
    }

    // MARK: Property: adding a risk factor never lowers the score

    /// A random valid input, built from 12 random integers.
    static let inputGenerator = Gen.int(in: 0...1_000).array(of: 12).map { r in
        MelanomaRiskInput(
            age: 18 + r[0] % 103,
            sex: AdministrativeSex.allCases[r[1] % 3],
            fitzpatrickSkinType: 1 + r[2] % 6,
            eyeColour: EyeColour.allCases[r[3] % EyeColour.allCases.count],
            hairColour: HairColour.allCases[r[4] % HairColour.allCases.count],
            commonMoles: CommonMoleBand.allCases[r[5] % CommonMoleBand.allCases.count],
            atypicalMoleCount: r[6] % 9,
            freckling: FrecklingDensity.allCases[r[7] % 2],
            familyHistory: MelanomaFamilyHistory.allCases[r[8] % 3],
            personalHistory: PersonalSkinCancerHistory.allCases[r[9] % 3],
            immunosuppression: Set(ImmunosuppressionKind.allCases.filter { _ in r[10] % 2 == 0 }.prefix(r[10] % 4)),
            sunburnHistory: r[11] % 2 == 0)
    }

    /// Sets one factor to the level with the highest relative risk ("adds" that risk factor).
    static func withRiskFactorAdded(_ input: MelanomaRiskInput, factorIndex: Int) -> MelanomaRiskInput {
        var result = input
        switch factorIndex {
        case 0: result.fitzpatrickSkinType = 1
        case 1: result.eyeColour = .blueOrGrey
        case 2: result.hairColour = .red
        case 3: result.commonMoles = .over100
        case 4: result.atypicalMoleCount = (input.atypicalMoleCount ?? 0) + 1
        case 5: result.freckling = .many
        case 6: result.familyHistory = .moreThanOneFirstDegreeRelative
        case 7: result.personalHistory = input.personalHistory == .melanoma ? .melanoma : .otherSkinCancer
        case 8: result.immunosuppression = (input.immunosuppression ?? []).union([.hiv])
        default: result.sunburnHistory = true
        }
        return result
    }

    @Test("Property: adding a risk factor never lowers the score or the category")
    func monotonic() async {
        await propertyCheck(count: 500, input: Self.inputGenerator, Gen.int(in: 0...9)) { input, factorIndex in
            let base = try MelanomaRisk.assess(input)
            let added = try MelanomaRisk.assess(Self.withRiskFactorAdded(input, factorIndex: factorIndex))
            #expect(added.score >= base.score, "factor #\(factorIndex)")
            #expect(added.category >= base.category, "factor #\(factorIndex)")
            #expect((0...10).contains(added.score))
        }
    }

    @Test("Property: adding every risk factor one by one is monotone all the way up")
    func monotoneChain() async {
        await propertyCheck(count: 200, input: Self.inputGenerator) { input in
            var current = input
            var previous = try MelanomaRisk.assess(current)
            for factorIndex in 0...9 {
                current = Self.withRiskFactorAdded(current, factorIndex: factorIndex)
                let next = try MelanomaRisk.assess(current)
                #expect(next.score >= previous.score)
                previous = next
            }
            #expect(previous.category == .higher)
        }
    }
}
