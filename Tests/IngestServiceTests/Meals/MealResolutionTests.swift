import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// A meal's body resolved against the food table (`MealResolution`): the amount, the day in the meal's own time zone,
/// the nutrients of what was eaten, and every refusal naming its field.
@Suite struct MealResolutionTests {
    static let butter = Food(
        id: "01001", name: "Butter, salted", category: "Dairy and Egg Products",
        per100g: Nutrients(
            energyKcal: 717, proteinG: 0.85, fatG: 81.11, saturatedFatG: 51.368, carbohydrateG: 0.06, sugarsG: 0.06, fibreG: 0, sodiumMg: 643),
        portions: [FoodPortion(id: "2", description: "1 tbsp", grams: 14.2), FoodPortion(id: "3", description: "1 cup", grams: 227)])
    static let table = FoodCatalogue.Loaded(
        number: 1, table: FoodTable(release: FoodRelease(id: "test", name: "a test table", licence: "none", source: "here"), foods: [butter]))

    static func body(_ members: [String: JSONValue]) -> JSONValue {
        .object(
            [
                "mealId": .string("0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"), "foodId": .string("01001"), "meal": .string("breakfast"),
                "eatenAt": .string("2026-11-21T03:30:00Z"),
            ].merging(members) { _, new in new })
    }

    static func meal(_ body: JSONValue, table: FoodCatalogue.Loaded? = table) throws -> MealRecorded {
        try MealResolution.event(try JSONValueDecoder.decode(MealRequest.self, from: body), table: table)
    }

    static func refusal(_ body: JSONValue, table: FoodCatalogue.Loaded? = table) -> [String] {
        do {
            _ = try meal(body, table: table)
            return []
        } catch let problem as HTTPProblem {
            #expect(problem.error == "the meal cannot be recorded")
            return problem.violations.map(\.pointer)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test("two tablespoons at 22:30 in New York: 28.4 g, the 20th, and the nutrients of 28.4 g")
    func resolvesAPortion() throws {
        let meal = try Self.meal(
            Self.body(["portion": .object(["id": .string("2"), "count": .number(2)]), "timeZone": .string("America/New_York")]))
        #expect(meal.grams == 28.4 && meal.revision == 1 && meal.localDate == "2026-11-20" && meal.timeZone == "America/New_York")
        #expect(meal.mealID == UUID(uuidString: "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11") && meal.meal == .breakfast && meal.foodID == "01001")
        #expect(meal.portion == EatenPortion(id: "2", description: "1 tbsp", count: 2))
        #expect(meal.foodName == "Butter, salted" && meal.foodRelease == "test")
        #expect(meal.nutrients.sodiumMg == 643 * 28.4 / 100 && meal.nutrients.energyKcal == 717 * 28.4 / 100)
    }

    @Test("grams without a time zone: UTC, so the 21st")
    func resolvesGrams() throws {
        let meal = try Self.meal(Self.body(["grams": .number(10)]))
        #expect(meal.grams == 10 && meal.portion == nil && meal.localDate == "2026-11-21" && meal.timeZone == "UTC")
    }

    @Test("every refusal names its field")
    func refusals() {
        #expect(Self.refusal(Self.body(["grams": .number(10)]), table: nil) == ["/foodId"])
        #expect(Self.refusal(Self.body(["foodId": .string("99999"), "grams": .number(10)])) == ["/foodId"])
        #expect(Self.refusal(Self.body([:])) == ["/grams"])
        #expect(Self.refusal(Self.body(["grams": .number(10), "portion": .object(["id": .string("2")])])) == ["/portion"])
        #expect(Self.refusal(Self.body(["portion": .object(["id": .string("9")])])) == ["/portion/id"])
        #expect(Self.refusal(Self.body(["grams": .number(5_000.5)])) == ["/grams"])
        #expect(Self.refusal(Self.body(["grams": .number(5_000)])).isEmpty)
        #expect(Self.refusal(Self.body(["portion": .object(["id": .string("3"), "count": .number(23)])])) == ["/portion/count"])
        #expect(Self.refusal(Self.body(["portion": .object(["id": .string("3"), "count": .number(22)])])).isEmpty)
        #expect(Self.refusal(Self.body(["grams": .number(10), "timeZone": .string("Mars/Olympus")])) == ["/timeZone"])
        #expect(Set(Self.refusal(Self.body(["foodId": .string("99999"), "timeZone": .string("Nowhere")]))) == ["/foodId", "/grams", "/timeZone"])
    }

    @Test("a count too large to have a gram total (1e308 cups) is refused by name, not a trap")
    func enormousCount() {
        // 227 g × 1e308 is infinite; the refusal's message used to convert it to Int and stop the service.
        #expect(Self.refusal(Self.body(["portion": .object(["id": .string("3"), "count": .number(1e308)])])) == ["/portion/count"])
        #expect(
            Self.refusal(Self.body(["portion": .object(["id": .string("3"), "count": .number(.greatestFiniteMagnitude)])])) == ["/portion/count"])
        #expect(Self.refusal(Self.body(["grams": .number(.greatestFiniteMagnitude)])) == ["/grams"])
    }
}
