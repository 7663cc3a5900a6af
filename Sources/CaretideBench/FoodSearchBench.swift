import ArgumentParser
import CaretideNutrition
import Foundation

/// The food search as a user types (issue 25: p50 ≤ 2 ms over the whole catalogue): every prefix of each query word
/// from two letters on, as the keystrokes of a search box send them, over the full USDA SR28 table
/// (`scripts/fetch-food-data`), timed one search at a time.
struct FoodSearchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foods", abstract: "Milliseconds per food search over the whole food table, as a user types.")

    @Option(help: "Folder holding the SR28 files (scripts/fetch-food-data).") var directory = ".food-data"
    @Option(help: "Passes over the queries.") var passes = 20

    /// Words people look for in a diet diary, typed letter by letter.
    static let words = [
        "bean", "apple", "chicken breast", "milk", "bread", "rice", "cheese", "egg", "banana", "salmon", "pasta", "potato", "beef ground",
        "yogurt", "orange juice", "coffee", "butter", "oats", "tomato", "broccoli", "peanut butter", "soup", "pizza", "chocolate",
    ]

    func run() async throws {
        let loading = ContinuousClock.now
        let table = try StandardReference.load(directory: URL(fileURLWithPath: directory))
        let search = FoodSearch(foods: table.foods)
        let loaded = ContinuousClock.now - loading
        let queries = Self.words.flatMap { word in (2...word.count).map { String(word.prefix($0)) } }
        var durations: [Duration] = []
        var matches = 0
        let clock = ContinuousClock()
        for _ in 0..<passes {
            for query in queries {
                let began = clock.now
                matches &+= search.search(query).count
                durations.append(clock.now - began)
            }
        }
        let summary = LatencySummary(durations)
        print("foods: \(table.foods.count) foods of \(table.release.name), parsed and indexed in \(loaded)")
        print("  \(durations.count) searches (\(queries.count) keystroke queries × \(passes)), \(matches / passes) matches per pass")
        print(
            "  p50 \(summary.milliseconds(0.5, digits: 3)), p99 \(summary.milliseconds(0.99, digits: 3)), max \(summary.milliseconds(1, digits: 3))")
    }
}
