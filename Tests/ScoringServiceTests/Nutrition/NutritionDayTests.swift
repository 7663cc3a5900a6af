import CaretideDomain
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import ScoringService

/// The diet analysis as a reader gets it: which days a series request covers, whom a day is compared with, how a
/// day's records are grouped and advised on, and which revision of a meal is kept.
@Suite struct NutritionDayTests {
    static let today = LocalDate("2026-11-30")!
    /// 2026-11-21T12:00:00Z.
    static let noon = Date(timeIntervalSince1970: 1_795_262_400)

    static func stored(_ meal: MealKind, food: String, nutrients: Nutrients) -> NutritionRoutes.StoredEntry {
        NutritionRoutes.StoredEntry(
            day: "2026-11-21", meal: meal,
            entry: NutritionRoutes.Entry(
                mealId: UUID(), eatenAt: noon, timeZone: "UTC", foodId: food, foodName: "food \(food)", foodRelease: "usda-sr28", grams: 100,
                portion: nil, nutrients: nutrients))
    }

    static let plain = Nutrients(
        energyKcal: 500, proteinG: 20, fatG: 15, saturatedFatG: 3, carbohydrateG: 60, sugarsG: 5, fibreG: 6, sodiumMg: 200, freeSugarsG: 1)

    static func violations(from: String?, to: String?) -> [SchemaViolation] {
        do {
            _ = try NutritionRoutes.days(from: from, to: to, today: today)
            return []
        } catch let problem as HTTPProblem {
            return problem.violations
        } catch {
            return [SchemaViolation(pointer: .root, message: "unexpected \(error)")]
        }
    }

    @Test("without from or to a series is the 30 days to today; a to alone ends it and a from alone starts it")
    func defaultDays() throws {
        let (first, last) = try NutritionRoutes.days(from: nil, to: nil, today: Self.today)
        #expect(first == LocalDate("2026-11-01") && last == Self.today)
        let (endingFirst, endingLast) = try NutritionRoutes.days(from: nil, to: "2026-03-31", today: Self.today)
        #expect(endingFirst == LocalDate("2026-03-02") && endingLast == LocalDate("2026-03-31"))
        let (recentFirst, recentLast) = try NutritionRoutes.days(from: "2026-11-10", to: nil, today: Self.today)
        #expect(recentFirst == LocalDate("2026-11-10") && recentLast == Self.today)
    }

    @Test("a from alone never reaches past 366 days, nor past today unless the from itself is later")
    func openEnd() throws {
        let (oldFirst, oldLast) = try NutritionRoutes.days(from: "2025-01-01", to: nil, today: Self.today)
        #expect(oldFirst == LocalDate("2025-01-01") && oldLast == LocalDate("2026-01-01"))
        #expect(oldLast == oldFirst.addingDays(NutritionRoutes.maximumDays - 1))
        let (futureFirst, futureLast) = try NutritionRoutes.days(from: "2026-12-05", to: nil, today: Self.today)
        #expect(futureFirst == LocalDate("2026-12-05") && futureLast == futureFirst)
    }

