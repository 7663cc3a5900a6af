/// A household measure of a food and what it weighs (SR28 `WEIGHT.txt`).
public struct FoodPortion: Sendable, Equatable, Hashable, Codable {
    /// The measure's sequence number within its food (`Seq`, e.g. `"1"`).
    public let id: String
    /// The amount and the measure, e.g. `"1 cup, chopped"` or `"0.5 fillet"` (`Amount`, without a trailing `.0`,
    /// a space, `Msre_Desc`).
    public let description: String
    /// What the portion weighs, g (`Gm_Wgt`).
    public let grams: Double

    public init(id: String, description: String, grams: Double) {
        self.id = id
        self.description = description
        self.grams = grams
    }
}

/// One food of a food table.
public struct Food: Sendable, Equatable, Hashable, Codable {
    /// The table's identifier of the food (SR28: `NDB_No`, e.g. `"01001"`).
    public let id: String
    /// The food's full name (SR28: `Long_Desc`, e.g. `"Butter, salted"`).
    public let name: String
    /// Its food group (SR28: `FdGrp_Desc`, e.g. `"Dairy and Egg Products"`).
    public let category: String
    /// The amounts in 100 g of the edible portion.
    public let per100g: Nutrients
    /// Household measures, in the table's order.
    public let portions: [FoodPortion]

    public init(id: String, name: String, category: String, per100g: Nutrients, portions: [FoodPortion]) {
        self.id = id
        self.name = name
        self.category = category
        self.per100g = per100g
        self.portions = portions
    }
}

/// Which food table, under which licence and from where: shown beside every food and stored with every meal.
public struct FoodRelease: Sendable, Equatable, Hashable, Codable {
    /// A stable short identifier, e.g. `"usda-sr28"`.
    public let id: String
    public let name: String
    public let licence: String
    /// Where the table is published.
    public let source: String

    public init(id: String, name: String, licence: String, source: String) {
        self.id = id
        self.name = name
        self.licence = licence
        self.source = source
    }
}

/// A food composition table: its release and its foods.
public struct FoodTable: Sendable, Equatable {
    public let release: FoodRelease
    /// Sorted by ``Food/id``.
    public let foods: [Food]

    /// Sorts `foods` by id.
    public init(release: FoodRelease, foods: [Food]) {
        self.release = release
        self.foods = foods.sorted { $0.id < $1.id }
    }

    /// The food with this id, or nil (a binary search).
    public func food(id: String) -> Food? {
        var low = 0
        var high = foods.count
        while low < high {
            let middle = (low + high) / 2
            if foods[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < foods.count && foods[low].id == id ? foods[low] : nil
    }
}

/// A food table file that cannot be read: which file, which line (1-based; 0 when the whole file is at fault) and
/// what is wrong. It names no patient data, only the table's own content.
public struct FoodCompositionError: Error, CustomStringConvertible, Equatable {
    /// The file's name, e.g. `"NUT_DATA.txt"`.
    public let file: String
    public let line: Int
    public let message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file), line \(line): \(message)" : "\(file): \(message)" }
}
