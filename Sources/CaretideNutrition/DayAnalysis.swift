public import CaretideDomain

/// A day's food compared with the reference values (``DietaryReference``): one ``Check`` per nutrient, a severity and
/// the plain-language tips.
///
/// The day is the calendar date of each meal in the time zone it was eaten in. Sums a food lacks a value for are lower
/// bounds (``NutrientTotals/incomplete``); the checks are made on what is known.
///
/// | Check | Value | Status (boundaries) | Source |
/// |---|---|---|---|
/// | sodium | mg | below the limit → `belowLimit`; at or above → `atOrAboveLimit` | WHO 2012 (children: ``DietaryReference/sodiumLimitMg(sex:age:)``) |
/// | sugars | free sugars, g, estimated (``FreeSugars``); share = g × 4 / kcal | share below 10 % → `belowLimit`; at or above → `atOrAboveLimit`, the check's ``Check/estimate`` saying it is an estimate. A day with a meal recorded before the estimate existed is judged on total sugars as before: below 10 % → `belowLimit`, otherwise `possiblyAboveLimit` | WHO 2015 |
/// | saturatedFat | g; share = g × 9 / kcal | share below 10 % → `belowLimit`; at or above → `atOrAboveLimit` | WHO 2023 |
/// | energy | kcal | below 90 % of the reference → `belowReference`; 90–110 % inclusive → `nearReference`; above 110 % → `aboveReference` | DGA 2020–2025, Table A2-2 |
/// | protein | g | below the RDA → `belowReference`; at or above → `meetsReference` | IOM DRI 2005 |
///
/// `unknown`: energy and protein when the reference needs the sex or the age and it is not known (protein needs the
/// sex only from 14 years), or the age is outside the table; the shares when the day has no energy.
///
/// Severity: `attention` when sodium is at or above twice its limit, otherwise `normal`. A day without a record (its
/// last meal deleted) has no checks and no tips: nothing recorded is not nothing eaten.
public struct DayAnalysis: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        /// Below a WHO limit (strictly less than).
        case belowLimit
        /// At or above a WHO limit: a value equal to the limit is not below it.
        case atOrAboveLimit
        /// Sugars: total sugars are at or above 10 % of energy; free sugars, a part of them, are not known.
        case possiblyAboveLimit
        /// Energy below 90 % of the reference; protein below the RDA.
        case belowReference
        /// Energy from 90 to 110 % of the reference, both inclusive.
        case nearReference
        /// Energy above 110 % of the reference.
        case aboveReference
        /// Protein at or above the RDA.
        case meetsReference
        /// The reference is not known (``Check/unknownBecause`` says why).
        case unknown
    }

    /// One nutrient of the day against its reference value.
    public struct Check: Sendable, Equatable, Codable {
        public let nutrient: Nutrient
        public let status: Status
        /// The day's amount, in the nutrient's unit (g, mg or kcal); for the share checks the nutrient's amount too.
        public let value: Double
        /// The limit or the reference intake in the same unit (for the shares: the grams that make 10 % of the day's
        /// energy); nil when it is not known.
        public let reference: Double?
        /// Sugars and saturated fat: their energy (4 kcal per g of sugars, 9 per g of fat) over the day's energy.
        public let shareOfEnergy: Double?
        /// A short citation, e.g. "WHO 2012".
        public let source: String
        /// Why the reference is not known, e.g. "sex and age are not known".
        public let unknownBecause: String?
        /// What the value is, when it is not the table's own figure (sugars: free sugars estimated from each food's
        /// group and description, or total sugars when a meal has no estimate).
        public let estimate: String?

        public init(
            nutrient: Nutrient, status: Status, value: Double, reference: Double?, shareOfEnergy: Double?, source: String, unknownBecause: String?,
            estimate: String? = nil
        ) {
            self.estimate = estimate
            self.nutrient = nutrient
            self.status = status
            self.value = value
            self.reference = reference
            self.shareOfEnergy = shareOfEnergy
            self.source = source
            self.unknownBecause = unknownBecause
        }
    }

    public let totals: NutrientTotals
    /// In this order: sodium, sugars, saturatedFat, energy, protein; none for a day without a record.
    public let checks: [Check]
    /// `attention` when sodium is at or above twice its limit; otherwise `normal`.
    public let severity: Severity
    /// The tips that apply, most important first: sodium (far above, or above), saturated fat, sugars, energy, protein;
    /// ``TipKey/nutritionWithinLimits`` when every WHO limit is met and nothing else applies.
    public let tips: [TipKey]

    public init(totals: NutrientTotals, sex: Sex?, age: Int?) {
        // A day without a record is not a day of eating nothing: nothing is compared, nothing advised.
        guard totals.entryCount > 0 else {
            self.totals = totals
            checks = []
            severity = .normal
            tips = []
            return
        }
        let sums = totals.sums
        let energy = sums.energyKcal ?? 0

        let sodium = sums.sodiumMg ?? 0
        let sodiumLimit = DietaryReference.sodiumLimitMg(sex: sex, age: age)
        let sodiumCheck = Check(
            nutrient: .sodium, status: sodium < sodiumLimit ? .belowLimit : .atOrAboveLimit, value: sodium, reference: sodiumLimit,
            shareOfEnergy: nil, source: DietaryReference.sodiumSource, unknownBecause: nil)
        // Free sugars when every meal has an estimate; otherwise total sugars, which bound them from above.
        let sugarsCheck = Self.shareCheck(
            .sugars, grams: totals.freeSugarsG ?? sums.sugarsG ?? 0, kcalPerGram: DietaryReference.kcalPerGramSugars, energy: energy,
            maximumShare: DietaryReference.freeSugarsMaximumShare, atOrAbove: totals.freeSugarsG == nil ? .possiblyAboveLimit : .atOrAboveLimit,
            source: DietaryReference.sugarsSource, estimate: totals.freeSugarsG == nil ? Self.totalSugars : Self.freeSugarsEstimated)
        let saturatedFatCheck = Self.shareCheck(
            .saturatedFat, grams: sums.saturatedFatG ?? 0, kcalPerGram: DietaryReference.kcalPerGramFat, energy: energy,
            maximumShare: DietaryReference.saturatedFatMaximumShare, atOrAbove: .atOrAboveLimit, source: DietaryReference.saturatedFatSource)
        let energyCheck = Self.energyCheck(energy, sex: sex, age: age)
        let proteinCheck = Self.proteinCheck(sums.proteinG ?? 0, sex: sex, age: age)

        var tips: [TipKey] = []
        if sodium >= 2 * sodiumLimit {
            tips.append(.nutritionSodiumFarAbove)
        } else if sodiumCheck.status == .atOrAboveLimit {
            tips.append(.nutritionSodiumAbove)
        }
        if saturatedFatCheck.status == .atOrAboveLimit { tips.append(.nutritionSaturatedFatAbove) }
        if sugarsCheck.status == .possiblyAboveLimit { tips.append(.nutritionSugarsPossiblyAbove) }
        if sugarsCheck.status == .atOrAboveLimit { tips.append(.nutritionFreeSugarsAbove) }
        if energyCheck.status == .aboveReference { tips.append(.nutritionEnergyAbove) }
        if energyCheck.status == .belowReference { tips.append(.nutritionEnergyBelow) }
        if proteinCheck.status == .belowReference { tips.append(.nutritionProteinBelow) }
        if tips.isEmpty, [sodiumCheck, sugarsCheck, saturatedFatCheck].allSatisfy({ $0.status == .belowLimit }) {
            tips.append(.nutritionWithinLimits)
        }

        self.totals = totals
        self.checks = [sodiumCheck, sugarsCheck, saturatedFatCheck, energyCheck, proteinCheck]
        self.severity = sodium >= 2 * sodiumLimit ? .attention : .normal
        self.tips = tips
    }

    /// A WHO limit on a share of energy: the share is compared with the maximum (a share equal to it is not below).
    /// What the sugars check's value is (``Check/estimate``).
    public static let freeSugarsEstimated = "free sugars, estimated from each food's group and description"
    public static let totalSugars = "total sugars: a meal of the day has no free-sugars estimate"

    private static func shareCheck(
        _ nutrient: Nutrient, grams: Double, kcalPerGram: Double, energy: Double, maximumShare: Double, atOrAbove: Status, source: String,
        estimate: String? = nil
    ) -> Check {
        guard energy > 0 else {
            return Check(
                nutrient: nutrient, status: .unknown, value: grams, reference: nil, shareOfEnergy: nil, source: source,
                unknownBecause: "energy is 0", estimate: estimate)
        }
        // A quotient, not a product, is compared with the maximum: division rounds correctly, so a share of exactly
        // 10 % is the double nearest 0.1, the very value of the literal.
        let share = grams * kcalPerGram / energy
        return Check(
            nutrient: nutrient, status: share < maximumShare ? .belowLimit : atOrAbove, value: grams, reference: maximumShare * energy / kcalPerGram,
            shareOfEnergy: share, source: source, unknownBecause: nil, estimate: estimate)
    }

    private static func energyCheck(_ energy: Double, sex: Sex?, age: Int?) -> Check {
        func unknown(_ reason: String) -> Check {
            Check(
                nutrient: .energy, status: .unknown, value: energy, reference: nil, shareOfEnergy: nil, source: DietaryReference.energySource,
                unknownBecause: reason)
        }
        guard let sex, let age else { return unknown(missing(sex: sex, age: age)) }
        guard let reference = DietaryReference.energyKcal(sex: sex, age: age) else {
            return unknown("the reference covers ages 2 to 120")
        }
        let ratio = energy / reference
        let status: Status = ratio < 0.9 ? .belowReference : (ratio <= 1.1 ? .nearReference : .aboveReference)
        return Check(
            nutrient: .energy, status: status, value: energy, reference: reference, shareOfEnergy: nil, source: DietaryReference.energySource,
            unknownBecause: nil)
    }

    private static func proteinCheck(_ protein: Double, sex: Sex?, age: Int?) -> Check {
        func unknown(_ reason: String) -> Check {
            Check(
                nutrient: .protein, status: .unknown, value: protein, reference: nil, shareOfEnergy: nil, source: DietaryReference.proteinSource,
                unknownBecause: reason)
        }
        guard let age else { return unknown(missing(sex: sex, age: nil)) }
        let allowance: Double?
        if age < 14 {
            // Below 14 the RDA is the same for both sexes.
            allowance = DietaryReference.proteinG(childAge: age)
        } else if let sex {
            allowance = DietaryReference.proteinG(sex: sex, age: age)
        } else {
            return unknown("sex is not known")
        }
        guard let reference = allowance else { return unknown("the reference starts at 1 year") }
        return Check(
            nutrient: .protein, status: protein < reference ? .belowReference : .meetsReference, value: protein, reference: reference,
            shareOfEnergy: nil, source: DietaryReference.proteinSource, unknownBecause: nil)
    }

    private static func missing(sex: Sex?, age: Int?) -> String {
        switch (sex, age) {
        case (nil, nil): "sex and age are not known"
        case (nil, _): "sex is not known"
        default: "age is not known"
        }
    }
}
