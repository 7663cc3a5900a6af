import ArgumentParser
import CaretideNutrition
import Foundation

/// The food search as a user types: every prefix of each query word from two letters on, as the keystrokes of a
/// search box send them, over the full USDA SR28 table (`scripts/fetch-food-data`), timed one search at a time. With
/// `--queries`, also how often the food a person means comes first, and in the first three, for a list of everyday
/// queries (`scripts/bench/food-queries.tsv`), naming each query whose food is not first.
struct FoodSearchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foods", abstract: "Milliseconds per food search over the whole food table, as a user types.")

    @Option(help: "Folder holding the SR28 files (scripts/fetch-food-data).") var directory = ".food-data"
    @Option(help: "Passes over the queries.") var passes = 20
    @Option(
        name: .customLong("queries"),
        help: "A list of queries and the foods they mean (query, NDB numbers separated by commas, words; tab-separated).")
    var queryList: String?

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
        if let queryList { try accuracy(of: search, foods: table.foods, queries: URL(fileURLWithPath: queryList)) }
    }

    /// How often a meant food is first and in the first three, over the list's queries.
    func accuracy(of search: FoodSearch, foods: [Food], queries file: URL) throws {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        var first = 0
        var firstThree = 0
        var clock = Duration.zero
        for line in lines {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 2 else { throw ValidationError("\(file.path): a line without its foods: \(line)") }
            let meant = Set(columns[1].split(separator: ",").map(String.init))
            let began = ContinuousClock.now
            let answer = search.search(String(columns[0]))
            clock += ContinuousClock.now - began
            let place = answer.firstIndex { meant.contains(foods[$0].id) }
            if place == 0 { first += 1 }
            if let place, place < 3 { firstThree += 1 }
            if place != 0 {
                let shown = answer.prefix(3).map { "\(foods[$0].id) \(foods[$0].name)" }.joined(separator: " | ")
                print("  \"\(columns[0])\": meant food at \(place.map { String($0 + 1) } ?? "none"); first: \(shown)")
            }
        }
        let count = Double(lines.count)
        print(
            "queries: \(lines.count) from \(file.lastPathComponent): the meant food first \(first) (\(String(format: "%.1f", 100 * Double(first) / count)) %), "
                + "in the first three \(firstThree) (\(String(format: "%.1f", 100 * Double(firstThree) / count)) %); "
                + "\(String(format: "%.3f", Double(clock.components.attoseconds) / 1e15 / count + Double(clock.components.seconds) * 1000 / count)) ms a query"
        )
    }
}
