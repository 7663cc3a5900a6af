public import Foundation

/// The USDA National Nutrient Database for Standard Reference, Release 28 (SR28), read from its ASCII files.
///
/// Source: US Department of Agriculture, Agricultural Research Service, Nutrient Data Laboratory. *USDA National
/// Nutrient Database for Standard Reference, Release 28.* Version Current: September 2015 (slightly revised May 2016).
/// Format: *Documentation and User Guide*, chapter "Explanation of File Formats" (sr28_doc.pdf): every file is ASCII,
/// one record a line (CR LF), fields separated by `^`, text fields enclosed in `~`, an empty field where there is no
/// value. Caretide reads four of the files:
///
/// | File | Fields (in order) | Read |
/// |---|---|---|
/// | `FOOD_DES.txt` | 14: NDB_No, FdGrp_Cd, Long_Desc, Shrt_Desc, ComName, ManufacName, Survey, Ref_desc, Refuse, SciName, N_Factor, Pro_Factor, Fat_Factor, CHO_Factor | NDB_No, FdGrp_Cd, Long_Desc |
/// | `FD_GROUP.txt` | 2: FdGrp_Cd, FdGrp_Desc | both |
/// | `NUT_DATA.txt` | 18: NDB_No, Nutr_No, Nutr_Val, Num_Data_Pts, Std_Error, Src_Cd, Deriv_Cd, Ref_NDB_No, Add_Nutr_Mark, Num_Studies, Min, Max, DF, Low_EB, Up_EB, Stat_cmt, AddMod_Date, CC | NDB_No, Nutr_No, Nutr_Val of nutrients 208, 203, 204, 205, 606, 269, 291, 307 |
/// | `WEIGHT.txt` | 7: NDB_No, Seq, Amount, Msre_Desc, Gm_Wgt, Num_Data_Pts, Std_Dev | NDB_No, Seq, Amount, Msre_Desc, Gm_Wgt |
///
/// Nutrient values are per 100 g of the edible portion. The files are documented as ISO/IEC 8859-1; a few text fields
/// hold Windows-1252 quotes, so text that is not valid UTF-8 is read as Windows-1252 (a superset of Latin-1 for the
/// printable characters). A row with the wrong number of fields, a number that is not one, an unknown food or food
/// group, or a duplicate throws a ``FoodCompositionError`` naming the file and the line.
///
/// The data are a work of the U.S. Government and in the public domain.
public enum StandardReference {
    public static let release = FoodRelease(
        id: "usda-sr28",
        name: "USDA National Nutrient Database for Standard Reference, Release 28",
        licence: "Public domain (U.S. Government work; USDA Agricultural Research Service)",
        // The address the release's own documentation gives in its suggested citation (the Nutrient Data Laboratory).
        source: "https://www.ars.usda.gov/ba/bhnrc/ndl")

    static let foodDescriptionsFile = "FOOD_DES.txt"
    static let foodGroupsFile = "FD_GROUP.txt"
    static let nutrientDataFile = "NUT_DATA.txt"
    static let weightsFile = "WEIGHT.txt"

