public import CaretideDomain
public import CaretideNutrition
public import Foundation

/// Which meal of the day a record belongs to, as a diet diary groups them.
public enum MealKind: String, Codable, Sendable, CaseIterable {
    case breakfast, lunch, dinner, snack
}

/// A household portion of a food as eaten: which of the food table's portions, and how many of it.
public struct EatenPortion: Codable, Sendable, Equatable {
    /// The portion's id in the food table (USDA SR28: its `Seq` in `WEIGHT.txt`).
    public var id: String
    /// The table's words for it ("1 cup, chopped"): catalogue text, never the patient's.
    public var description: String
    public var count: Double

    public init(id: String, description: String, count: Double) {
        self.id = id
        self.description = description
        self.count = count
    }
}

/// What a patient ate (`caretide.meals`, keyed by patient; ingest-service → scoring-service): the food as the food
/// table gave it when it was recorded, and the nutrients of the amount eaten, so the analysis needs no table of its own
/// and a later release of the table does not change a day already eaten.
public struct MealRecorded: EventPayload {
    public static let eventType = EventType.mealRecorded
    /// Chosen by the client; a re-sent record (offline sync) carries the same id and is stored once.
    public var mealID: UUID
    public var revision: Int
    public var eatenAt: Date
    /// The IANA time zone the meal was eaten in (the device's); the meal counts toward the calendar day of `eatenAt` there.
    public var timeZone: String
    /// That day, `yyyy-MM-dd`.
    public var localDate: String
    public var meal: MealKind
    public var foodID: String
    /// The food table's name of the food: catalogue text, never the patient's.
    public var foodName: String
    /// The food table's release the food and its values come from (`usda-sr28`).
    public var foodRelease: String
    /// The amount eaten in grams (a portion's weight times its count, when a portion was given).
    public var grams: Double
    public var portion: EatenPortion?
    /// The nutrients of the amount eaten; a nutrient the table does not give is absent.
    public var nutrients: Nutrients

    public init(
        mealID: UUID, revision: Int = 1, eatenAt: Date, timeZone: String, localDate: String, meal: MealKind, foodID: String, foodName: String,
        foodRelease: String, grams: Double, portion: EatenPortion?, nutrients: Nutrients
    ) {
        self.mealID = mealID
        self.revision = revision
        self.eatenAt = eatenAt
        self.timeZone = timeZone
        self.localDate = localDate
        self.meal = meal
        self.foodID = foodID
        self.foodName = foodName
        self.foodRelease = foodRelease
        self.grams = grams
        self.portion = portion
        self.nutrients = nutrients
    }

    enum CodingKeys: String, CodingKey {
        case mealID = "mealId"
        case foodID = "foodId"
        case revision, eatenAt, timeZone, localDate, meal, foodName, foodRelease, grams, portion, nutrients
    }
}

/// A meal record was deleted (`caretide.meals`); its day's analysis is computed again without it.
public struct MealDeleted: EventPayload {
    public static let eventType = EventType.mealDeleted
    public var mealID: UUID
    public var deletedAt: Date

    public init(mealID: UUID, deletedAt: Date) {
        self.mealID = mealID
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case mealID = "mealId"
        case deletedAt
    }
}

/// One reference value a day was compared with (`DayAnalysis.Check`).
public struct NutritionCheck: Codable, Sendable, Equatable {
    public var nutrient: Nutrient
    public var status: DayAnalysis.Status
    /// The day's amount, in the nutrient's unit (`kcal`, `mg` for sodium, else `g`).
    public var value: Double
    /// The limit or reference intake in the same unit; absent when it is not known.
    public var reference: Double?
    /// For sugars and saturated fat: the share of the day's energy they provide.
    public var shareOfEnergy: Double?
    public var source: String
    /// Why the reference is not known ("sex and age are not known").
    public var unknownBecause: String?
    /// What the value is when it is not the table's own figure (sugars: estimated free sugars).
    public var estimate: String?

    public init(_ check: DayAnalysis.Check) {
        estimate = check.estimate
        nutrient = check.nutrient
        status = check.status
        value = check.value
        reference = check.reference
        shareOfEnergy = check.shareOfEnergy
        source = check.source
        unknownBecause = check.unknownBecause
    }
}

/// A patient's day of meals analysed again after a meal was recorded, corrected or deleted (`caretide.nutrition`,
/// keyed by patient; scoring-service → downstream consumers): the totals, the reference values they were compared with
/// (the adult limits: the event carries no age or sex) and the tips' keys.
public struct NutritionAssessed: EventPayload {
    public static let eventType = EventType.nutritionAssessed
    /// The calendar day, `yyyy-MM-dd`, in the time zones the meals were eaten in.
    public var date: String
    /// How many meal records the day holds now (0 when its last one was deleted).
    public var mealCount: Int
    public var totals: Nutrients
    public var saltG: Double
    /// Nutrients some food of the day lacks in the table: their totals are lower bounds.
    public var incomplete: [Nutrient]
    public var checks: [NutritionCheck]
    public var severity: Severity
    public var tips: [String]
    public var ruleSetVersion: String
    /// The meal event that changed the day.
    public var sourceEventID: UUID

    public init(
        date: String, mealCount: Int, totals: Nutrients, saltG: Double, incomplete: [Nutrient], checks: [NutritionCheck], severity: Severity,
        tips: [String], ruleSetVersion: String, sourceEventID: UUID
    ) {
        self.date = date
        self.mealCount = mealCount
        self.totals = totals
        self.saltG = saltG
        self.incomplete = incomplete
        self.checks = checks
        self.severity = severity
        self.tips = tips
        self.ruleSetVersion = ruleSetVersion
        self.sourceEventID = sourceEventID
    }

    enum CodingKeys: String, CodingKey {
        case date, mealCount, totals, saltG, incomplete, checks, severity, tips, ruleSetVersion
        case sourceEventID = "sourceEventId"
    }
}
