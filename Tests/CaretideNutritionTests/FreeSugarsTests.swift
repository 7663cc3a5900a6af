import CaretideDomain
import CaretideNutrition
import Testing

@Suite("Free sugars estimated from a food's group and description")
struct FreeSugarsTests {
    @Test(
        "Each rule of the table, on SR28 descriptions",
        arguments: [
            ("Fruits and Fruit Juices", "Apples, raw, with skin", FreeSugars.Rule.none),
            ("Fruits and Fruit Juices", "Raisins, seedless", .none),
            ("Fruits and Fruit Juices", "Apple juice, canned or bottled, unsweetened, without added ascorbic acid", .all),
            ("Fruits and Fruit Juices", "Peaches, canned, heavy syrup pack, solids and liquids", .half),
            ("Fruits and Fruit Juices", "Strawberries, frozen, sweetened, sliced", .all),
            ("Vegetables and Vegetable Products", "Carrots, raw", .none),
            ("Vegetables and Vegetable Products", "Carrot juice, canned", .all),
            ("Beverages", "Beverages, carbonated, cola, contains caffeine", .all),
            ("Beverages", "Beverages, tea, black, brewed, prepared with tap water", .all),
            ("Sweets", "Honey", .all),
            ("Sweets", "Cocoa, dry powder, unsweetened", .none),
            ("Breakfast Cereals", "Cereals ready-to-eat, corn flakes", .all),
            ("Breakfast Cereals", "Cereals, oats, regular and quick, not fortified, dry", .none),
            ("Breakfast Cereals", "Cereals, oats, instant, fortified, with cinnamon and spice, dry", .all),
            ("Dairy and Egg Products", "Milk, whole, 3.25% milkfat, with added vitamin D", .none),
            ("Dairy and Egg Products", "Yogurt, plain, whole milk", .none),
            ("Dairy and Egg Products", "Cream, fluid, heavy whipping", .none),
            ("Dairy and Egg Products", "Yogurt, fruit, low fat, 10 grams protein per 8 ounce", .aboveLactose),
            ("Dairy and Egg Products", "Ice creams, vanilla", .aboveLactose),
            ("Dairy and Egg Products", "Milk, chocolate, fluid, commercial, whole", .aboveLactose),
            ("Soups, Sauces, and Gravies", "Soup, tomato, canned, condensed", .half),
            ("Legumes and Legume Products", "Tofu, raw, firm, prepared with calcium sulfate", .none),
        ] as [(String, String, FreeSugars.Rule)])
    func rules(category: String, name: String, rule: FreeSugars.Rule) {
        #expect(FreeSugars.rule(category: category, name: name) == rule)
    }

    static func food(_ category: String, _ name: String, sugars: Double?, energy: Double) -> Food {
        Food(id: "1", name: name, category: category, per100g: Nutrients(energyKcal: energy, sugarsG: sugars), portions: [])
    }

    @Test("Grams: all, none, half, and what lies above the lactose of plain milk")
    func grams() {
        #expect(FreeSugars.per100g(of: Self.food("Sweets", "Honey", sugars: 82.12, energy: 304)) == 82.12)
        #expect(FreeSugars.per100g(of: Self.food("Fruits and Fruit Juices", "Apples, raw, with skin", sugars: 10.39, energy: 52)) == 0)
        #expect(FreeSugars.per100g(of: Self.food("Soups, Sauces, and Gravies", "Soup, tomato", sugars: 8, energy: 70)) == 4)
        #expect(FreeSugars.per100g(of: Self.food("Dairy and Egg Products", "Ice creams, vanilla", sugars: 21.22, energy: 207)) == 21.22 - 5)
        // A flavoured dairy food with no more sugars than plain milk has none free.
        #expect(FreeSugars.per100g(of: Self.food("Dairy and Egg Products", "Milk, chocolate", sugars: 4.5, energy: 60)) == 0)
        #expect(FreeSugars.per100g(of: Self.food("Sweets", "Honey", sugars: nil, energy: 304)) == nil)
        // Scaled to the amount eaten with the other nutrients.
        let eaten = Self.food("Beverages", "Beverages, carbonated, cola", sugars: 8.97, energy: 37).nutrients(forGrams: 330)
        #expect(abs((eaten.freeSugarsG ?? 0) - 8.97 * 3.3) < 1e-9)
        #expect(eaten.sugarsG == eaten.freeSugarsG)
    }

