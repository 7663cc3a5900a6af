import CaretideNutrition
import Foundation
import Testing

/// The SR28 subset written by `scripts/make-food-fixture` (46 foods, every food group, the 8 nutrients Caretide
/// reads; rows copied byte for byte from the release).
enum Fixture {
    static func directory() throws -> URL {
        let file = try #require(Bundle.module.url(forResource: "FOOD_DES", withExtension: "txt", subdirectory: "Fixtures/sr28-subset"))
        return file.deletingLastPathComponent()
    }

    static func table() throws -> FoodTable { try StandardReference.load(directory: directory()) }

    /// One of the fixture's files as text (they are ASCII).
    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory().appendingPathComponent(name), encoding: .utf8)
    }

    static func food(_ id: String, in table: FoodTable) throws -> Food { try #require(table.food(id: id)) }
}

/// Equal to within rounding: the sums add products of decimal values, which binary floating point rounds.
func isClose(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
}

/// A day holding one entry with these amounts.
func day(_ nutrients: Nutrients) -> NutrientTotals {
    var totals = NutrientTotals()
    totals.add(nutrients)
    return totals
}
