public import CaretideDomain

/// The reference values a day's food is compared with, each with its source.
///
/// Limits come from the WHO guidelines (sodium, free sugars, saturated fat). The intakes a person needs (energy,
/// protein) come from the US tables: one table indexed by age and sex alone (EFSA's reference values need body weight
/// and physical activity level as well, which Caretide does not record), public domain, and from the same government
/// as the food table (USDA SR28).
public enum DietaryReference {
    /// Sodium, mg/day: adults should eat **less than** 2 g of sodium (5 g of salt) a day.
    ///
    /// Source: WHO. *Guideline: Sodium intake for adults and children.* Geneva: World Health Organization; 2012,
    /// Recommendations: "a reduction to <2 g/day sodium (5 g/day salt) in adults" (≥ 16 years); for children (2–15
    /// years) the adult limit is adjusted downward by energy requirements, ``sodiumLimitMg(sex:age:)``.
    public static let sodiumLimitMg = 2000.0

    /// Free sugars, **less than** 10 % of total energy intake.
    ///
    /// Source: WHO. *Guideline: Sugars intake for adults and children.* Geneva: World Health Organization; 2015,
    /// strong recommendation (adults and children).
    public static let freeSugarsMaximumShare = 0.10

    /// Saturated fatty acids, 10 % of total energy intake.
    ///
    /// Source: WHO. *Saturated fatty acid and trans-fatty acid intake for adults and children: WHO guideline.* Geneva:
    /// World Health Organization; 2023 (adults and children from 2 years: reduce saturated fatty acid intake to 10 % of
    /// total energy intake, "no more than 10 %"). The guideline's words allow exactly 10 %; Caretide reports a day at
    /// exactly 10 % as at the limit, like the sodium and sugars limits, which WHO states as "less than" (a clinical
    /// review decision, listed in `docs/clinical-rules.md`).
    public static let saturatedFatMaximumShare = 0.10

    /// Salt equivalent per unit of sodium: salt = sodium × 2.5.
    ///
    /// Source: Regulation (EU) No 1169/2011 on the provision of food information to consumers, Annex I, point 11
    /// ("'salt' means the salt equivalent content calculated using the formula: salt = sodium × 2.5").
    public static let saltPerSodium = 2.5

    /// Energy per gram of sugars (carbohydrate), kcal, to express sugars as a share of energy.
    ///
    /// Source: the Atwater general factors, as in FAO. *Food energy – methods of analysis and conversion factors.*
    /// FAO Food and Nutrition Paper 77; 2003 (4 kcal/g carbohydrate, 9 kcal/g fat).
    public static let kcalPerGramSugars = 4.0
    /// Energy per gram of fat, kcal (the Atwater general factor, as ``kcalPerGramSugars``).
    public static let kcalPerGramFat = 9.0

    /// Short citations, as ``DayAnalysis/Check/source`` gives them.
    public static let sodiumSource = "WHO 2012"
    public static let sugarsSource = "WHO 2015"
    public static let saturatedFatSource = "WHO 2023"
    public static let energySource = "DGA 2020–2025, Table A2-2"
    public static let proteinSource = "IOM DRI 2005"

    /// Estimated calorie needs per day, kcal, of a **moderately active** person, by sex and age (ages 2 and up; nil
    /// under 2 or over 120).
    ///
    /// Source: U.S. Department of Agriculture and U.S. Department of Health and Human Services. *Dietary Guidelines for
    /// Americans, 2020–2025.* 9th edition, December 2020, Appendix 2, Table A2-2 "Estimated Calorie Needs per Day, by
    /// Age, Sex, and Physical Activity Level, Ages 2 and Older" (from the Institute of Medicine's Estimated Energy
    /// Requirement equations, 2002), column "Moderately Active": walking about 1.5 to 3 miles a day at 3 to 4 miles an
    /// hour in addition to the activities of independent living.
    ///
    /// | Age | Males | Females | | Age | Males | Females |
    /// |---|---|---|---|---|---|---|
    /// | 2 | 1,000 | 1,000 | | 19–20 | 2,800 | 2,200 |
    /// | 3 | 1,400 | 1,200 | | 21–25 | 2,800 | 2,200 |
    /// | 4 | 1,400 | 1,400 | | 26–30 | 2,600 | 2,000 |
    /// | 5 | 1,400 | 1,400 | | 31–35 | 2,600 | 2,000 |
    /// | 6 | 1,600 | 1,400 | | 36–40 | 2,600 | 2,000 |
    /// | 7 | 1,600 | 1,600 | | 41–45 | 2,600 | 2,000 |
    /// | 8 | 1,600 | 1,600 | | 46–50 | 2,400 | 2,000 |
    /// | 9 | 1,800 | 1,600 | | 51–55 | 2,400 | 1,800 |
    /// | 10 | 1,800 | 1,800 | | 56–60 | 2,400 | 1,800 |
    /// | 11 | 2,000 | 1,800 | | 61–65 | 2,400 | 1,800 |
    /// | 12 | 2,200 | 2,000 | | 66–70 | 2,200 | 1,800 |
    /// | 13 | 2,200 | 2,000 | | 71–75 | 2,200 | 1,800 |
    /// | 14 | 2,400 | 2,000 | | 76 and up | 2,200 | 1,800 |
    /// | 15 | 2,600 | 2,000 | | | | |
    /// | 16 | 2,800 | 2,000 | | | | |
    /// | 17 | 2,800 | 2,000 | | | | |
    /// | 18 | 2,800 | 2,000 | | | | |
    ///
    /// Verified cell by cell against two copies of the table: a transcription of Table A2-2 of the 2020–2025 edition
    /// (every row) and UpToDate's copy of the Dietary Guidelines table (ages 2 through 20, both sexes), with the adult
    /// rows also matching the ranges the NHLBI publishes from the Guidelines (women 19–30: 2,000–2,200, 31–50: 2,000,
    /// 51+: 1,800; men 19–30: 2,600–2,800, 31–50: 2,400–2,600, 51+: 2,200–2,400). The primary PDF itself could not be
    /// reached from here.
    public static func energyKcal(sex: Sex, age: Int) -> Double? {
        guard (2...120).contains(age) else { return nil }
        // The table's rows from their first age, in order; a row holds until the next one starts.
        var row = energyTable[0]
        for candidate in energyTable where candidate.fromAge <= age { row = candidate }
        return sex == .male ? row.male : row.female
    }

