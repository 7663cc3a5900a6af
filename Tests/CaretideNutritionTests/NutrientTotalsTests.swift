import CaretideNutrition
import Testing

@Suite("Meal totals")
struct NutrientTotalsTests {
    /// A day of four fixture foods, in grams: 2 slices of white bread (18069, WEIGHT seq 1: 29 g each), 10 g of salted
    /// butter (01001), a medium apple (09003, seq 4: 182 g) and half a salmon fillet (15076, seq 2: 198 g). Salmon
    /// has no sugars value, so sugars are incomplete. The expected sums are the NUT_DATA values per 100 g × grams / 100:
    ///
    /// | NDB | 208 kcal | 203 g | 204 g | 606 g | 205 g | 269 g | 291 g | 307 mg |
    /// |---|---|---|---|---|---|---|---|---|
    /// | 18069 | 266 | 8.85 | 3.33 | 0.698 | 49.42 | 5.67 | 2.7 | 490 |
    /// | 01001 | 717 | 0.85 | 81.11 | 51.368 | 0.06 | 0.06 | 0.0 | 643 |
    /// | 09003 | 52 | 0.26 | 0.17 | 0.028 | 13.81 | 10.39 | 2.4 | 1 |
    /// | 15076 | 142 | 19.84 | 6.34 | 0.981 | 0.00 | — | 0.0 | 44 |
    @Test("A day's totals are the hand-computed sums; a food without sugars makes them incomplete")
    func fixtureDay() throws {
        let table = try Fixture.table()
        let bread = try Fixture.food("18069", in: table)
        let butter = try Fixture.food("01001", in: table)
        let apple = try Fixture.food("09003", in: table)
        let salmon = try Fixture.food("15076", in: table)
        let slice = try #require(bread.portions.first { $0.id == "1" })
        let slices = 2 * slice.grams
        let medium = try #require(apple.portions.first { $0.id == "4" })
        let fillet = try #require(salmon.portions.first { $0.id == "2" })
        #expect(slices == 58)
        #expect(medium.description == "1 medium (3\" dia)" && medium.grams == 182)
        #expect(fillet.description == "0.5 fillet" && fillet.grams == 198)

        var totals = NutrientTotals()
        let eaten: [(Food, Double)] = [(bread, slices), (butter, 10), (apple, medium.grams), (salmon, fillet.grams)]
        for (food, grams) in eaten { totals.add(food.per100g.scaled(toGrams: grams)) }
        let sums = totals.sums
        #expect(totals.entryCount == 4)
        // `of(value, grams)` is value × grams / 100; each line is bread + butter + apple + salmon.
        func of(_ per100g: Double, _ grams: Double) -> Double { per100g * grams / 100 }
        #expect(isClose(sums.energyKcal, of(266, 58) + of(717, 10) + of(52, 182) + of(142, 198)))  // 154.28 + 71.7 + 94.64 + 281.16
        #expect(isClose(sums.energyKcal, 601.78))
        #expect(isClose(sums.proteinG, of(8.85, 58) + of(0.85, 10) + of(0.26, 182) + of(19.84, 198)))  // 44.9744
        #expect(isClose(sums.fatG, of(3.33, 58) + of(81.11, 10) + of(0.17, 182) + of(6.34, 198)))  // 22.905
        #expect(isClose(sums.saturatedFatG, of(0.698, 58) + of(51.368, 10) + of(0.028, 182) + of(0.981, 198)))  // 7.53498
        #expect(isClose(sums.carbohydrateG, of(49.42, 58) + of(0.06, 10) + of(13.81, 182) + of(0.00, 198)))  // 53.8038
        #expect(isClose(sums.sugarsG, of(5.67, 58) + of(0.06, 10) + of(10.39, 182)))  // 22.2044, without salmon's
        #expect(isClose(sums.fibreG, of(2.7, 58) + of(0.0, 10) + of(2.4, 182) + of(0.0, 198)))  // 5.934
        #expect(isClose(sums.sodiumMg, of(490, 58) + of(643, 10) + of(1, 182) + of(44, 198)))  // 284.2 + 64.3 + 1.82 + 87.12 = 437.44
        #expect(totals.incomplete == [.sugars])
        // Salt = sodium × 2.5: 437.44 mg → 1.0936 g.
        #expect(isClose(totals.saltG, 437.44 * 2.5 / 1000))
    }

    @Test("Nothing added: every sum 0, nothing incomplete")
    func empty() {
        let totals = NutrientTotals()
        for nutrient in Nutrient.allCases { #expect(totals.sums[nutrient] == 0) }
        #expect(totals.incomplete.isEmpty)
        #expect(totals.entryCount == 0)
        #expect(totals.saltG == 0)
    }

    @Test("Scaling keeps a missing value missing; salt of table salt")
    func scaling() throws {
        let scaled = Nutrients(energyKcal: 200, sugarsG: nil, sodiumMg: 400).scaled(toGrams: 50)
        #expect(scaled == Nutrients(energyKcal: 100, sodiumMg: 200))
        #expect(scaled.sugarsG == nil)
        // Table salt (02047) is 38758 mg sodium per 100 g: a 6 g teaspoon holds 2325.48 mg, 5.8137 g of salt.
        let salt = try Fixture.food("02047", in: Fixture.table())
        #expect(salt.per100g.sodiumMg == 38758)
        var totals = NutrientTotals()
        totals.add(salt.per100g.scaled(toGrams: 6))
        #expect(isClose(totals.sums.sodiumMg, 38758 * 6 / 100))
        #expect(isClose(totals.saltG, 38758 * 6 / 100 * 2.5 / 1000))
        #expect(abs(totals.saltG - 6) < 0.2)  // sodium chloride is 39.3 % sodium: a teaspoon of salt is almost all salt
    }

    @Test("Units and subscripts")
    func units() {
        #expect(Nutrient.energy.unit == "kcal")
        #expect(Nutrient.sodium.unit == "mg")
        #expect(Nutrient.allCases.filter { $0.unit == "g" } == [.protein, .fat, .saturatedFat, .carbohydrate, .sugars, .fibre])
        var nutrients = Nutrients()
        for (offset, nutrient) in Nutrient.allCases.enumerated() { nutrients[nutrient] = Double(offset) }
        #expect(
            nutrients
                == Nutrients(energyKcal: 0, proteinG: 1, fatG: 2, saturatedFatG: 3, carbohydrateG: 4, sugarsG: 5, fibreG: 6, sodiumMg: 7))
    }
}
