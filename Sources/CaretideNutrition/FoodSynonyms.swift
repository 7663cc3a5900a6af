/// Other names people type for foods, mapped to the words of the food table (USDA SR28 names foods in American
/// English). A query holding one of these phrases is also searched with the table's words in its place, and a food
/// found either way is answered once, at its better place (`FoodSearch`).
///
/// Each pair is a user's phrase and the table's phrase, lower case, words separated by one space. The list grows by
/// adding a pair here; the tests and the query benchmark (`caretide-bench foods --queries`) read it as it is.
///
/// Sources for the names:
/// - British and American English names of the same food: the Cambridge Dictionary's entries, which mark the UK word
///   and give the US one (courgette/zucchini, aubergine/eggplant, mince/ground beef, rocket/arugula, swede/rutabaga,
///   crisps/potato chips, icing sugar/powdered sugar, cornflour/cornstarch, beetroot/beets, spring onion/scallion,
///   double cream/heavy cream, single cream/light cream, rapeseed oil/canola oil, mangetout/snow peas, broad
///   bean/fava bean, groundnut/peanut, maize/corn, prawn/shrimp, treacle/molasses, gammon/ham, wholemeal/whole wheat,
///   semi-skimmed/reduced fat, skimmed/skim, yoghurt/yogurt, soya/soy, sweetcorn/sweet corn, porridge/oatmeal).
/// - Soy foods: the seeds' own diet example lists "bean curd" and "soya bean milk"; the Codex Alimentarius regional
///   standard for non-fermented soybean products (CXS 322R-2015) names them "soybean curd" and "soybean beverage";
///   USDA writes tofu and soymilk.
/// - The table's own wording: SR28 writes "soymilk", "kiwifruit", "catsup", "chickpeas (garbanzo beans)",
///   "broadbeans (fava beans)", "peas, edible-podded", "cream, fluid, heavy whipping", "oil, canola".
public enum FoodSynonyms {
    public static let pairs: [(phrase: String, table: String)] = [
        // Soy foods (Codex CXS 322R-2015; USDA's spelling)
        ("soybean curd", "tofu"),
        ("bean curd", "tofu"),
        ("soybean beverage", "soymilk"),
        ("soy beverage", "soymilk"),
        ("soya bean milk", "soymilk"),
        ("soya", "soy"),
        ("soy milk", "soymilk"),
        ("soybean milk", "soymilk"),
        // British and American English (Cambridge Dictionary)
        ("courgettes", "zucchini"),
        ("courgette", "zucchini"),
        ("aubergines", "eggplant"),
        ("aubergine", "eggplant"),
        ("minced beef", "ground beef"),
        ("beef mince", "ground beef"),
        ("mince", "ground beef"),
        ("rocket", "arugula"),
        ("swede", "rutabagas"),
        ("crisps", "potato chips"),
        ("icing sugar", "powdered sugar"),
        ("caster sugar", "granulated sugar"),
        ("cornflour", "cornstarch"),
        ("beetroot", "beets"),
        ("spring onions", "scallions"),
        ("spring onion", "scallions"),
        ("double cream", "heavy whipping cream"),
        ("single cream", "light cream"),
        ("rapeseed oil", "canola oil"),
        ("mangetout", "edible podded peas"),
        ("broad beans", "broadbeans"),
        ("broad bean", "broadbeans"),
        ("groundnuts", "peanuts"),
        ("groundnut", "peanut"),
        ("maize", "corn"),
        ("prawns", "shrimp"),
        ("prawn", "shrimp"),
        ("treacle", "molasses"),
        ("gammon", "ham"),
        ("wholemeal", "whole wheat"),
        ("semi skimmed milk", "reduced fat milk"),
        ("skimmed milk", "nonfat milk"),
        ("skim milk", "nonfat milk"),
        ("yoghurt", "yogurt"),
        ("sweetcorn", "sweet corn"),
        ("porridge", "oats cooked with water"),
        // American English the table spells otherwise
        ("garbanzo", "chickpeas"),
        ("ketchup", "catsup"),
        ("kiwi", "kiwifruit"),
        ("bell pepper", "sweet peppers"),
        ("capsicum", "sweet peppers"),
    ]
}