    private static let energyTable: [(fromAge: Int, male: Double, female: Double)] = [
        (2, 1000, 1000), (3, 1400, 1200), (4, 1400, 1400), (5, 1400, 1400), (6, 1600, 1400), (7, 1600, 1600), (8, 1600, 1600),
        (9, 1800, 1600), (10, 1800, 1800), (11, 2000, 1800), (12, 2200, 2000), (13, 2200, 2000), (14, 2400, 2000), (15, 2600, 2000),
        (16, 2800, 2000), (17, 2800, 2000), (18, 2800, 2000), (19, 2800, 2200), (21, 2800, 2200), (26, 2600, 2000), (31, 2600, 2000),
        (36, 2600, 2000), (41, 2600, 2000), (46, 2400, 2000), (51, 2400, 1800), (56, 2400, 1800), (61, 2400, 1800), (66, 2200, 1800),
        (71, 2200, 1800), (76, 2200, 1800),
    ]

    /// Protein, g/day: the Recommended Dietary Allowance (nil under 1 year).
    ///
    /// Source: Institute of Medicine. *Dietary Reference Intakes for Energy, Carbohydrate, Fiber, Fat, Fatty Acids,
    /// Cholesterol, Protein, and Amino Acids (Macronutrients).* Washington, DC: The National Academies Press; 2002/2005,
    /// RDA for protein:
    ///
    /// | Age | Males | Females |
    /// |---|---|---|
    /// | 1–3 | 13 | 13 |
    /// | 4–8 | 19 | 19 |
    /// | 9–13 | 34 | 34 |
    /// | 14–18 | 52 | 46 |
    /// | 19 and up | 56 | 46 |
    public static func proteinG(sex: Sex, age: Int) -> Double? {
        if age < 14 { return proteinG(childAge: age) }
        if age < 19 { return sex == .male ? 52 : 46 }
        return sex == .male ? 56 : 46
    }

    /// The protein RDA below 14 years, the same for both sexes (nil under 1 or from 14).
    static func proteinG(childAge age: Int) -> Double? {
        switch age {
        case 1...3: 13
        case 4...8: 19
        case 9...13: 34
        default: nil
        }
    }

    /// The sodium limit, mg/day, for a person of this sex and age.
    ///
    /// WHO 2012: for children (2–15 years inclusive) "the recommended maximum level of intake of 2 g/day sodium in
    /// adults should be adjusted downward based on the energy requirements of children relative to those of adults",
    /// so: limit × ``energyKcal(sex:age:)`` /
    /// `energyKcal(sex, 30)` (the reference adult: 2,600 kcal for males, 2,000 for females). From 16 years, and when
    /// the age is not known, the adult limit. Caretide's own choices where WHO says nothing: under 2 years (outside
    /// the guideline), the limit of a 2-year-old, the lowest there is (WHO does not address breastfeeding and complementary feeding to
    /// 24 months); a child whose sex is not known gets the lower of
    /// the two sexes' limits.
    public static func sodiumLimitMg(sex: Sex?, age: Int?) -> Double {
        // Typed, so that the name means the constant and not this function.
        let adultLimit: Double = DietaryReference.sodiumLimitMg
        guard let age, age < 16 else { return adultLimit }
        let childAge = max(age, 2)
        let sexes = sex.map { [$0] } ?? Sex.allCases
        var lowest = adultLimit
        for sex in sexes {
            guard let child = energyKcal(sex: sex, age: childAge), let adult = energyKcal(sex: sex, age: 30) else { continue }
            lowest = min(lowest, adultLimit * child / adult)
        }
        return lowest
    }
}