    static func day(_ foods: [(Food, Double)]) -> NutrientTotals {
        var totals = NutrientTotals()
        for (food, grams) in foods { totals.add(food.nutrients(forGrams: grams)) }
        return totals
    }

    static let apple = food("Fruits and Fruit Juices", "Apples, raw, with skin", sugars: 10.39, energy: 52)
    static let cola = food("Beverages", "Beverages, carbonated, cola, contains caffeine", sugars: 8.97, energy: 37)
    static let rice = food("Cereal Grains and Pasta", "Rice, white, long-grain, regular, cooked", sugars: 0.05, energy: 130)

    @Test("A day of whole fruit draws no sugar warning; a day of soft drinks does")
    func fruitAndSoftDrinks() throws {
        // 1 kg of apples: 520 kcal, 104 g of sugars (80 % of the energy), none of them free.
        let fruit = DayAnalysis(totals: Self.day([(Self.apple, 1000)]), sex: .female, age: 30)
        let fruitSugars = try #require(fruit.checks.first { $0.nutrient == .sugars })
        #expect(fruitSugars.status == .belowLimit)
        #expect(fruitSugars.value == 0)
        #expect(fruitSugars.estimate == DayAnalysis.freeSugarsEstimated)
        #expect(!fruit.tips.contains(.nutritionSugarsPossiblyAbove) && !fruit.tips.contains(.nutritionFreeSugarsAbove))
        // Rice and a litre of cola: the cola's sugars are all free.
        let drinks = DayAnalysis(totals: Self.day([(Self.rice, 1000), (Self.cola, 1000)]), sex: .female, age: 30)
        let drinkSugars = try #require(drinks.checks.first { $0.nutrient == .sugars })
        #expect(drinkSugars.status == .atOrAboveLimit)
        #expect(drinks.tips.contains(.nutritionFreeSugarsAbove))
    }

    /// Free sugars of exactly 10 % of the energy are at the limit; just below is below.
    @Test("The boundary: 10 % of energy from free sugars")
    func boundary() throws {
        // 100 g of free sugars give 400 kcal; with 3,600 kcal of sugar-free energy the day has 4,000 kcal: 10 %.
        let sugar = Self.food("Sweets", "Sugars, granulated", sugars: 100, energy: 400)
        let plain = Self.food("Fats and Oils", "Oil, olive", sugars: 0, energy: 900)
        let at = DayAnalysis(totals: Self.day([(sugar, 100), (plain, 400)]), sex: .female, age: 30)
        #expect(try #require(at.checks.first { $0.nutrient == .sugars }).status == .atOrAboveLimit)
        let below = DayAnalysis(totals: Self.day([(sugar, 99.99), (plain, 400)]), sex: .female, age: 30)
        #expect(try #require(below.checks.first { $0.nutrient == .sugars }).status == .belowLimit)
    }

    /// A meal recorded before the estimate existed has total sugars only: the day is judged on them, as before.
    @Test("A meal without an estimate: total sugars, and the answer says so")
    func olderMeal() throws {
        var totals = Self.day([(Self.apple, 1000)])
        totals.add(Nutrients(energyKcal: 52, sugarsG: 10.39))
        let analysis = DayAnalysis(totals: totals, sex: .female, age: 30)
        let sugars = try #require(analysis.checks.first { $0.nutrient == .sugars })
        #expect(sugars.status == .possiblyAboveLimit)
        #expect(sugars.estimate == DayAnalysis.totalSugars)
        #expect(analysis.tips.contains(.nutritionSugarsPossiblyAbove))
        #expect(totals.withoutFreeSugars == 1)
    }
}
