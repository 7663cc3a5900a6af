/// Finds foods by words of their names, as a user types, the plain food a person means first, answering in blocks
/// by category.
///
/// A food matches when each word of the query is in its name: the same word (or its singular or plural), the start
/// of a word (as the user types), inside a word, or, for a word of five letters or more found in no name at all,
/// with one typo (a letter added, missing, changed or two swapped: "bananna", "brocoli"). A query phrase with
/// another name (`FoodSynonyms`: "bean curd", "courgette", "mince") is searched under the table's name as well.
///
/// Matches are ordered by these rules, each breaking the ties of the one before (the benchmark of everyday queries,
/// `caretide-bench foods --queries`, measures how often the food meant comes first):
/// 1. How the words matched: the same word, then a word's start, then inside a word, then with a typo.
/// 2. Generic foods before branded ones (a name holding a brand in capitals, e.g. "KELLOGG'S") and before baby foods,
///    fast foods, restaurant dishes and prepared meals (SR28's groups of them).
/// 3. The food itself before a food made with it: the query's words make the head of the name (its first part, up to
///    the first comma and before "and", "or", "with" or "in"; after a genus the table puts first, as in
///    "Fish, salmon" or "Beverages, coffee") before they merely appear in it ("Apples, raw" before "Apple juice"
///    before "Babyfood, juice, apple"; "Jams and preserves" counts as jams).
/// 4. Fewer marks of processing or of a modified variant the query did not ask for: juice, canned, frozen, dried,
///    sweetened, refrigerated, a flavour or seasoning, prepared from a recipe …; reduced, low, light, nonfat,
///    imitation … (unless the query asks for a modified one, as "skim milk" does).
/// 5. More marks of the plain food: raw, whole (not of "whole wheat"), plain, fresh, regular, original, "all
///    (varieties)".
/// 6. More household portions in the table (up to six): the table measures everyday foods in more ways.
/// 7. Fewer words matched only by their other number or with a typo; then fewer words in the name; then the name
///    alphabetically; then the id.
///
/// Blocks by category come in the order of each category's best food, each block best first (`blocks(_:)`), so the
/// first food of the answer is the best of all.
///
/// Everything a query needs from the names is computed once in ``init(foods:)``: the lowercased names in one byte
/// buffer, every word's place, its part of the name and its marks. A query scans that buffer's bytes (no Foundation
/// string call in the loop), so a query over the whole of SR28 stays well inside a keystroke (BENCHMARKS.md).
public struct FoodSearch: Sendable {
    /// The lowercased names as UTF-8, concatenated; name `i` is `names[offsets[i]..<offsets[i + 1]]`.
    private let names: [UInt8]
    private let offsets: [Int]
    /// Food `i`'s words are `words[wordOffsets[i]..<wordOffsets[i + 1]]`.
    private let words: [Word]
    private let wordOffsets: [Int]
    private let profiles: [Profile]
    /// Each food's category, numbered in order of first appearance.
    private let categories: [Int]
    private let categoryCount: Int
    /// Position of each food when sorted by lowercased name, then name, then id; and the inverse.
    private let alphabeticalRank: [Int]
    private let foodAtRank: [Int]
    private let synonyms: [(phrase: [[UInt8]], table: [[UInt8]])]

    /// One word of a name: its bytes in `names`, its part of the name (0 before the first comma) and its marks.
    private struct Word {
        let start: Int
        let end: Int
        let part: UInt8
        let marks: Marks
    }

    private struct Marks: OptionSet {
        let rawValue: UInt8
        static let processed = Marks(rawValue: 1)
        static let modified = Marks(rawValue: 2)
        /// Ends the head of the name ("and", "or", "with", "in").
        static let joiner = Marks(rawValue: 4)
    }

    /// What ranks a food whatever the query.
    private struct Profile {
        /// Brand (1) plus a group of prepared or special foods (1).
        let lowPriority: UInt8
        /// The first part of the name is a genus ("Fish", "Beverages"): the head is the second part.
        let genusFirst: Bool
        /// The plain marks the name holds, one bit per word of `plainWords`.
        let plain: UInt8
        let portions: UInt8
        let wordCount: Int
    }

