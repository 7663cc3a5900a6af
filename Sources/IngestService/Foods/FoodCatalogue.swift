import CaretideNutrition
import CaretideRuntime
import CaretideStore
import Foundation
import Logging
import Synchronization

/// The food table this replica answers from: the newest release imported (`caretide foods import`), held in memory
/// for the search as a user types and for resolving meals, and swapped for a newer release within seconds of its
/// import (`refreshJob`), without downtime: a request works on the release it found.
final class FoodCatalogue: Sendable {
    /// A release as loaded: its foods, their index by id, and the search over their names.
    struct Loaded: Sendable {
        /// The release's number in `food_releases` (a re-import of the same source is a new number).
        let number: Int64
        let release: FoodRelease
        let foods: [Food]
        let positions: [String: Int]
        let search: FoodSearch

        init(number: Int64, table: FoodTable) {
            self.number = number
            release = table.release
            foods = table.foods
            positions = Dictionary(table.foods.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            search = FoodSearch(foods: table.foods)
        }

        func food(_ id: String) -> Food? { positions[id].map { foods[$0] } }
    }

    private let loaded = Mutex<Loaded?>(nil)

    /// The release loaded now, or nil before the first import.
    var current: Loaded? { loaded.withLock { $0 } }

    /// Loads the newest release if it is not the one held; true when it swapped.
    func refresh(context: ServiceContext) async throws -> Bool {
        let newest = try await FoodStore(context).newestRelease()
        guard let newest, newest != current?.number else { return false }
        guard let table = try await FoodStore(context).table(release: newest) else { return false }
        let next = Loaded(number: newest, table: table)
        loaded.withLock { $0 = next }
        context.logger.info(
            "food table loaded",
            metadata: [LogKey.count: "\(next.foods.count)", LogKey.foodRelease: "\(next.release.id)", LogKey.foodReleaseNumber: "\(newest)"])
        return true
    }

    /// Looks for a newer release every `interval` (a query on one row when there is none).
    func refreshJob(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "food table refresh", interval: interval, context: context) {
            try await self.refresh(context: context) ? 1 : 0
        }
    }
}

extension LogKey {
    static let foodRelease = "foodRelease"
    static let foodReleaseNumber = "foodReleaseNumber"
}
