import CaretideNutrition
import Foundation
import Testing

@Suite("Food search")
struct FoodSearchTests {
    let foods: [Food]
    let search: FoodSearch

    init() throws {
        foods = try Fixture.table().foods
        search = FoodSearch(foods: foods)
    }

    func ids(_ query: String) -> [String] { search.search(query).map { foods[$0].id } }

    /// The categories of an answer in order, each once: a category's foods form one block.
    func blocks(_ answer: [Int]) -> [String] {
        var categories: [String] = []
        for index in answer where categories.last != foods[index].category { categories.append(foods[index].category) }
        return categories
    }

    @Test("\"bean\" answers every food whose name holds it, one block per category, the best block first")
    func bean() {
        let answer = search.search("bean")
        #expect(answer.allSatisfy { foods[$0].name.lowercased().contains("bean") })
        #expect(Set(answer) == Set(foods.indices.filter { foods[$0].name.lowercased().contains("bean") }))
        #expect(answer.count == 16)
        let categories = blocks(answer)
        #expect(Set(categories).count == categories.count, "a category appears in two blocks: \(categories)")
        #expect(
            categories == [
                // "Beans, …" starts the name: Legumes ("Beans, adzuki, mature seeds, raw", 5 words) before Vegetables
                // ("Beans, kidney, mature seeds, sprouted, raw", 6 words).
                "Legumes and Legume Products", "Vegetables and Vegetable Products",
                // "bean…" starts a later word, 5 words each, so alphabetically: "Babyfood, vegetables, green beans, …",
                // "Chili, no beans, …", "Fast foods, burrito, with beans", "Soup, black bean, …"; then the 7 words of
                // "KELLOGG'S, BEANATURAL, Original 3-Bean Chips".
                "Baby Foods", "Meals, Entrees, and Side Dishes", "Fast Foods", "Soups, Sauces, and Gravies", "Baked Products",
                // Inside a word: "Candies, jellybeans" (2 words), "Oil, soybean, salad or cooking" (5 words).
                "Sweets", "Fats and Oils",
            ])
        #expect(
            answer.map { foods[$0].id } == [
                "16001", "16006", "16015", "16043", "16004",  // "Yokan, prepared from adzuki beans and sugar" last: a later word
                "11029", "11031",
                "03091",
                "22911", "22904",  // "Chili, no beans, canned entree" (5 words) before "Chili con carne with beans, …" (7)
                "21060",
                "06002", "06004",
                "18992",
                "19108",
                "04044",
            ])
    }

    @Test("Upper and lower case are the same")
    func caseInsensitive() {
        #expect(ids("BEAN") == ids("bean"))
        #expect(ids("Bean") == ids("bean"))
        #expect(ids("kellogg") == ["18992"])
        #expect(ids("BeAnAtUrAl") == ["18992"])
    }

    @Test("Every word of a query must be in the name, anywhere")
    func severalWords() {
        #expect(ids("soy sauce") == ["16124", "16123"])  // "… (tamari)" has fewer words than "… and wheat (shoyu)"
        #expect(ids("sauce soy") == ids("soy sauce"))
        #expect(ids("beans raw") == ["16001", "11029", "11031"])
        #expect(ids("beans, raw!") == ids("beans raw"))
        #expect(ids("3-bean") == ["18992"])
        #expect(ids("chicken breast") == ["05064"])
        #expect(ids("bean zucchini").isEmpty)
    }

    @Test("A word at a later word's start beats one inside a word; groups follow their best food")
    func placement() {
        // "Salt, table" (name start), "Butter, salted" (a word start, 2 words), then the word starts of longer names:
        // "Pasta, cooked, enriched, without added salt" (6 words) before "Peanut butter, smooth style, with salt" (6),
        // whose block (Legumes) then takes the two 8-word bean names.
        #expect(ids("salt") == ["02047", "01001", "20121", "16098", "16015", "16043"])
        #expect(ids("butter") == ["01001", "16098"])
        #expect(ids("milk") == ["01077", "01116"])
    }

    @Test("An empty query, one without a letter or digit, or one nothing matches, answers nothing")
    func nothing() {
        #expect(search.search("").isEmpty)
        #expect(search.search("   ").isEmpty)
        #expect(search.search(", - ;").isEmpty)
        #expect(search.search("zucchini").isEmpty)
        #expect(FoodSearch(foods: []).search("bean").isEmpty)
    }
}
