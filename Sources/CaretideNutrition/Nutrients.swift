/// The nutrients Caretide reads from a food table, with the USDA SR28 nutrient numbers they come from.
public enum Nutrient: String, CaseIterable, Sendable, Codable {
    /// Energy, kcal (SR28 `208`).
    case energy
    /// Protein, g (`203`).
    case protein
    /// Total lipid (fat), g (`204`).
    case fat
    /// Fatty acids, total saturated, g (`606`).
    case saturatedFat
    /// Carbohydrate, by difference, g (`205`).
    case carbohydrate
    /// Sugars, total, g (`269`): the table gives total sugars, not free or added sugars.
    case sugars
    /// Fibre, total dietary, g (`291`).
    case fibre
    /// Sodium, mg (`307`).
    case sodium

    /// `kcal` for energy, `mg` for sodium, `g` otherwise.
    public var unit: String {
        switch self {
        case .energy: "kcal"
        case .sodium: "mg"
        case .protein, .fat, .saturatedFat, .carbohydrate, .sugars, .fibre: "g"
        }
    }
}

/// Amounts of the ``Nutrient``s, per 100 g of a food or for an amount eaten. `nil` means the table has no value,
/// which is not the same as 0.
public struct Nutrients: Sendable, Equatable, Hashable, Codable {
    public var energyKcal: Double?
    public var proteinG: Double?
    public var fatG: Double?
    public var saturatedFatG: Double?
    public var carbohydrateG: Double?
    public var sugarsG: Double?
    public var fibreG: Double?
    public var sodiumMg: Double?
    /// Free sugars, g: not in the table; estimated when a meal is recorded (``FreeSugars``), nil in a food's values per
    /// 100 g and in meals recorded before the estimate existed.
    public var freeSugarsG: Double?

    public init(
        energyKcal: Double? = nil, proteinG: Double? = nil, fatG: Double? = nil, saturatedFatG: Double? = nil, carbohydrateG: Double? = nil,
        sugarsG: Double? = nil, fibreG: Double? = nil, sodiumMg: Double? = nil, freeSugarsG: Double? = nil
    ) {
        self.freeSugarsG = freeSugarsG
        self.energyKcal = energyKcal
        self.proteinG = proteinG
        self.fatG = fatG
        self.saturatedFatG = saturatedFatG
        self.carbohydrateG = carbohydrateG
        self.sugarsG = sugarsG
        self.fibreG = fibreG
        self.sodiumMg = sodiumMg
    }

    /// The amount of `nutrient`, in its ``Nutrient/unit``.
    public subscript(_ nutrient: Nutrient) -> Double? {
        get {
            switch nutrient {
            case .energy: energyKcal
            case .protein: proteinG
            case .fat: fatG
            case .saturatedFat: saturatedFatG
            case .carbohydrate: carbohydrateG
            case .sugars: sugarsG
            case .fibre: fibreG
            case .sodium: sodiumMg
            }
        }
        set {
            switch nutrient {
            case .energy: energyKcal = newValue
            case .protein: proteinG = newValue
            case .fat: fatG = newValue
            case .saturatedFat: saturatedFatG = newValue
            case .carbohydrate: carbohydrateG = newValue
            case .sugars: sugarsG = newValue
            case .fibre: fibreG = newValue
            case .sodium: sodiumMg = newValue
            }
        }
    }

    /// The amounts in `grams` of a food with these values per 100 g (nil stays nil): each value × grams / 100.
    public func scaled(toGrams grams: Double) -> Nutrients {
        var scaled = Nutrients()
        for nutrient in Nutrient.allCases {
            scaled[nutrient] = self[nutrient].map { $0 * grams / 100 }
        }
        scaled.freeSugarsG = freeSugarsG.map { $0 * grams / 100 }
        return scaled
    }
}

/// The sum of a day's (or a meal's) entries, nutrient by nutrient.
///
/// A food the table gives no value for adds nothing to that nutrient's sum and marks it ``incomplete``: the sum is
/// then a lower bound of what was eaten.
public struct NutrientTotals: Sendable, Equatable, Hashable, Codable {
    /// Every field non-nil: 0 when nothing was added.
    public private(set) var sums: Nutrients
    /// The nutrients that at least one added entry lacked (their sums are lower bounds).
    public private(set) var incomplete: Set<Nutrient>
    /// How many entries were added.
    public private(set) var entryCount: Int
    /// How many added entries had no free-sugars estimate (meals recorded before it existed); nil when none.
    public private(set) var withoutFreeSugars: Int?

    /// The day's estimated free sugars, g, when every entry has an estimate.
    public var freeSugarsG: Double? { withoutFreeSugars == nil ? sums.freeSugarsG ?? 0 : nil }

    public init() {
        sums = Nutrients(
            energyKcal: 0, proteinG: 0, fatG: 0, saturatedFatG: 0, carbohydrateG: 0, sugarsG: 0, fibreG: 0, sodiumMg: 0, freeSugarsG: 0)
        incomplete = []
        entryCount = 0
    }

    /// Adds one entry (a food's ``Nutrients/scaled(toGrams:)`` amounts).
    public mutating func add(_ entry: Nutrients) {
        for nutrient in Nutrient.allCases {
            if let value = entry[nutrient] {
                sums[nutrient] = (sums[nutrient] ?? 0) + value
            } else {
                incomplete.insert(nutrient)
            }
        }
        if let free = entry.freeSugarsG {
            sums.freeSugarsG = (sums.freeSugarsG ?? 0) + free
        } else if entry.sugarsG != nil {
            withoutFreeSugars = (withoutFreeSugars ?? 0) + 1
        }
        entryCount += 1
    }

    /// Salt equivalent, g: sodium (mg) × 2.5 / 1000 (``DietaryReference/saltPerSodium``).
    public var saltG: Double { (sums.sodiumMg ?? 0) * DietaryReference.saltPerSodium / 1000 }
}
