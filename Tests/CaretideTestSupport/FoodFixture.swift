import CaretideNutrition
public import CaretideRuntime
public import Foundation
import IngestService

/// The food table the diet tests use, and meals that name its foods: USDA SR28 rows of a few dozen foods, cut from the
/// real files by `scripts/make-food-fixture`.
public enum FoodFixture {
    public static let directory = Paths.packageRoot.appendingPathComponent("Tests/CaretideNutritionTests/Fixtures/sr28-subset")

    /// ingest-service looking for a newer food table every 200 ms, so an import is served at once.
    public static func ingestDefinition() -> ServiceDefinition {
        IngestService.definition(sync: SyncSettings(), foodTableCheck: .milliseconds(200))
    }

    /// Imports the fixture as `caretide foods import` does, and waits until ingest serves it.
    public static func importFoods(_ stack: TestStack) async throws {
        let table = try StandardReference.load(directory: directory)
        try await stack.withDatabase(schema: "ingest") { database, logger in
            _ = try await FoodStore.importTable(table, keep: 3, database: database, logger: logger)
        }
        let ingest = stack.baseURL(IngestService.name)
        try await eventually("the food table loaded") { try await HTTP.get("\(ingest)/v1/foods?q=butter").status == 200 }
    }

    /// A meal's request body.
    public static func meal(
        _ id: UUID = UUID(), food: String, grams: Double? = nil, portion: (String, Double)? = nil, meal: String = "lunch", at time: String,
        zone: String? = nil
    ) -> String {
        var members = [#""mealId": "\#(id)""#, #""foodId": "\#(food)""#, #""meal": "\#(meal)""#, #""eatenAt": "\#(time)""#]
        if let grams { members.append(#""grams": \#(grams)"#) }
        if let (portion, count) = portion { members.append(#""portion": {"id": "\#(portion)", "count": \#(count)}"#) }
        if let zone { members.append(#""timeZone": "\#(zone)""#) }
        return "{" + members.joined(separator: ", ") + "}"
    }
}
