import CaretideIdentity
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import Foundation
import Hummingbird

/// The food table, for any signed-in caller (reference data):
/// - `GET /v1/foods?q=bean`: foods whose name holds every word, as a user types, the plain food a person means first
///   (`FoodSearch`): grouped by food group, the group with the best match first, each group's best matches first; the
///   first page holds the best of every group, so a grouped screen is complete from it; paged.
/// - `GET /v1/foods/{foodId}`: one food: its values per 100 g and the household portions the table gives.
/// Every answer names the table's release and its licence.
struct FoodRoutes: Sendable {
    let catalogue: FoodCatalogue

    struct Release: Encodable, Sendable {
        let id: String
        let name: String
        let licence: String
        let source: String
        /// Which import of it this is (`caretide foods import`).
        let number: Int64

        init(_ loaded: FoodCatalogue.Loaded) {
            id = loaded.release.id
            name = loaded.release.name
            licence = loaded.release.licence
            source = loaded.release.source
            number = loaded.number
        }
    }

    struct SearchAnswer: Encodable, Sendable {
        let release: Release
        let query: String
        /// How many foods match in all, across the pages.
        let total: Int
        let groups: [Group]
        let nextCursor: String?
    }

    struct Group: Encodable, Sendable {
        let category: String
        let foods: [Summary]
    }

    struct Summary: Encodable, Sendable {
        let id: String
        let name: String
    }

    struct FoodAnswer: Encodable, Sendable {
        let release: Release
        let id: String
        let name: String
        let category: String
        /// Energy in kcal, sodium in mg, the rest in g, per 100 g; a value the table does not give is absent.
        let per100g: Nutrients
        let portions: [FoodPortion]
    }

    static let notLoaded = HTTPProblem(status: .notFound, error: "no food table has been imported yet (caretide foods import)")

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/foods", access: .referenceData,
            summary: "Search the food table by name as a user types: every word must appear; grouped by food group, best matches first",
            query: [QueryParameter("q", "words of the food's name (at least one letter or digit)", required: true)], paged: true
        ) { request, _ in
            guard let loaded = catalogue.current else { throw Self.notLoaded }
            let query = request.uri.queryParameters.get("q") ?? ""
            try Self.checkQuery(query)
            return try jsonResponse(try Self.search(query, page: try PageRequest.from(request), in: loaded))
        }
        routes.get("v1/foods/:foodId", access: .referenceData, summary: "One food: its values per 100 g and its household portions") {
            _, context in
            guard let loaded = catalogue.current else { throw Self.notLoaded }
            guard let food = context.parameters.get("foodId").flatMap(loaded.food) else {
                throw HTTPProblem(status: .notFound, error: "no such food in \(loaded.release.name)")
            }
            return try jsonResponse(
                FoodAnswer(
                    release: Release(loaded), id: food.id, name: food.name, category: food.category, per100g: food.per100g,
                    portions: food.portions))
        }
    }

    /// A 400 unless the query holds a letter or a digit, in at most 200 characters.
    static func checkQuery(_ query: String) throws {
        guard query.contains(where: { $0.isLetter || $0.isNumber }), query.count <= 200 else {
            throw HTTPProblem(
                status: .badRequest, error: "the query is invalid",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["q"]), message: "must hold a word (up to 200 characters)")])
        }
    }

    /// The page of a checked query's answer over `loaded` that `page` asks for.
    static func search(_ query: String, page: PageRequest, in loaded: FoodCatalogue.Loaded) throws -> SearchAnswer {
        let blocks = loaded.search.blocks(query)
        // The first page holds the best of every food group (as many of each as fit); the round size is kept in
        // the cursor, so that the next pages continue the same order.
        let (offset, perRound) = try position(page.after, release: loaded.number, firstPage: (page.limit, blocks.count))
        let matches = FoodSearch.rounds(blocks, perRound: perRound)
        let shown = matches.dropFirst(offset).prefix(page.limit)
        // A page is shown grouped: each group's foods of the page together, the groups in the answer's order.
        var groups: [Group] = []
        var groupOfCategory: [String: Int] = [:]
        for index in shown {
            let food = loaded.foods[index]
            let summary = Summary(id: food.id, name: food.name)
            if let group = groupOfCategory[food.category] {
                groups[group] = Group(category: food.category, foods: groups[group].foods + [summary])
            } else {
                groupOfCategory[food.category] = groups.count
                groups.append(Group(category: food.category, foods: [summary]))
            }
        }
        let end = offset + shown.count
        return SearchAnswer(
            release: Release(loaded), query: query, total: matches.count, groups: groups,
            nextCursor: end < matches.count
                ? PageRequest.Cursor(position: String(end), id: cursorID(loaded.number, perRound: perRound)).encoded : nil)
    }

    /// Where a page starts in a search's answer, and the answer's round size (`FoodSearch.rounds`): from the cursor,
    /// or, on the first page, as many of each group as a page of `limit` holds for `groups` groups. A cursor from
    /// another release is refused, as its positions mean other foods.
    static func position(_ cursor: PageRequest.Cursor?, release: Int64, firstPage: (limit: Int, groups: Int)) throws -> (Int, Int) {
        guard let cursor else { return (0, max(1, firstPage.limit / max(1, firstPage.groups))) }
        let parts = cursor.id.split(separator: "/")
        guard parts.count == 2, parts[0] == cursorID(release), let perRound = Int(parts[1]), perRound >= 1, perRound <= PageRequest.maximumLimit,
            let offset = Int(cursor.position), offset >= 0
        else { throw PageRequest.badCursor }
        return (offset, perRound)
    }

    static func cursorID(_ release: Int64) -> String { "foods-\(release)" }

    static func cursorID(_ release: Int64, perRound: Int) -> String { "\(cursorID(release))/\(perRound)" }
}