    /// Reads `FOOD_DES.txt`, `FD_GROUP.txt`, `NUT_DATA.txt` and `WEIGHT.txt` from `directory`; a missing file or a
    /// malformed row throws a ``FoodCompositionError`` naming the file and the line.
    public static func load(directory: URL) throws -> FoodTable {
        func read(_ name: String) throws -> [UInt8] {
            let url = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw FoodCompositionError(file: name, line: 0, message: "missing from \(directory.path)")
            }
            do {
                return [UInt8](try Data(contentsOf: url))
            } catch {
                throw FoodCompositionError(file: name, line: 0, message: "cannot be read: \(error)")
            }
        }
        return try parse(
            foodDescriptions: read(foodDescriptionsFile), foodGroups: read(foodGroupsFile), nutrientData: read(nutrientDataFile),
            weights: read(weightsFile))
    }

    /// Parses the four files' contents (see ``load(directory:)``).
    public static func parse(foodDescriptions: String, foodGroups: String, nutrientData: String, weights: String) throws -> FoodTable {
        try parse(
            foodDescriptions: Array(foodDescriptions.utf8), foodGroups: Array(foodGroups.utf8), nutrientData: Array(nutrientData.utf8),
            weights: Array(weights.utf8))
    }

    static func parse(foodDescriptions: [UInt8], foodGroups: [UInt8], nutrientData: [UInt8], weights: [UInt8]) throws -> FoodTable {
        var groups: [String: String] = [:]
        try SRFile(name: foodGroupsFile, fieldCount: 2).forEachRecord(in: foodGroups) { record in
            let code = try record.requiredText(0, "FdGrp_Cd")
            guard groups[code] == nil else { throw record.error("food group \(code) is listed twice") }
            groups[code] = try record.requiredText(1, "FdGrp_Desc")
        }

        var ids: [String] = []
        var names: [String] = []
        var categories: [String] = []
        var index: [String: Int] = [:]
        try SRFile(name: foodDescriptionsFile, fieldCount: 14).forEachRecord(in: foodDescriptions) { record in
            let id = try record.requiredText(0, "NDB_No")
            guard index[id] == nil else { throw record.error("food \(id) is listed twice") }
            let groupCode = try record.requiredText(1, "FdGrp_Cd")
            guard let category = groups[groupCode] else { throw record.error("food group \(groupCode) is not in \(foodGroupsFile)") }
            index[id] = ids.count
            ids.append(id)
            names.append(try record.requiredText(2, "Long_Desc"))
            categories.append(category)
        }

        var per100g = [Nutrients](repeating: Nutrients(), count: ids.count)
        try SRFile(name: nutrientDataFile, fieldCount: 18).forEachRecord(in: nutrientData) { record in
            // Most rows are nutrients Caretide does not read: they are recognised by their number before any string is made.
            guard let nutrient = record.nutrient(1) else { return }
            let id = try record.requiredText(0, "NDB_No")
            guard let food = index[id] else { throw record.error("food \(id) is not in \(foodDescriptionsFile)") }
            guard per100g[food][nutrient] == nil else { throw record.error("food \(id) has two values of \(nutrient.rawValue)") }
            let value = try record.number(2, "Nutr_Val")
            guard value >= 0 else { throw record.error("Nutr_Val \(value) is negative") }
            per100g[food][nutrient] = value
        }

        var portions = [[(sequence: Int, portion: FoodPortion)]](repeating: [], count: ids.count)
        try SRFile(name: weightsFile, fieldCount: 7).forEachRecord(in: weights) { record in
            let id = try record.requiredText(0, "NDB_No")
            guard let food = index[id] else { throw record.error("food \(id) is not in \(foodDescriptionsFile)") }
            let sequence = try record.requiredText(1, "Seq")
            guard !portions[food].contains(where: { $0.portion.id == sequence }) else {
                throw record.error("food \(id) has two portions numbered \(sequence)")
            }
            let amount = try record.number(2, "Amount")
            let grams = try record.number(4, "Gm_Wgt")
            guard amount > 0, grams > 0 else { throw record.error("Amount and Gm_Wgt must be above 0 (\(amount), \(grams))") }
            let measure = try record.requiredText(3, "Msre_Desc")
            let portion = FoodPortion(id: sequence, description: "\(formatted(amount)) \(measure)", grams: grams)
            portions[food].append((sequence: Int(sequence) ?? Int.max, portion: portion))
        }

        var foods: [Food] = []
        foods.reserveCapacity(ids.count)
        for food in ids.indices {
            // Stable: equal sequence numbers (only non-numeric ones) keep the file's order.
            let ordered = portions[food].enumerated().sorted { ($0.element.sequence, $0.offset) < ($1.element.sequence, $1.offset) }.map {
                $0.element.portion
            }
            foods.append(Food(id: ids[food], name: names[food], category: categories[food], per100g: per100g[food], portions: ordered))
        }
        return FoodTable(release: release, foods: foods)
    }

    /// `1` rather than `1.0`, `0.5` for the file's `.5`.
    static func formatted(_ amount: Double) -> String {
        if amount == amount.rounded(), abs(amount) < 1e15 { return String(Int64(amount)) }
        return "\(amount)"
    }
}

/// The nutrient numbers (`Nutr_No`) Caretide reads.
extension Nutrient {
    init?(standardReferenceNumber number: Int) {
        switch number {
        case 208: self = .energy
        case 203: self = .protein
        case 204: self = .fat
        case 606: self = .saturatedFat
        case 205: self = .carbohydrate
        case 269: self = .sugars
        case 291: self = .fibre
        case 307: self = .sodium
        default: return nil
        }
    }
}

/// One SR28 file's records: `^`-separated fields, text in `~` (which may hold a `^` or a line break), records ended by
/// CR LF (or LF, or CR). Blank lines are skipped.
struct SRFile {
    let name: String
    let fieldCount: Int

    struct Field {
        var start: Int
        var end: Int
    }

    /// One record's fields, valid only during the call that receives it.
    struct Record {
        let file: String
        let line: Int
        let bytes: UnsafeBufferPointer<UInt8>
        let fields: [Field]