    /// Words that mark a processed food or a flavour (rule 4).
    static let processedWords: Set<[UInt8]> = bytesSet(
        "juice canned frozen dried dehydrated concentrate sweetened powder powdered mix flavored flavor instant dry drink nectar syrup pickled smoked cured fried breaded toasted deli prepackaged seasoned reheated blend solution recipe home chocolate vanilla strawberry caramel cinnamon mocha seasoning rotisserie refrigerated"
    )
    /// Words that mark a modified variant (rule 4), unless the query holds one of them.
    static let modifiedWords: Set<[UInt8]> = bytesSet("reduced low lowfat light lite nonfat free diet imitation substitute enhanced")
    /// Words that mark the plain food (rule 5).
    static let plainWords: [[UInt8]] = ["raw", "whole", "plain", "fresh", "all", "regular", "original"].map { Array($0.utf8) }
    static let joinerWords: Set<[UInt8]> = bytesSet("and or with in")
    /// First parts of SR28 names that name a genus rather than the food (rule 3).
    static let genera: Set<String> = [
        "fish", "nuts", "seeds", "beverages", "alcoholic beverage", "cheese", "spices", "crustaceans", "mollusks", "snacks", "cereals", "oil",
        "salad dressing", "squash", "game meat",
    ]
    /// SR28's groups of prepared or special foods (rule 2).
    static let preparedGroups: Set<String> = [
        "Baby Foods", "Fast Foods", "Restaurant Foods", "Meals, Entrees, and Side Dishes", "American Indian/Alaska Native Foods",
    ]

    private static func bytesSet(_ text: String) -> Set<[UInt8]> { Set(text.split(separator: " ").map { Array($0.utf8) }) }

    /// Prepares a search over `foods`; ``search(_:)`` answers indices into this array.
    public init(foods: [Food], synonyms: [(phrase: String, table: String)] = FoodSynonyms.pairs) {
        var names: [UInt8] = []
        var offsets = [0]
        var words: [Word] = []
        var wordOffsets = [0]
        var profiles: [Profile] = []
        var categories: [Int] = []
        var categoryNumbers: [String: Int] = [:]
        offsets.reserveCapacity(foods.count + 1)
        profiles.reserveCapacity(foods.count)
        categories.reserveCapacity(foods.count)
        for food in foods {
            let base = names.count
            let lowered = Array(food.name.lowercased().utf8)
            names.append(contentsOf: lowered)
            offsets.append(names.count)
            var part: UInt8 = 0
            var plain: UInt8 = 0
            var position = 0
            let first = words.count
            while position < lowered.count {
                if lowered[position] == UInt8(ascii: ",") { part &+= part < 255 ? 1 : 0 }
                guard isWordByte(lowered[position]) else {
                    position += 1
                    continue
                }
                var end = position
                while end < lowered.count, isWordByte(lowered[end]) { end += 1 }
                let word = Array(lowered[position..<end])
                var marks: Marks = []
                if Self.processedWords.contains(word) { marks.insert(.processed) }
                if Self.modifiedWords.contains(word) { marks.insert(.modified) }
                if Self.joinerWords.contains(word) { marks.insert(.joiner) }
                if let plainIndex = Self.plainWords.firstIndex(of: word), !Self.namesAVariety(word, before: lowered[end...]) {
                    plain |= 1 << plainIndex
                }
                words.append(Word(start: base + position, end: base + end, part: part, marks: marks))
                position = end
            }
            wordOffsets.append(words.count)
            let firstPart = food.name.split(separator: ",", maxSplits: 1).first.map { $0.trimmingSpaces.lowercased() } ?? ""
            let branded = Self.hasBrand(food.name)
            profiles.append(
                Profile(
                    lowPriority: (branded ? 1 : 0) + (Self.preparedGroups.contains(food.category) ? 1 : 0),
                    genusFirst: Self.genera.contains(firstPart) && words[first...].contains { $0.part > 0 }, plain: plain,
                    portions: UInt8(min(food.portions.count, 6)), wordCount: words.count - first))
            if let number = categoryNumbers[food.category] {
                categories.append(number)
            } else {
                categoryNumbers[food.category] = categoryNumbers.count
                categories.append(categoryNumbers.count - 1)
            }
        }
        let foodAtRank = foods.indices.sorted { a, b in
            let nameA = names[offsets[a]..<offsets[a + 1]]
            let nameB = names[offsets[b]..<offsets[b + 1]]
            if nameA != nameB { return nameA.lexicographicallyPrecedes(nameB) }
            if foods[a].name != foods[b].name { return foods[a].name < foods[b].name }
            return foods[a].id < foods[b].id
        }
        var alphabeticalRank = [Int](repeating: 0, count: foods.count)
        for (rank, food) in foodAtRank.enumerated() { alphabeticalRank[food] = rank }

        self.names = names
        self.offsets = offsets
        self.words = words
        self.wordOffsets = wordOffsets
        self.profiles = profiles
        self.categories = categories
        self.categoryCount = categoryNumbers.count
        self.alphabeticalRank = alphabeticalRank
        self.foodAtRank = foodAtRank
        self.synonyms = synonyms.map { (Self.words(of: $0.phrase), Self.words(of: $0.table)) }
    }

