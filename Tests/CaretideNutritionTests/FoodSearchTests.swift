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
                // "bean" starts a later word: the word "bean" itself first ("Soup, black bean, canned, condensed"), then
                // "beans" in 5-word names, alphabetically: "Babyfood, vegetables, green beans, …", "Chili, no beans, …",
                // "Fast foods, burrito, with beans"; then the 7 words of "KELLOGG'S, BEANATURAL, Original 3-Bean Chips".
                "Soups, Sauces, and Gravies", "Baby Foods", "Meals, Entrees, and Side Dishes", "Fast Foods", "Baked Products",
                // Inside a word: "Oil, soybean, salad or cooking" (the word ends with "bean") before "Candies, jellybeans".
                "Fats and Oils", "Sweets",
            ])
        #expect(
            answer.map { foods[$0].id } == [
                "16001", "16006", "16015", "16043", "16004",  // "Yokan, prepared from adzuki beans and sugar" last: a later word
                "11029", "11031",
                "06002", "06004",  // "Soup, black bean, …" (the word itself) before "Soup, bean with pork, …" (a longer name)
                "03091",
                "22911", "22904",  // "Chili, no beans, canned entree" (5 words) before "Chili con carne with beans, …" (7)
                "21060",
                "18992",
                "04044",
                "19108",
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
        // "Salt, table" (name start), then the word starts: the whole word "salt" of "Pasta, cooked, enriched, without
        // added salt" (6 words) and of "Peanut butter, smooth style, with salt" (6), whose block (Legumes) then takes
        // the two 8-word bean names; "Butter, salted" last, its word longer than the query's.
        #expect(ids("salt") == ["02047", "20121", "16098", "16015", "16043", "01001"])
        #expect(ids("butter") == ["01001", "16098"])
        #expect(ids("milk") == ["01077", "01116"])
    }

    @Test("A word the query nearly is beats a longer one at the same place: apple finds Apples before APPLEBEE'S")
    func nearestWord() {
        let foods = [
            Food(id: "36019", name: "APPLEBEE'S, chili", category: "Restaurant Foods", per100g: Nutrients(), portions: []),
            Food(id: "09003", name: "Apples, raw, with skin", category: "Fruits and Fruit Juices", per100g: Nutrients(), portions: []),
            Food(id: "09400", name: "Apple juice, canned or bottled", category: "Fruits and Fruit Juices", per100g: Nutrients(), portions: []),
        ]
        #expect(FoodSearch(foods: foods).search("apple").map { foods[$0].id } == ["09400", "09003", "36019"])
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
