import CaretideNutrition
import Foundation
import Testing

@Suite("USDA SR28 files")
struct StandardReferenceTests {
    @Test("The fixture's foods, sorted by id, with their food groups")
    func foods() throws {
        let table = try Fixture.table()
        #expect(table.release == StandardReference.release)
        #expect(table.release.id == "usda-sr28")
        #expect(table.foods.count == 46)
        #expect(table.foods.map(\.id) == table.foods.map(\.id).sorted())
        #expect(Set(table.foods.map(\.id)).count == 46)
        #expect(table.foods.first?.id == "01001")
        #expect(table.foods.last?.id == "22911")
        #expect(try Fixture.food("16123", in: table).name == "Soy sauce made from soy and wheat (shoyu)")
        #expect(try Fixture.food("16123", in: table).category == "Legumes and Legume Products")
        #expect(table.food(id: "99999") == nil)
    }

    /// FOOD_DES `~01001~^~0100~^~Butter, salted~…`; FD_GROUP `~0100~^~Dairy and Egg Products~`; NUT_DATA 203 0.85,
    /// 204 81.11, 205 0.06, 208 717, 269 0.06, 291 0.0, 307 643, 606 51.368; WEIGHT 1 `1 pat (1" sq, 1/3" high)` 5.0,
    /// 2 `1 tbsp` 14.2, 3 `1 cup` 227, 4 `1 stick` 113.
    @Test("Butter, salted (01001) as in the files")
    func butter() throws {
        let butter = try Fixture.food("01001", in: Fixture.table())
        #expect(butter.name == "Butter, salted")
        #expect(butter.category == "Dairy and Egg Products")
        #expect(
            butter.per100g
                == Nutrients(
                    energyKcal: 717, proteinG: 0.85, fatG: 81.11, saturatedFatG: 51.368, carbohydrateG: 0.06, sugarsG: 0.06, fibreG: 0.0,
                    sodiumMg: 643))
        #expect(
            butter.portions == [
                FoodPortion(id: "1", description: "1 pat (1\" sq, 1/3\" high)", grams: 5.0),
                FoodPortion(id: "2", description: "1 tbsp", grams: 14.2),
                FoodPortion(id: "3", description: "1 cup", grams: 227),
                FoodPortion(id: "4", description: "1 stick", grams: 113),
            ])
    }

    /// Salmon (15076) has no row for nutrient 269 (sugars); its second portion's amount is written `.5`.
    @Test("A nutrient without a row is nil, not 0; amounts lose their trailing .0 and gain a leading 0")
    func missingValueAndAmounts() throws {
        let table = try Fixture.table()
        let salmon = try Fixture.food("15076", in: table)
        #expect(salmon.per100g.sugarsG == nil)
        #expect(salmon.per100g.energyKcal == 142)
        #expect(salmon.per100g.carbohydrateG == 0)
        #expect(
            salmon.portions == [
                FoodPortion(id: "1", description: "3 oz", grams: 85), FoodPortion(id: "2", description: "0.5 fillet", grams: 198),
            ])
        // Bread's portions 1 to 10: numbered portions keep their numeric order (10 after 9, not after 1).
        #expect(try Fixture.food("18069", in: table).portions.map(\.id) == (1...10).map(String.init))
        // 9 nutrient values are missing from the fixture's 46 × 8.
        let missing = table.foods.reduce(0) { count, food in count + Nutrient.allCases.filter { food.per100g[$0] == nil }.count }
        #expect(missing == 9)
    }

    @Test("The same files with LF line ends, or without the final line end, read the same")
    func lineEnds() throws {
        let table = try Fixture.table()
        let files = try ["FOOD_DES.txt", "FD_GROUP.txt", "NUT_DATA.txt", "WEIGHT.txt"].map(Fixture.text)
        let lf = files.map { $0.replacingOccurrences(of: "\r\n", with: "\n") }
        let parsed = try StandardReference.parse(foodDescriptions: lf[0], foodGroups: lf[1], nutrientData: lf[2], weights: lf[3])
        #expect(parsed == table)
        // "\r\n" is one Character.
        let trimmed = files.map { $0.hasSuffix("\r\n") ? String($0.dropLast()) : $0 }
        #expect(
            try StandardReference.parse(foodDescriptions: trimmed[0], foodGroups: trimmed[1], nutrientData: trimmed[2], weights: trimmed[3]) == table)
    }

    /// The fixture's files with one line changed by `edit` (line numbers from 1).
    func parse(changing file: String, line: Int, _ edit: (String) -> String) throws -> FoodTable {
        var texts: [String: String] = [:]
        for name in ["FOOD_DES.txt", "FD_GROUP.txt", "NUT_DATA.txt", "WEIGHT.txt"] {
            var text = try Fixture.text(name)
            if name == file {
                var lines = text.components(separatedBy: "\r\n")
                lines[line - 1] = edit(lines[line - 1])
                text = lines.joined(separator: "\r\n")
            }
            texts[name] = text
        }
        return try StandardReference.parse(
            foodDescriptions: texts["FOOD_DES.txt"]!, foodGroups: texts["FD_GROUP.txt"]!, nutrientData: texts["NUT_DATA.txt"]!,
            weights: texts["WEIGHT.txt"]!)
    }

    /// The 1-based line of `file` that starts with `prefix`.
    func line(of prefix: String, in file: String) throws -> Int {
        let lines = try Fixture.text(file).components(separatedBy: "\r\n")
        return try #require(lines.firstIndex { $0.hasPrefix(prefix) }) + 1
    }

    @Test("Malformed rows throw naming the file and the line")
    func malformedRows() throws {
        // A field too few.
        #expect(throws: FoodCompositionError(file: "FOOD_DES.txt", line: 3, message: "expected 14 fields, found 13")) {
            try parse(changing: "FOOD_DES.txt", line: 3) {
                $0.split(separator: "^", omittingEmptySubsequences: false).dropLast().joined(separator: "^")
            }
        }
        // A value that is not a number: butter's energy.
        let energy = try line(of: "~01001~^~208~^", in: "NUT_DATA.txt")
        #expect(throws: FoodCompositionError(file: "NUT_DATA.txt", line: energy, message: "Nutr_Val '7l7' is not a number")) {
            try parse(changing: "NUT_DATA.txt", line: energy) { $0.replacingOccurrences(of: "^717^", with: "^7l7^") }
        }
        // A value of a food FOOD_DES does not hold.
        #expect(throws: FoodCompositionError(file: "NUT_DATA.txt", line: energy, message: "food 01000 is not in FOOD_DES.txt")) {
            try parse(changing: "NUT_DATA.txt", line: energy) { $0.replacingOccurrences(of: "~01001~", with: "~01000~") }
        }
        // A food group FD_GROUP does not hold.
        #expect(throws: FoodCompositionError(file: "FOOD_DES.txt", line: 1, message: "food group 0199 is not in FD_GROUP.txt")) {
            try parse(changing: "FOOD_DES.txt", line: 1) { $0.replacingOccurrences(of: "~0100~", with: "~0199~") }
        }
        // A quote left open: text may span lines, so it closes at the next row's first ~ and what follows is wrong; on the
        // last row it is never closed.
        let portion = try line(of: "~01001~^2^", in: "WEIGHT.txt")
        #expect(throws: FoodCompositionError(file: "WEIGHT.txt", line: portion, message: "field 4 has text after its closing ~")) {
            try parse(changing: "WEIGHT.txt", line: portion) { $0.replacingOccurrences(of: "~tbsp~", with: "~tbsp") }
        }
        let last = try Fixture.text("WEIGHT.txt").components(separatedBy: "\r\n").count - 1
        #expect(throws: FoodCompositionError(file: "WEIGHT.txt", line: last, message: "a ~ quote is not closed")) {
            try parse(changing: "WEIGHT.txt", line: last) { $0 + "^~" }
        }
        // A portion that weighs nothing.
        #expect(throws: FoodCompositionError(file: "WEIGHT.txt", line: portion, message: "Amount and Gm_Wgt must be above 0 (1.0, 0.0)")) {
            try parse(changing: "WEIGHT.txt", line: portion) { $0.replacingOccurrences(of: "^14.2^", with: "^0^") }
        }
        // The same food twice.
        #expect(throws: FoodCompositionError(file: "FOOD_DES.txt", line: 2, message: "food 01001 is listed twice")) {
            try parse(changing: "FOOD_DES.txt", line: 2) { $0.replacingOccurrences(of: "~01009~", with: "~01001~") }
        }
    }

    @Test("A missing file is named")
    func missingFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sr28-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["FOOD_DES.txt", "FD_GROUP.txt", "NUT_DATA.txt"] {
            try FileManager.default.copyItem(at: Fixture.directory().appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        do {
            _ = try StandardReference.load(directory: directory)
            Issue.record("loaded without WEIGHT.txt")
        } catch let error as FoodCompositionError {
            #expect(error.file == "WEIGHT.txt")
            #expect(error.line == 0)
            #expect(error.description.hasPrefix("WEIGHT.txt: missing from "))
        }
    }

    /// The files are documented as ISO/IEC 8859-1, and SR28 itself holds Windows-1252 quotes (FOOD_DES 09520's
    /// scientific name) and a Latin-1 `é` (WEIGHT `Entr\xe9e`): bytes that are not UTF-8 are read as Windows-1252.
    @Test("Latin-1 and Windows-1252 bytes are read as the characters they stand for")
    func latin1() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sr28-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["FOOD_DES.txt", "FD_GROUP.txt", "NUT_DATA.txt", "WEIGHT.txt"] {
            var bytes = [UInt8](try Data(contentsOf: Fixture.directory().appendingPathComponent(name)))
            if name == "WEIGHT.txt" {
                // Butter's "tbsp" becomes "t", é (0xE9), ’ (0x92), "p".
                let tbsp = Array("~tbsp~".utf8)
                let start = try #require((0...(bytes.count - tbsp.count)).first { Array(bytes[$0..<$0 + tbsp.count]) == tbsp })
                bytes.replaceSubrange(start + 1..<start + 5, with: [0x74, 0xE9, 0x92, 0x70])
            }
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
        let butter = try Fixture.food("01001", in: StandardReference.load(directory: directory))
        #expect(butter.portions[1].description == "1 t\u{E9}\u{2019}p")
    }
}
