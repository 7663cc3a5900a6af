import Foundation
import Testing

@testable import CaretideNutrition

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
                // The word itself ("bean" or "beans") first: generic foods (Legumes, whose best is raw adzuki beans,
                // then Vegetables, then Soups), then the brand and the prepared groups; inside a word last ("Oil,
                // soybean, …" before "Candies, jellybeans").
                "Legumes and Legume Products", "Vegetables and Vegetable Products", "Soups, Sauces, and Gravies", "Baked Products",
                "Baby Foods", "Fast Foods", "Meals, Entrees, and Side Dishes", "Fats and Oils", "Sweets",
            ])
        #expect(
            answer.map { foods[$0].id } == [
                // Beans at the head of the name: raw (a plain mark) before cooked, cooked before canned (a mark of
                // processing); "Yokan, prepared from adzuki beans and sugar" last, beans not being its head.
                "16001", "16043", "16015", "16006", "16004",
                "11029", "11031",
                "06002", "06004",
                "18992",
                "03091",
                "21060",
                "22911", "22904",
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
        #expect(ids("soy sauce") == ["16123", "16124"])  // "… and wheat (shoyu)" has more household portions than "… (tamari)"
        #expect(ids("sauce soy") == ids("soy sauce"))
        #expect(ids("beans raw") == ["16001", "11029", "11031"])
        #expect(ids("beans, raw!") == ids("beans raw"))
        #expect(ids("3-bean") == ["18992"])
        #expect(ids("chicken breast") == ["05064"])
        #expect(ids("bean zucchini").isEmpty)
    }

    @Test("The word itself beats the start of a longer word; groups follow their best food")
    func placement() {
        // "Salt, table" (the head), then the word "salt" further on: pasta, then peanut butter, whose block (Legumes)
        // then takes the two bean names; "Butter, salted" last, "salt" only starting its word.
        #expect(ids("salt") == ["02047", "20121", "16098", "16043", "16015", "01001"])
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

/// The ranking rules one by one, on foods named as SR28 names them.
@Suite("Food search ranking")
struct FoodSearchRankingTests {
    static func food(_ id: String, _ name: String, _ category: String = "Fruits and Fruit Juices", portions: Int = 1) -> Food {
        Food(
            id: id, name: name, category: category, per100g: Nutrients(),
            portions: (0..<portions).map { FoodPortion(id: String($0 + 1), description: "1 cup", grams: 100) })
    }

    func order(_ query: String, _ foods: [Food]) -> [String] { FoodSearch(foods: foods).search(query).map { foods[$0].id } }

    @Test("\"apple\" answers the raw apple before apple juice, a dish made with apples, a baby food and a restaurant's dish")
    func plainFoodFirst() {
        let foods = [
            Self.food("36019", "APPLEBEE'S, chili", "Restaurant Foods"),
            Self.food("03166", "Babyfood, juice, apple", "Baby Foods"),
            Self.food("18354", "Strudel, apple", "Baked Products"),
            Self.food("09016", "Apple juice, canned or bottled, unsweetened, without added ascorbic acid"),
            Self.food("09011", "Apples, dried, sulfured, uncooked"),
            Self.food("09004", "Apples, raw, without skin"),
            Self.food("09003", "Apples, raw, with skin"),
        ]
        #expect(order("apple", foods).first == "09003")
        // Raw apples (the head, a plain mark), dried ones (a mark of processing), apple juice (apple only part of the
        // head), strudel (apple outside the head); then the baby food and the restaurant's dish ("apple" starts the
        // longer word "applebee").
        #expect(order("apple", foods) == ["09003", "09004", "09011", "09016", "18354", "03166", "36019"])
        // A query that asks for juice finds the juice first: the mark it asks for is no mark.
        #expect(order("apple juice", foods).first == "09016")
    }

    @Test("A genus the table puts first is skipped: \"Fish, salmon\" is salmon, \"Salmon nuggets\" a dish of it")
    func genus() {
        let foods = [
            Self.food("15269", "Salmon nuggets, breaded, frozen, heated", "Finfish and Shellfish Products"),
            Self.food("15236", "Fish, salmon, Atlantic, farmed, raw", "Finfish and Shellfish Products"),
        ]
        #expect(order("salmon", foods) == ["15236", "15269"])
    }

    @Test("Modified variants after the plain one, unless the query asks for one; more household portions first")
    func variants() {
        let foods = [
            Self.food("01305", "Milk, chocolate, lowfat, reduced sugar", "Dairy and Egg Products", portions: 3),
            Self.food("01085", "Milk, nonfat, fluid, with added vitamin A and vitamin D (fat free or skim)", "Dairy and Egg Products", portions: 4),
            Self.food("01107", "Milk, human, mature, fluid", "Dairy and Egg Products", portions: 2),
            Self.food("01077", "Milk, whole, 3.25% milkfat, with added vitamin D", "Dairy and Egg Products", portions: 6),
        ]
        #expect(order("milk", foods) == ["01077", "01107", "01085", "01305"])
        #expect(order("skim milk", foods) == ["01085"])
        #expect(order("nonfat milk", foods).first == "01085")
    }

    @Test("\"whole\" of whole wheat names a flour, not the whole food")
    func wholeWheat() {
        let foods = [
            Self.food("20125", "Pasta, whole-wheat, cooked", "Cereal Grains and Pasta"),
            Self.food("20121", "Pasta, cooked, enriched, without added salt", "Cereal Grains and Pasta", portions: 2),
        ]
        // Were "whole" a plain mark here, the whole-wheat pasta would come first; as it is not, portions decide.
        #expect(order("pasta", foods) == ["20121", "20125"])
    }

    @Test("Singular and plural are one word; the word as typed beats its other number")
    func numbers() {
        let foods = [
            Self.food("09070", "Cherries, sweet, raw"), Self.food("11529", "Tomatoes, red, ripe, raw, year round average"),
            Self.food("04528", "Oil, walnut", "Fats and Oils"), Self.food("12155", "Nuts, walnuts, english", "Nut and Seed Products"),
        ]
        #expect(order("cherry", foods) == ["09070"])
        #expect(order("tomato", foods) == ["11529"])
        #expect(order("walnuts", foods) == ["12155", "04528"])
        #expect(order("walnut", foods) == ["04528", "12155"])
    }

    @Test("One typo in a word of five letters or more finds the food; a word found as typed is not read as a typo")
    func typos() {
        let foods = [
            Self.food("09040", "Bananas, raw"), Self.food("11090", "Broccoli, raw", "Vegetables and Vegetable Products"),
            Self.food("09236", "Peaches, yellow, raw"), Self.food("09252", "Pears, raw"), Self.food("09003", "Apples, raw, with skin"),
        ]
        #expect(order("bananna", foods) == ["09040"])  // a letter added
        #expect(order("bnana", foods) == ["09040"])  // a letter missing
        #expect(order("brocoli raw", foods) == ["11090"])
        #expect(order("brokkoli", foods).isEmpty)  // two edits
        #expect(order("appel", foods) == ["09003"])  // two letters swapped
        #expect(order("paech", foods) == ["09236"])
        #expect(order("peach", foods) == ["09236"])  // found as typed: "pears" is not one letter from it
        #expect(order("pera", foods).isEmpty)  // four letters: no typo allowed
    }

    @Test("Other names (British, the seed's own) find the table's food, once")
    func synonyms() {
        let foods = [
            Self.food("16427", "Tofu, raw, regular, prepared with calcium sulfate", "Legumes and Legume Products"),
            Self.food("16120", "Soymilk, original and vanilla, unfortified", "Legumes and Legume Products"),
            Self.food("11477", "Squash, summer, zucchini, includes skin, raw", "Vegetables and Vegetable Products"),
            Self.food("11209", "Eggplant, raw", "Vegetables and Vegetable Products"),
            Self.food("23572", "Beef, ground, 80% lean meat / 20% fat, raw", "Beef Products"),
            Self.food("06002", "Soup, black bean, canned, condensed", "Soups, Sauces, and Gravies"),
        ]
        #expect(order("bean curd", foods) == ["16427"])
        #expect(order("soya bean milk", foods) == ["16120"])
        #expect(order("soya milk", foods) == ["16120"])
        #expect(order("courgette", foods) == ["11477"])
        #expect(order("aubergine", foods) == ["11209"])
        #expect(order("mince", foods) == ["23572"])
        // "bean" itself still finds the soup; the bean curd is tofu, not a bean.
        #expect(order("bean", foods) == ["06002"])
    }

    @Test("A query of many other names is read in a few ways only, not in every combination")
    func boundedAlternatives() {
        let search = FoodSearch(foods: [Self.food("09148", "Kiwifruit, green, raw")])
        let many =
            "kiwi soya mince swede maize prawn rocket gammon crisps treacle ketchup yoghurt garbanzo capsicum porridge beetroot groundnut sweetcorn"
        #expect(search.alternatives(of: FoodSearch.words(of: many)).count == FoodSearch.maximumAlternatives)
        #expect(search.search(many).isEmpty)
        #expect(search.search("kiwi").map { $0 } == [0])
    }

    @Test("Rounds put every block's best first: a grouped page is complete")
    func rounds() {
        #expect(FoodSearch.rounds([[1, 2, 3], [4], [5, 6]], perRound: 2) == [1, 2, 4, 5, 6, 3])
        #expect(FoodSearch.rounds([[1, 2, 3], [4], [5, 6]], perRound: 1) == [1, 4, 5, 2, 6, 3])
        #expect(FoodSearch.rounds([[1, 2]], perRound: 0) == [1, 2])
        #expect(FoodSearch.rounds([], perRound: 3).isEmpty)
    }

    @Test("One edit: a letter added, missing, changed, or two neighbours swapped")
    func oneEdit() {
        func within(_ a: String, _ b: String) -> Bool {
            Array(a.utf8).withUnsafeBufferPointer { a in Array(b.utf8).withUnsafeBufferPointer { FoodSearch.withinOneEdit(a, $0) } }
        }
        #expect(within("apple", "apple") && within("apple", "appel") && within("apple", "aple") && within("apple", "applle"))
        #expect(within("apple", "apply") && !within("apple", "aplpe x") && !within("apple", "paple ") && !within("apple", "elppa"))
        #expect(!within("banana", "bananna ") && within("banana", "bananna"))
    }
}