    /// Whether a plain mark names a variety with the word after it: "whole" of "whole wheat" and "whole grain" is a
    /// kind of flour, not the whole food.
    static func namesAVariety(_ word: [UInt8], before rest: ArraySlice<UInt8>) -> Bool {
        guard word.elementsEqual("whole".utf8) else { return false }
        let next = rest.drop { !isWordByte($0) }.prefix { isWordByte($0) }
        return next.elementsEqual("wheat".utf8) || next.elementsEqual("grain".utf8)
    }

    /// A word of three or more capital letters in the table's own spelling ("KELLOGG'S", "MORI-NU", "SILK"): SR28
    /// writes brands so.
    static func hasBrand(_ name: String) -> Bool {
        var run = 0
        for byte in name.utf8 {
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                run += 1
                if run >= 3 { return true }
            } else if byte != UInt8(ascii: "'") && byte != UInt8(ascii: "-") && byte != UInt8(ascii: ".") {
                run = 0
            }
        }
        return false
    }

    /// Indices into `foods`, in answer order: the blocks of ``blocks(_:)`` one after another.
    public func search(_ query: String) -> [Int] { Array(blocks(query).joined()) }

    /// The foods matching `query` (see the type's rules), in blocks by category: the blocks in the order of their best
    /// food, each best first. An empty query, or one without a word, answers nothing.
    public func blocks(_ query: String) -> [[Int]] {
        let original = Self.words(of: query)
        guard !original.isEmpty else { return [] }
        let alternatives = alternatives(of: original)
        var keys: [UInt64] = []
        // Typos are looked for only when the words as typed find nothing: a word found in some name must match as
        // typed, so a search that finds something as typed is already the answer.
        for typos in [false, true] where keys.isEmpty {
            if alternatives.count == 1 {
                rank(original, typos: typos) { _, key in keys.append(key) }
            } else {
                // A food found under several names is answered once, at its best.
                var best = [UInt64](repeating: .max, count: profiles.count)
                for alternative in alternatives {
                    rank(alternative, typos: typos) { food, key in best[food] = min(best[food], key) }
                }
                keys = best.filter { $0 != .max }
            }
        }
        keys.sort()

        // Blocks by category, in the order of each category's best food; keys are sorted, so each block is too.
        var blockOfCategory = [Int](repeating: -1, count: categoryCount)
        var blocks: [[Int]] = []
        for key in keys {
            let food = foodAtRank[Int(key & 0xFFFF_FFFF)]
            let category = categories[food]
            if blockOfCategory[category] < 0 {
                blockOfCategory[category] = blocks.count
                blocks.append([])
            }
            blocks[blockOfCategory[category]].append(food)
        }
        return blocks
    }

    /// The blocks' foods in rounds: the first `perRound` of every block, block by block, then the next `perRound` of
    /// every block, and so on. A page of `perRound` × the number of blocks foods or more then holds every block's best,
    /// so that a screen grouped by category shows every category from its first page.
    public static func rounds(_ blocks: [[Int]], perRound: Int) -> [Int] {
        let perRound = max(1, perRound)
        let total = blocks.reduce(0) { $0 + $1.count }
        var answer: [Int] = []
        answer.reserveCapacity(total)
        var start = 0
        while answer.count < total {
            for block in blocks where start < block.count { answer.append(contentsOf: block[start..<min(start + perRound, block.count)]) }
            start += perRound
        }
        return answer
    }

    /// At most this many ways of reading one query: each other name doubles them, so a query of many (a list of
    /// British words) would otherwise make millions of searches.
    static let maximumAlternatives = 8

    /// The query and the queries made from it by replacing another name with the table's (`FoodSynonyms`), each pair
    /// applied once, in the list's order, to every query made so far, up to `maximumAlternatives`.
    func alternatives(of query: [[UInt8]]) -> [[[UInt8]]] {
        var alternatives = [query]
        for (phrase, table) in synonyms where !phrase.isEmpty {
            for alternative in alternatives where alternatives.count < Self.maximumAlternatives {
                guard alternative.count >= phrase.count else { continue }
                for start in 0...(alternative.count - phrase.count) where Array(alternative[start..<start + phrase.count]) == phrase {
                    let replaced = Array(alternative[..<start]) + table + Array(alternative[(start + phrase.count)...])
                    if !alternatives.contains(replaced) { alternatives.append(replaced) }
                    break
                }
            }
        }
        return alternatives
    }

    /// How a query word matched one word of a name: the rule-1 class and whether it was the word exactly.
    private enum Match: Int {
        case same = 0
        case otherNumber = 1
        case prefix = 2
        case inside = 3
        case typo = 4

        var placement: UInt64 {
            switch self {
            case .same, .otherNumber: 0
            case .prefix: 1
            case .inside: 2
            case .typo: 3
            }
        }
    }

    /// Calls `found` with each matching food and its sort key (smaller first): rule 1 in the top bits, rule 2, 3, 4,
    /// 5, 6, 7 below it, and the alphabetical rank (which also breaks every tie) in the low 32 bits.
    private func rank(_ query: [[UInt8]], typos: Bool, found: (Int, UInt64) -> Void) {
        // A word of five letters or more found in no name may match with one typo.
        let typoTolerant = query.map { typos && $0.count >= 5 && !occursAnywhere(Self.stem($0)) }
        guard !typos || typoTolerant.contains(true) else { return }
        let asksModified = query.contains { Self.modifiedWords.contains($0) }
        let queryMarks = query.map { word in Self.processedWords.contains(word) || (Self.modifiedWords.contains(word) && !asksModified) }
        let queryPlain: UInt8 = query.reduce(0) { mask, word in mask | (Self.plainWords.firstIndex(of: word).map { 1 << $0 } ?? 0) }
        let stems = query.map(Self.stem)
        var matched = [Int](repeating: 0, count: query.count)
        names.withUnsafeBufferPointer { names in
            words.withUnsafeBufferPointer { words in
                for food in 0..<profiles.count {
                    let start = offsets[food]
                    let end = offsets[food + 1]
                    let wordRange = wordOffsets[food]..<wordOffsets[food + 1]
                    var placement: UInt64 = 0
                    var inexact: UInt64 = 0
                    var matchesAll = true
                    for (index, word) in query.enumerated() {
                        let candidate =
                            typoTolerant[index]
                            || stems[index].withUnsafeBufferPointer { Self.contains($0, in: names, from: start, to: end) }
                        guard candidate,
                            let (match, at) = word.withUnsafeBufferPointer({ query in
                                Self.bestMatch(of: query, typoTolerant: typoTolerant[index], names: names, words: words, in: wordRange)
                            })
                        else {
                            matchesAll = false
                            break
                        }
                        placement += match.placement
                        if match != .same { inexact += 1 }
                        matched[index] = at
                    }
                    guard matchesAll else { continue }
                    let profile = profiles[food]
                    let head = headPlace(words: words, in: wordRange, profile: profile, matched: matched)
                    var marked = 0
                    for position in wordRange {
                        let marks = words[position].marks
                        guard marks.contains(.processed) || (marks.contains(.modified) && !asksModified) else { continue }
                        // A mark the query asks for is no mark ("apple juice" asks for juice).
                        let text = names[words[position].start..<words[position].end]
                        if !query.indices.contains(where: { queryMarks[$0] && query[$0].elementsEqual(text) }) { marked += 1 }
                    }
                    let plain = UInt64((profile.plain & ~queryPlain).nonzeroBitCount)
                    var key = min(placement, 15) << 60
                    key |= UInt64(min(profile.lowPriority, 3)) << 58
                    key |= UInt64(head) << 56
                    key |= UInt64(min(marked, 15)) << 52
                    key |= (7 - min(plain, 7)) << 49
                    key |= UInt64(6 - profile.portions) << 46
                    key |= min(inexact, 7) << 43
                    key |= UInt64(min(profile.wordCount, 255)) << 35
                    key |= UInt64(alphabeticalRank[food])
                    found(food, key)
                }
            }
        }
    }

    /// Rule 3 for a food whose words at `matched` hold the query's: 0 when they make the head of the name, 1 when the
    /// head holds one of them among other words, 2 when they all lie outside it.
    private func headPlace(words: UnsafeBufferPointer<Word>, in range: Range<Int>, profile: Profile, matched: [Int]) -> Int {
        var headPart: UInt8 = 0
        if profile.genusFirst, !matched.contains(where: { words[$0].part == 0 }) { headPart = 1 }
        var all = true
        var any = false
        var first = true
        for position in range where words[position].part == headPart {
            if !first, words[position].marks.contains(.joiner) { break }
            first = false
            if matched.contains(position) { any = true } else { all = false }
        }
        return any ? (all ? 0 : 1) : 2
    }

    /// The best match of the query word `word` among the name's words (`range`), and that word's position; nil when
    /// none matches.
    private static func bestMatch(
        of word: UnsafeBufferPointer<UInt8>, typoTolerant: Bool, names: UnsafeBufferPointer<UInt8>, words: UnsafeBufferPointer<Word>,
        in range: Range<Int>
    ) -> (Match, Int)? {
        var best: (Match, Int)?
        for position in range {
            let name = UnsafeBufferPointer(rebasing: names[words[position].start..<words[position].end])
            let match: Match
            if name.elementsEqual(word) {
                return (.same, position)
            } else if sameWordOtherNumber(name, word) {
                match = .otherNumber
            } else if name.starts(with: word) {
                match = .prefix
            } else if contains(word, in: name, from: 0, to: name.count) {
                match = .inside
            } else if typoTolerant && oneTypoFromPrefix(word, of: name) {
                match = .typo
            } else {
                continue
            }
            if best == nil || match.rawValue < best!.0.rawValue { best = (match, position) }
        }
        return best
    }

    /// Whether `a` and `b` are one word in the singular and the plural ("apple" and "apples", "cherry" and
    /// "cherries", "tomato" and "tomatoes", "peach" and "peaches").
    static func sameWordOtherNumber(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        guard long.count > short.count, long.starts(with: short.prefix(short.count - (short.last == UInt8(ascii: "y") ? 1 : 0))) else { return false }
        let ending = Array(long[(short.count - (short.last == UInt8(ascii: "y") ? 1 : 0))...])
        if short.last == UInt8(ascii: "y") { return ending == Array("ies".utf8) }
        return ending == [UInt8(ascii: "s")] || ending == Array("es".utf8)
    }

    /// The part of a query word any of its forms begins with, for a quick look in a name: "cherr" for "cherries",
    /// "apple" for "apples".
    static func stem(_ word: [UInt8]) -> [UInt8] {
        if word.count > 4, word.suffix(3).elementsEqual("ies".utf8) { return Array(word.dropLast(3)) }
        if word.count > 3, word.suffix(2).elementsEqual("es".utf8) { return Array(word.dropLast(2)) }
        if word.count > 2, word.last == UInt8(ascii: "s") { return Array(word.dropLast()) }
        return word
    }

    /// Whether a prefix of the name's word `name` is at most one edit from `word` (Damerau–Levenshtein: one letter
    /// added, missing, changed, or two neighbours swapped): a typo in a word typed whole or in part.
    static func oneTypoFromPrefix(_ word: UnsafeBufferPointer<UInt8>, of name: UnsafeBufferPointer<UInt8>) -> Bool {
        for length in (word.count - 1)...(word.count + 1) where length > 0 && length <= name.count {
            if withinOneEdit(word, UnsafeBufferPointer(rebasing: name[0..<length])) { return true }
        }
        return false
    }

    public static func withinOneEdit(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.count == b.count {
            var first = -1
            var differences = 0
            for index in 0..<a.count where a[index] != b[index] {
                differences += 1
                if differences == 1 { first = index } else if differences > 2 { return false }
            }
            if differences <= 1 { return true }
            // Two neighbours swapped.
            return differences == 2 && first + 1 < a.count && a[first] == b[first + 1] && a[first + 1] == b[first]
                && a[(first + 2)...].elementsEqual(b[(first + 2)...])
        }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        guard long.count - short.count == 1 else { return false }
        var index = 0
        while index < short.count, short[index] == long[index] { index += 1 }
        return short[index...].elementsEqual(long[(index + 1)...])
    }

    /// Whether `word` occurs in any name.
    private func occursAnywhere(_ word: [UInt8]) -> Bool {
        names.withUnsafeBufferPointer { names in
            word.withUnsafeBufferPointer { Self.contains($0, in: names, from: 0, to: names.count) }
        }
    }

    /// Whether `word` occurs in `bytes[start..<end]`.
    static func contains(_ word: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        let length = word.count
        guard length > 0, end - start >= length else { return length == 0 }
        let first = word[0]
        var position = start
        let last = end - length
        while position <= last {
            if bytes[position] == first {
                var matched = 1
                while matched < length, bytes[position + matched] == word[matched] { matched += 1 }
                if matched == length { return true }
            }
            position += 1
        }
        return false
    }

    /// The query's words, lowercased, as UTF-8.
    static func words(of query: String) -> [[UInt8]] {
        var words: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in query.lowercased().utf8 {
            if isWordByte(byte) {
                current.append(byte)
            } else if !current.isEmpty {
                words.append(current)
                current.removeAll()
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}

/// Letters and digits of ASCII, and every byte of a non-ASCII character.
private func isWordByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
}
