import CaretideSchemas
import PhenotypeRanking
import Testing

@testable import DiagnosisService

/// The search and listing parameters of `GET /v1/phenotypes` and `GET /v1/diseases`: the text and limit a search
/// takes, the page a cursor continues from, and the names clients read for how a result matched.
@Suite struct SearchParameterTests {
    static func read(_ query: String?, limit: String? = nil) -> (query: String, limit: Int, pointers: [String]) {
        let read = SearchRoutes.readSearchParameters(query: query, limit: limit)
        return (read.query, read.limit, read.violations.map(\.pointer))
    }

    @Test("a search text of 1 to 200 characters with something besides spaces; 20 results unless a limit is given")
    func searchText() {
        let plain = Self.read("seizure")
        #expect(plain.query == "seizure" && plain.limit == 20 && plain.pointers.isEmpty)
        #expect(Self.read(" HP:0001250 ").query == " HP:0001250 ")
        #expect(Self.read(String(repeating: "a", count: 200)).pointers.isEmpty)
        #expect(Self.read(String(repeating: "a", count: 201)).pointers == ["/q"])
        #expect(Self.read("").pointers == ["/q"])
        #expect(Self.read("   ").pointers == ["/q"])
        #expect(Self.read(nil).pointers == ["/q"])
    }

    @Test("a limit is a whole number from 1 to 100")
    func limit() {
        #expect(Self.read("seizure", limit: "1").limit == 1)
        #expect(Self.read("seizure", limit: "100").limit == 100)
        for bad in ["0", "101", "-5", "ten", "2.5", ""] {
            let read = Self.read("seizure", limit: bad)
            #expect(read.pointers == ["/limit"], "limit \(bad)")
            #expect(read.limit == 20)
        }
    }

    @Test("every bad parameter is named at once, in order of its pointer")
    func everyViolation() {
        #expect(Self.read("", limit: "0").pointers == ["/limit", "/q"])
    }

    @Test("a list's first page starts at its first entry; a next page exists while entries remain after it")
    func firstPages() {
        let none: (String) -> Int? = { _ in nil }
        #expect(SearchRoutes.pageRange(after: nil, limit: 2, count: 5, position: none) == 0..<2)
        #expect(SearchRoutes.pageRange(after: nil, limit: 50, count: 5, position: none) == 0..<5)
        #expect(SearchRoutes.pageRange(after: nil, limit: 50, count: 0, position: none) == 0..<0)
    }

    @Test("a cursor continues after the entry it names; one naming an entry this release lacks is refused")
    func cursors() {
        let order = ["HP:0000001", "HP:0000002", "HP:0000003", "HP:0000004", "HP:0000005"]
        let position: (String) -> Int? = { order.firstIndex(of: $0) }
        #expect(SearchRoutes.pageRange(after: "HP:0000002", limit: 2, count: order.count, position: position) == 2..<4)
        #expect(SearchRoutes.pageRange(after: "HP:0000004", limit: 2, count: order.count, position: position) == 4..<5)
        #expect(SearchRoutes.pageRange(after: "HP:0000005", limit: 2, count: order.count, position: position) == 5..<5)
        #expect(SearchRoutes.pageRange(after: "HP:9999999", limit: 2, count: order.count, position: position) == nil)
    }

    @Test("the match kinds as clients read them, each its own name")
    func matchNames() {
        #expect(
            SearchMatchKind.allCases.map(\.name) == ["exactId", "exactName", "namePrefix", "wordPrefix", "synonym", "idPrefix"])
    }
}