    @Test("from and to may span 366 days, to included, and one day; one day more, or a to before from, is refused as to")
    func bounds() throws {
        let (first, last) = try NutritionRoutes.days(from: "2026-01-01", to: "2027-01-01", today: Self.today)
        #expect(first == LocalDate("2026-01-01") && last == LocalDate("2027-01-01"))
        let (oneFirst, oneLast) = try NutritionRoutes.days(from: "2026-11-02", to: "2026-11-02", today: Self.today)
        #expect(oneFirst == oneLast)
        #expect(
            Self.violations(from: "2026-01-01", to: "2027-01-02") == [
                SchemaViolation(pointer: JSONPointer(tokens: ["to"]), message: "must be at most 366 days after from")
            ])
        #expect(
            Self.violations(from: "2026-11-02", to: "2026-11-01") == [
                SchemaViolation(pointer: JSONPointer(tokens: ["to"]), message: "must not be before from")
            ])
        #expect(Self.violations(from: "yesterday", to: "2026-02-30").map(\.pointer).sorted() == ["/from", "/to"])
    }

    @Test("sex is female or male and age a whole number from 0 to 120; each bad one is named")
    func profile() throws {
        let none = try NutritionRoutes.profile(sex: nil, age: nil)
        #expect(none.sex == nil && none.age == nil)
        let youngest = try NutritionRoutes.profile(sex: "female", age: "0")
        #expect(youngest.sex == .female && youngest.age == 0)
        let oldest = try NutritionRoutes.profile(sex: "male", age: "120")
        #expect(oldest.sex == .male && oldest.age == 120)
        func refused(sex: String?, age: String?) -> [String] {
            do {
                _ = try NutritionRoutes.profile(sex: sex, age: age)
                return []
            } catch let problem as HTTPProblem {
                return problem.violations.map(\.pointer)
            } catch {
                return ["unexpected \(error)"]
            }
        }
        #expect(refused(sex: "other", age: nil) == ["/sex"])
        for age in ["121", "-1", "40.5", "forty", ""] { #expect(refused(sex: nil, age: age) == ["/age"], "\(age)") }
        #expect(refused(sex: "Female", age: "200") == ["/sex", "/age"])
    }

    @Test("a day's records are grouped by meal in the order of the day, meals without a record left out; the series leaves them out")
    func meals() throws {
        let entries = [
            Self.stored(.snack, food: "s", nutrients: Self.plain), Self.stored(.lunch, food: "l1", nutrients: Self.plain),
            Self.stored(.breakfast, food: "b", nutrients: Self.plain), Self.stored(.lunch, food: "l2", nutrients: Self.plain),
        ]
        let day = NutritionRoutes.day("2026-11-21", entries: entries, sex: .female, age: 40, texts: .english, withMeals: true)
        #expect(day.date == "2026-11-21" && day.mealCount == 4)
        let meals = try #require(day.meals)
        #expect(meals.map(\.meal) == [.breakfast, .lunch, .snack])
        #expect(meals.map { $0.entries.map(\.foodId) } == [["b"], ["l1", "l2"], ["s"]])
        #expect(day.totals.energyKcal == 2_000 && day.totals.sodiumMg == 800)
        let series = NutritionRoutes.day("2026-11-21", entries: entries, sex: .female, age: 40, texts: .english, withMeals: false)
        #expect(series.meals == nil && series.mealCount == 4)
    }

    @Test("twice the sodium limit makes a day need attention, its tip in the reader's language or else English; salt is sodium × 2.5")
    func sodium() throws {
        var salty = Self.plain
        salty.sodiumMg = DietaryReference.sodiumLimitMg(sex: nil, age: nil)
        let entries = [Self.stored(.lunch, food: "1", nutrients: salty), Self.stored(.dinner, food: "2", nutrients: salty)]
        let key = TipKey.nutritionSodiumFarAbove.rawValue
        let english = NutritionRoutes.day("2026-11-21", entries: entries, sex: nil, age: nil, texts: .english, withMeals: false)
        #expect(english.severity == .attention)
        #expect(english.saltG == 2 * DietaryReference.sodiumLimitMg(sex: nil, age: nil) * 2.5 / 1_000)
        let tip = try #require(english.tips.first)
        #expect(tip.key == key && tip.text == TipTexts.english.text(key) && tip.text != key)
        let german = TipTexts(language: "de", texts: [key: "Viel zu viel Salz."])
        let translated = NutritionRoutes.day("2026-11-21", entries: entries, sex: nil, age: nil, texts: german, withMeals: false)
        #expect(translated.tips.first?.text == "Viel zu viel Salz.")
        let untranslated = NutritionRoutes.day(
            "2026-11-21", entries: entries, sex: nil, age: nil, texts: TipTexts(language: "de", texts: [:]), withMeals: false)
        #expect(untranslated.tips.first?.text == tip.text)
        // Without sex and age the energy reference is unknown, and the day says why.
        #expect(english.checks.first { $0.nutrient == .energy }?.unknownBecause == "sex and age are not known")
        let known = NutritionRoutes.day("2026-11-21", entries: entries, sex: .female, age: 40, texts: .english, withMeals: false)
        #expect(known.checks.first { $0.nutrient == .energy }?.unknownBecause == nil)
    }

    @Test("a nutrient some food lacks is marked incomplete; a day without records compares and advises nothing")
    func incompleteAndEmpty() {
        var noFibre = Self.plain
        noFibre.fibreG = nil
        let day = NutritionRoutes.day(
            "2026-11-21", entries: [Self.stored(.lunch, food: "1", nutrients: Self.plain), Self.stored(.lunch, food: "2", nutrients: noFibre)],
            sex: .female, age: 40, texts: .english, withMeals: true)
        #expect(day.incomplete == [.fibre] && day.totals.fibreG == 6)
        let empty = NutritionRoutes.day("2026-11-22", entries: [], sex: .female, age: 40, texts: .english, withMeals: true)
        #expect(empty.mealCount == 0 && empty.checks.isEmpty && empty.tips.isEmpty && empty.severity == .normal)
        #expect(empty.meals?.isEmpty == true)
    }

    @Test("a meal's first and newer revisions are kept; the same or an older one is not, and nothing brings back a deleted meal")
    func revisions() {
        #expect(NutritionStore.replaces(1, kept: nil))
        #expect(NutritionStore.replaces(3, kept: (revision: 2, deleted: false)))
        #expect(!NutritionStore.replaces(2, kept: (revision: 2, deleted: false)))
        #expect(!NutritionStore.replaces(1, kept: (revision: 2, deleted: false)))
        #expect(!NutritionStore.replaces(3, kept: (revision: 2, deleted: true)))
    }
}