        func error(_ message: String) -> FoodCompositionError { FoodCompositionError(file: file, line: line, message: message) }

        func isEmpty(_ index: Int) -> Bool { fields[index].start == fields[index].end }

        func requiredText(_ index: Int, _ fieldName: String) throws -> String {
            guard !isEmpty(index) else { throw error("\(fieldName) is empty") }
            return text(index)
        }

        /// ASCII as it is; otherwise UTF-8 when the bytes are valid UTF-8, else Windows-1252.
        func text(_ index: Int) -> String {
            let field = UnsafeBufferPointer(rebasing: bytes[fields[index].start..<fields[index].end])
            if field.allSatisfy({ $0 < 0x80 }) { return String(decoding: field, as: UTF8.self) }
            if let valid = String(validating: field, as: UTF8.self) { return valid }
            var scalars = String.UnicodeScalarView()
            for byte in field { scalars.append(windows1252(byte)) }
            return String(scalars)
        }

        func number(_ index: Int, _ fieldName: String) throws -> Double {
            let string = text(index)
            guard !string.isEmpty else { throw error("\(fieldName) is empty") }
            guard let value = Double(string), value.isFinite else { throw error("\(fieldName) '\(string)' is not a number") }
            return value
        }

        /// The nutrient numbered by this field, read from its digits, or nil when Caretide does not read it.
        func nutrient(_ index: Int) -> Nutrient? {
            let field = fields[index]
            guard field.end > field.start, field.end - field.start <= 4 else { return nil }
            var number = 0
            for position in field.start..<field.end {
                let byte = bytes[position]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                number = number * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return Nutrient(standardReferenceNumber: number)
        }
    }

    /// Calls `body` with every record, in order; throws a ``FoodCompositionError`` when a record has the wrong number
    /// of fields or a quote is not closed, and whatever `body` throws.
    func forEachRecord(in data: [UInt8], _ body: (Record) throws -> Void) throws {
        let tilde = UInt8(ascii: "~")
        let caret = UInt8(ascii: "^")
        let carriageReturn = UInt8(ascii: "\r")
        let lineFeed = UInt8(ascii: "\n")
        try data.withUnsafeBufferPointer { bytes in
            let count = bytes.count
            var position = 0
            var line = 1
            var fields: [Field] = []
            fields.reserveCapacity(fieldCount)
            while position < count {
                let byte = bytes[position]
                if byte == carriageReturn || byte == lineFeed {
                    // A blank line (or the second half of a lone CR's line end).
                    if byte == carriageReturn, position + 1 < count, bytes[position + 1] == lineFeed { position += 1 }
                    position += 1
                    line += 1
                    continue
                }
                let recordLine = line
                fields.removeAll(keepingCapacity: true)
                while true {
                    if position < count, bytes[position] == tilde {
                        let start = position + 1
                        var end = start
                        while end < count, bytes[end] != tilde {
                            if bytes[end] == lineFeed || (bytes[end] == carriageReturn && (end + 1 == count || bytes[end + 1] != lineFeed)) {
                                line += 1
                            }
                            end += 1
                        }
                        guard end < count else { throw FoodCompositionError(file: name, line: recordLine, message: "a ~ quote is not closed") }
                        fields.append(Field(start: start, end: end))
                        position = end + 1
                        if position < count, bytes[position] != caret, bytes[position] != carriageReturn, bytes[position] != lineFeed {
                            throw FoodCompositionError(file: name, line: recordLine, message: "field \(fields.count) has text after its closing ~")
                        }
                    } else {
                        let start = position
                        while position < count, bytes[position] != caret, bytes[position] != carriageReturn, bytes[position] != lineFeed {
                            position += 1
                        }
                        fields.append(Field(start: start, end: position))
                    }
                    guard position < count, bytes[position] == caret else { break }
                    position += 1
                }
                // The record's line end: CR LF, LF or CR.
                if position < count, bytes[position] == carriageReturn { position += 1 }
                if position < count, bytes[position] == lineFeed { position += 1 }
                line += 1
                guard fields.count == fieldCount else {
                    throw FoodCompositionError(file: name, line: recordLine, message: "expected \(fieldCount) fields, found \(fields.count)")
                }
                try body(Record(file: name, line: recordLine, bytes: bytes, fields: fields))
            }
        }
    }
}

/// The character a Windows-1252 byte stands for (Latin-1 outside 0x80–0x9F).
private func windows1252(_ byte: UInt8) -> Unicode.Scalar {
    guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
    let table: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]
    return Unicode.Scalar(table[Int(byte - 0x80)]) ?? Unicode.Scalar(byte)
}
