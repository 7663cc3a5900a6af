import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// The food search's pages (`FoodRoutes.search`): the first page holds every food group's best, each page is shown
/// grouped, the pages together are the whole answer once, and a cursor only continues the answer of its own release.
@Suite struct FoodSearchPageTests {
    static func food(_ id: String, _ name: String, _ category: String) -> Food {
        Food(id: id, name: name, category: category, per100g: Nutrients(), portions: [])
    }

    static let legumes = "Legume and Legume Products"
    static let vegetables = "Vegetables and Vegetable Products"
    static let soups = "Soups, Sauces, and Gravies"
    /// Six beans in three groups (three, two and one of them), and a food that is no bean.
    static let loaded = FoodCatalogue.Loaded(
        number: 7,
        table: FoodTable(
            release: FoodRelease(id: "test", name: "a test table", licence: "none", source: "here"),
            foods: [
                food("16014", "Beans, black, mature seeds, raw", legumes), food("16027", "Beans, kidney, red, mature seeds, raw", legumes),
                food("16037", "Beans, navy, mature seeds, raw", legumes), food("11052", "Beans, snap, green, raw", vegetables),
                food("11056", "Beans, snap, yellow, raw", vegetables), food("06013", "Soup, bean with pork, canned", soups),
                food("01001", "Butter, salted", "Dairy and Egg Products"),
            ]))
    static let beans: Set<String> = ["16014", "16027", "16037", "11052", "11056", "06013"]

    static func category(of id: String) -> String? { loaded.food(id)?.category }

    /// Every page of the answer to `query`, `limit` foods at a time, following each page's cursor.
    static func pages(_ query: String, limit: Int) throws -> [FoodRoutes.SearchAnswer] {
        var pages = [try FoodRoutes.search(query, page: PageRequest(limit: limit), in: loaded)]
        while let next = pages.last?.nextCursor, pages.count < 20 {
            let cursor = try #require(PageRequest.Cursor(encoded: next))
            pages.append(try FoodRoutes.search(query, page: PageRequest(limit: limit, after: cursor), in: loaded))
        }
        return pages
    }

    @Test("a first page of five for three groups holds one of each group in a first round, then the next of each")
    func firstPageHoldsEveryGroup() throws {
        let page = try FoodRoutes.search("bean", page: PageRequest(limit: 5), in: Self.loaded)
        #expect(page.total == 6 && page.query == "bean")
        #expect(page.release.id == "test" && page.release.number == 7 && page.release.licence == "none")
        #expect(Set(page.groups.map(\.category)) == [Self.legumes, Self.vegetables, Self.soups])
        let counts = Dictionary(uniqueKeysWithValues: page.groups.map { ($0.category, $0.foods.count) })
        #expect(counts == [Self.legumes: 2, Self.vegetables: 2, Self.soups: 1])
        for group in page.groups { #expect(group.foods.allSatisfy { Self.category(of: $0.id) == group.category }) }

        let cursor = try #require(page.nextCursor.flatMap(PageRequest.Cursor.init(encoded:)))
        #expect(cursor.position == "5" && cursor.id == "foods-7/1")
    }

    @Test("the pages together are the whole answer, each food once, the groups in the order of their best food")
    func pagesCoverTheAnswerOnce() throws {
        let best = try #require(Self.loaded.search.blocks("bean").first?.first)
        for limit in [1, 2, 4, 5, 6, 50] {
            let pages = try Self.pages("bean", limit: limit)
            let ids = pages.flatMap { $0.groups.flatMap { $0.foods.map(\.id) } }
            #expect(ids.count == 6 && Set(ids) == Self.beans, "limit \(limit)")
            #expect(pages.allSatisfy { $0.total == 6 })
            #expect(pages.dropLast().allSatisfy { $0.nextCursor != nil } && pages.last?.nextCursor == nil)
            #expect(pages[0].groups.first?.foods.first?.id == Self.loaded.foods[best].id)
        }
        #expect(try Self.pages("bean", limit: 6).count == 1)
        #expect(try Self.pages("bean", limit: 5).count == 2)
    }

    @Test("a query nothing matches answers an empty page with no cursor")
    func nothingMatches() throws {
        let page = try FoodRoutes.search("zucchini", page: PageRequest(limit: 10), in: Self.loaded)
        #expect(page.total == 0 && page.groups.isEmpty && page.nextCursor == nil)
    }

    @Test("the first page's round size: as many of each group as the page holds, at least one")
    func firstPageRoundSize() throws {
        func firstPage(limit: Int, groups: Int) throws -> [Int] {
            let (offset, perRound) = try FoodRoutes.position(nil, release: 7, firstPage: (limit: limit, groups: groups))
            return [offset, perRound]
        }
        #expect(try firstPage(limit: 50, groups: 3) == [0, 16])
        #expect(try firstPage(limit: 2, groups: 5) == [0, 1])
        #expect(try firstPage(limit: 50, groups: 0) == [0, 50])
    }

    @Test("a cursor continues where it says, with its round size; one of another release or of another form is refused")
    func cursors() throws {
        func position(_ offset: String, _ id: String) throws -> [Int] {
            let (start, perRound) = try FoodRoutes.position(
                PageRequest.Cursor(position: offset, id: id), release: 7, firstPage: (limit: 50, groups: 3))
            return [start, perRound]
        }
        #expect(try position("40", "foods-7/16") == [40, 16])
        #expect(try position("0", "foods-7/500") == [0, 500])
        #expect(FoodRoutes.cursorID(7, perRound: 16) == "foods-7/16")
        for (offset, id) in [
            ("40", "foods-6/16"), ("40", "foods-7/0"), ("40", "foods-7/501"), ("-1", "foods-7/16"), ("x", "foods-7/16"), ("40", "foods-7"),
            ("40", "foods-7/16/2"), ("40", "foods-7/a"),
        ] {
            do {
                _ = try position(offset, id)
                Issue.record("accepted the cursor \(offset) \(id)")
            } catch let problem as HTTPProblem {
                #expect(problem.violations.map(\.pointer) == ["/cursor"])
            }
        }
    }

    @Test("a query must hold a letter or a digit, in at most 200 characters")
    func queryChecks() {
        func accepted(_ query: String) -> Bool { (try? FoodRoutes.checkQuery(query)) != nil }
        #expect(accepted("bean") && accepted("7up") && accepted("crème") && accepted(String(repeating: "a", count: 200)))
        #expect(!accepted("") && !accepted("   ") && !accepted(", - .") && !accepted(String(repeating: "a", count: 201)))
        do {
            try FoodRoutes.checkQuery("")
            Issue.record("accepted an empty query")
        } catch let problem as HTTPProblem {
            #expect(problem.error == "the query is invalid" && problem.violations.map(\.pointer) == ["/q"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
