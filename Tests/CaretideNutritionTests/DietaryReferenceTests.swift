import CaretideDomain
import CaretideNutrition
import Testing

@Suite("Reference values")
struct DietaryReferenceTests {
    @Test("WHO limits and the salt factor")
    func limits() {
        let sodium: Double = DietaryReference.sodiumLimitMg
        #expect(sodium == 2000)
        #expect(DietaryReference.freeSugarsMaximumShare == 0.10)
        #expect(DietaryReference.saturatedFatMaximumShare == 0.10)
        #expect(DietaryReference.saltPerSodium == 2.5)
    }

    /// DGA 2020–2025, Table A2-2, "Moderately Active": each age where a value changes, the age before it, and the ends.
    static let energyCases: [(Sex, Int, Double?)] = [
        // Males
        (Sex.male, 1, nil), (.male, 2, 1000), (.male, 3, 1400), (.male, 5, 1400), (.male, 6, 1600), (.male, 8, 1600),
        (.male, 9, 1800), (.male, 10, 1800), (.male, 11, 2000), (.male, 12, 2200), (.male, 13, 2200), (.male, 14, 2400),
        (.male, 15, 2600), (.male, 16, 2800), (.male, 18, 2800), (.male, 19, 2800), (.male, 20, 2800), (.male, 21, 2800),
        (.male, 25, 2800), (.male, 26, 2600), (.male, 30, 2600), (.male, 45, 2600), (.male, 46, 2400), (.male, 50, 2400),
        (.male, 51, 2400), (.male, 65, 2400), (.male, 66, 2200), (.male, 75, 2200), (.male, 76, 2200), (.male, 120, 2200),
        (.male, 121, nil),
        // Females
        (.female, 1, nil), (.female, 2, 1000), (.female, 3, 1200), (.female, 4, 1400), (.female, 6, 1400), (.female, 7, 1600),
        (.female, 9, 1600), (.female, 10, 1800), (.female, 11, 1800), (.female, 12, 2000), (.female, 18, 2000),
        (.female, 19, 2200), (.female, 20, 2200), (.female, 21, 2200), (.female, 25, 2200), (.female, 26, 2000),
        (.female, 30, 2000), (.female, 50, 2000), (.female, 51, 1800), (.female, 76, 1800), (.female, 120, 1800),
        (.female, 121, nil),
    ]

    @Test("Energy: every change of the moderately active column, both sexes", arguments: DietaryReferenceTests.energyCases)
    func energy(sex: Sex, age: Int, kcal: Double?) {
        #expect(DietaryReference.energyKcal(sex: sex, age: age) == kcal)
    }

    static let proteinCases: [(Sex, Int, Double?)] = [
        (Sex.male, 0, nil), (.female, 0, nil), (.male, 1, 13), (.female, 1, 13), (.male, 3, 13), (.female, 3, 13), (.male, 4, 19),
        (.female, 4, 19), (.male, 8, 19), (.female, 8, 19), (.male, 9, 34), (.female, 9, 34), (.male, 13, 34), (.female, 13, 34),
        (.male, 14, 52), (.female, 14, 46), (.male, 18, 52), (.female, 18, 46), (.male, 19, 56), (.female, 19, 46),
        (.male, 70, 56), (.female, 71, 46),
    ]

    @Test("Protein RDA at each age boundary", arguments: DietaryReferenceTests.proteinCases)
    func protein(sex: Sex, age: Int, grams: Double?) {
        #expect(DietaryReference.proteinG(sex: sex, age: age) == grams)
    }

    /// WHO 2012: the adult limit for ages 16 and up; for 2–15, scaled by energy needs relative to a 30-year-old's
    /// (2,600 kcal male, 2,000 kcal female).
    @Test("Sodium: the adult limit, scaled down for children")
    func sodium() {
        func limit(_ sex: Sex?, _ age: Int?) -> Double { DietaryReference.sodiumLimitMg(sex: sex, age: age) }
        #expect(limit(nil, nil) == 2000)
        #expect(limit(.male, nil) == 2000)
        #expect(limit(.female, 30) == 2000)
        #expect(limit(.male, 16) == 2000)
        #expect(limit(.female, 16) == 2000)
        #expect(limit(nil, 16) == 2000)
        #expect(limit(.male, 15) == 2000.0 * 2600 / 2600)
        #expect(limit(.male, 14) == 2000.0 * 2400 / 2600)
        #expect(limit(.male, 10) == 2000.0 * 1800 / 2600)
        #expect(limit(.female, 10) == 2000.0 * 1800 / 2000)
        #expect(limit(.female, 11) == 2000.0 * 1800 / 2000)
        #expect(limit(.female, 12) == 2000.0 * 2000 / 2000)
        #expect(limit(.male, 2) == 2000.0 * 1000 / 2600)
        #expect(limit(.female, 2) == 2000.0 * 1000 / 2000)
        // Under 2 (outside the guideline): the 2-year-old's limit.
        #expect(limit(.male, 1) == limit(.male, 2))
        #expect(limit(.female, 0) == limit(.female, 2))
        // A child of unknown sex: the lower of the two.
        #expect(limit(nil, 10) == 2000.0 * 1800 / 2600)
        #expect(limit(nil, 2) == min(limit(.male, 2), limit(.female, 2)))
    }
}
