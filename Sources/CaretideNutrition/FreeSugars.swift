/// Free sugars, estimated from a food's total sugars by its food group and description.
///
/// WHO limits *free* sugars: "monosaccharides and disaccharides added to foods and beverages by the manufacturer, cook
/// or consumer, and sugars naturally present in honey, syrups, fruit juices and fruit juice concentrates" (WHO.
/// *Guideline: Sugars intake for adults and children.* Geneva: WHO; 2015). The sugars inside whole fruit and
/// vegetables and the lactose of milk are not free sugars. SR28 gives only total sugars, so Caretide estimates the free
/// part of each food in the manner of the published methods, which decide food by food from its group and description
/// (Louie JCY, Moshtaghian H, Boylan S, et al. *A systematic methodology to estimate added sugar content of foods.*
/// Eur J Clin Nutr 2015;69(2):154-61; Swan GE, Powell NA, Knowles BL, et al. *A definition of free sugars for the UK.*
/// Public Health Nutr 2018;21(9):1636-8). The first rule that applies decides:
///
/// | Food (SR28 group, words of its description) | Free share of its total sugars |
/// |---|---|
/// | a juice, nectar, smoothie, syrup, honey, jam, jelly, marmalade, preserves, candied or sweetened food ("unsweetened" excepted), in any group | all |
/// | fruit or vegetables canned or frozen in syrup or juice ("syrup pack", "juice pack", "with sugar") | half (the packing medium's) |
/// | Sweets; Beverages; Baked Products; Snacks; ready-to-eat and flavoured Breakfast Cereals ("unsweetened" ones: none) | all |
/// | Dairy and Egg Products: plain milk, yoghurt, cheese, cream, eggs | none (lactose) |
/// | Dairy and Egg Products: flavoured, chocolate, fruit, ice cream, pudding, dessert, eggnog | all above 5 g per 100 g (the lactose of plain milk and yoghurt in SR28, 4.7–5.1 g) |
/// | Fruits and Fruit Juices; Vegetables; Legumes; Nuts and Seeds; Cereal Grains and Pasta; meat, fish, eggs, fats, spices | none |
/// | mixed foods: Soups and Sauces; Meals, Entrees and Side Dishes; Fast Foods; Restaurant Foods; Baby Foods; anything else | half (Louie et al.'s last step, 50 % of total sugars, for a food no rule above settles) |
///
/// An estimate, and the answer says so: it can be wrong for one food, and it is right in the cases that matter most
/// for advice (a day of whole fruit and plain milk has none; a day of soft drinks and sweets has all).
public enum FreeSugars {
    /// The lactose of plain milk and yoghurt, g per 100 g: SR28's plain whole milk and yoghurt give 4.7 to 5.1 g of
    /// total sugars, all lactose.
    public static let lactosePer100g = 5.0

    /// The estimated free sugars, g per 100 g of `food`; nil when the table gives no sugars for it.
    public static func per100g(of food: Food) -> Double? {
        guard let sugars = food.per100g.sugarsG else { return nil }
        switch rule(category: food.category, name: food.name) {
        case .all: return sugars
        case .none: return 0
        case .half: return sugars / 2
        case .aboveLactose: return max(0, sugars - lactosePer100g)
        }
    }

    /// How much of a food's total sugars counts as free.
    public enum Rule: Sendable, Equatable {
        case all, none, half
        /// Dairy sweetened or flavoured: what lies above the lactose of plain milk.
        case aboveLactose
    }

    /// The rule for a food of SR28 group `category` described as `name` (the table above).
    public static func rule(category: String, name: String) -> Rule {
        let words = Set(name.lowercased().split { !$0.isLetter }.map(String.init))
        let text = name.lowercased()
        let unsweetened = words.contains("unsweetened")
        if !words.isDisjoint(with: [
            "juice", "juices", "nectar", "smoothie", "smoothies", "syrup", "syrups", "honey", "jam", "jams", "jelly", "jellies", "marmalade",
            "preserves", "candied",
        ])
            && !(text.contains("syrup pack") || text.contains("juice pack")) && !text.contains("in juice") && !text.contains("in syrup")
        {
            return .all
        }
        if text.contains("syrup pack") || text.contains("juice pack") || text.contains("in syrup") || text.contains("in juice")
            || text.contains("with sugar") || text.contains("sugar added")
        {
            return category == "Fruits and Fruit Juices" || category == "Vegetables and Vegetable Products" ? .half : .all
        }
        if words.contains("sweetened") || words.contains("presweetened") { return .all }
        switch category {
        case "Sweets", "Beverages", "Baked Products", "Snacks":
            return unsweetened ? .none : .all
        case "Breakfast Cereals":
            // Ready-to-eat cereals are sweetened as made; hot cereals (oats, farina, grits) only when flavoured.
            let flavoured = !words.isDisjoint(with: ["flavored", "flavoured", "maple", "brown", "fruit", "cinnamon", "chocolate"])
            return !unsweetened && (text.hasPrefix("cereals ready-to-eat") || flavoured) ? .all : .none
        case "Dairy and Egg Products":
            let sweet: Set<String> = [
                "flavored", "flavoured", "chocolate", "fruit", "cream", "pudding", "dessert", "eggnog", "sweet", "vanilla", "strawberry",
                "frozen", "shake", "malted",
            ]
            // "Cream" alone (fluid cream) is plain; "ice cream" and "cream, ... sweetened" are not.
            if text.contains("ice cream") || !words.subtracting(["cream"]).isDisjoint(with: sweet) { return .aboveLactose }
            return .none
        case "Fruits and Fruit Juices", "Vegetables and Vegetable Products", "Legumes and Legume Products", "Nut and Seed Products",
            "Cereal Grains and Pasta", "Spices and Herbs", "Fats and Oils", "Poultry Products", "Sausages and Luncheon Meats",
            "Pork Products", "Beef Products", "Finfish and Shellfish Products", "Lamb, Veal, and Game Products":
            return .none
        default:
            return .half
        }
    }
}

extension Food {
    /// The amounts in `grams` of this food, with its free sugars estimated (``FreeSugars``).
    public func nutrients(forGrams grams: Double) -> Nutrients {
        var amounts = per100g.scaled(toGrams: grams)
        amounts.freeSugarsG = FreeSugars.per100g(of: self).map { $0 * grams / 100 }
        return amounts
    }
}
