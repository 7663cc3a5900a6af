import Foundation
import PropertyBased
import Testing

@testable import CaretideSchemas

/// `SimplePattern` stands in for `NSRegularExpression` on the schemas' simple patterns; it must answer as ICU does,
/// except where ICU departs from JSON Schema's ECMA-262 patterns (a `$` before a final line break).
@Suite("Simple patterns")
struct SimplePatternTests {
    /// Every `pattern` in the bundled schemas.
    static let bundledPatterns: [String] = {
        var found: Set<String> = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if case .string(let pattern)? = members["pattern"] { found.insert(pattern) }
                for member in members.values { collect(member) }
            case .array(let elements): for element in elements { collect(element) }
            default: break
            }
        }
        let files = FileManager.default.enumerator(at: SchemaCatalog.bundledDirectory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "json", let data = try? Data(contentsOf: file), let document = try? CaretideJSON.parse(Array(data)) else {
                continue
            }
            collect(document)
        }
        return found.sorted()
    }()

    @Test("the patterns every event and request checks are matched without a regular expression")
    func commonPatternsAreSimple() {
        #expect(Self.bundledPatterns.count >= 15)
        for pattern in [
            #"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"#, #"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#, #"^HP:[0-9]{7}$"#, #"\S"#, #"^[A-Za-z0-9._~-]+$"#,
            #"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$"#,
        ] {
            #expect(Self.bundledPatterns.contains(pattern), "\(pattern) is no longer in the schemas")
            #expect(SimplePattern(pattern) != nil, "\(pattern)")
        }
    }

    @Test(
        "alternatives, nested or special groups, any-character, lazy counts or classes ICU reads its own way stay with the regular expression",
        arguments: [
            #"^([01][0-9]|2[0-3]):[0-5][0-9]$"#, "^((a)b)$", "^(?:a)$", "^(a$", "^a)$", "^a|b$", "^a.b$", "^a+?$", "^a*+$", "^[a&&b]$",
            "^[[:alpha:]]$", #"^\d+$"#, #"^\w$"#, "^a{2,1}$", "^[z-a]$", "^é$", "(?i)a",
        ])
    func othersAreNotSimple(pattern: String) {
        #expect(SimplePattern(pattern) == nil)
    }

    @Test("an id: 1 to 64 characters, starting with a letter or digit")
    func idPattern() throws {
        let id = try #require(SimplePattern(#"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"#))
        #expect(id.matches("patient-0042"))
        #expect(id.matches("a"))
        #expect(id.matches(String(repeating: "a", count: 64)))
        #expect(!id.matches(String(repeating: "a", count: 65)))
        #expect(!id.matches(""))
        #expect(!id.matches("-patient"))
        #expect(!id.matches("patient 42"))
        #expect(!id.matches("patiënt"))
        // ECMA-262, which JSON Schema's patterns follow: `$` is the end of the text, not a line break before it.
        #expect(!id.matches("patient-0042\n"))
    }

    @Test("a group with a count: the event type, a dotted name of lowercase words")
    func groupPattern() throws {
        let eventType = try #require(SimplePattern(#"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$"#))
        #expect(eventType.matches("assessment.recorded"))
        #expect(eventType.matches("blood-pressure.recorded"))
        #expect(eventType.matches("a.b.c.d"))
        #expect(!eventType.matches("assessment"))
        #expect(!eventType.matches("assessment."))
        #expect(!eventType.matches("assessment..recorded"))
        #expect(!eventType.matches(".recorded"))
        #expect(!eventType.matches("Assessment.recorded"))
        let counted = try #require(SimplePattern("^(ab){2,3}c?$"))
        #expect(!counted.matches("ab"))
        #expect(counted.matches("abab"))
        #expect(counted.matches("abababc"))
        #expect(!counted.matches("abababab"))
        // An empty group counts towards a minimum, and does not loop.
        let empty = try #require(SimplePattern("^(a?){3}b$"))
        #expect(empty.matches("b"))
        #expect(empty.matches("aaab"))
        #expect(!empty.matches("aaaab"))
        #expect(!empty.matches(String(repeating: "a", count: 2_000)))
    }

    @Test("an unanchored pattern matches anywhere: \\S is any character that is not white space")
    func unanchored() throws {
        let someText = try #require(SimplePattern(#"\S"#))
        #expect(!someText.matches(""))
        #expect(!someText.matches(" \t\n\r\u{0C}\u{A0}\u{2028}\u{3000}"))
        #expect(someText.matches("  x "))
        #expect(someText.matches("é"))
        #expect(someText.matches("\u{0B}"))  // ICU's \s does not include the vertical tab
    }

    @Test("counts many atoms could share are tried once per position: a long hopeless value ends")
    func boundedWork() throws {
        let hopeless = try #require(SimplePattern("^[a-z]*[a-z]*[a-z]*[a-z]*x$"))
        #expect(!hopeless.matches(String(repeating: "a", count: 5_000)))
        #expect(hopeless.matches(String(repeating: "a", count: 5_000) + "x"))
    }

    @Test("every simple pattern of the schemas answers as ICU's regular expressions do")
    func agreesWithICU() async throws {
        let simple = Self.bundledPatterns.compactMap { pattern in SimplePattern(pattern).map { (pattern, $0) } }
        #expect(simple.count >= 10)
        for (source, pattern) in simple {
            let expression = try NSRegularExpression(pattern: source)
            // The pattern's own characters, their neighbours and a few that no class accepts, so that values both
            // match and miss, at every length around the counts.
            var alphabet = Set(source.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 }.map(Character.init))
            alphabet.formUnion(["a", "Z", "0", "9", "-", ".", ":", "_", " ", "\t", "é", "😀", "\u{2028}", "\u{A0}", "H", "P"])
            let pieces = alphabet.sorted().map(String.init) + ["2026-11-27", "HP:0000118", "patient", String(repeating: "a", count: 63)]
            await propertyCheck(count: 400, input: Gen<String?>.element(of: pieces).map { $0 ?? "" }.array(of: 0...6)) { parts in
                let value = parts.joined()
                let icu = expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
                // ICU lets `$` match before a final line break; ECMA-262 (and `SimplePattern`) does not.
                let icuWithoutFinalBreak = icu && !(source.hasSuffix("$") && value.last?.isNewline == true)
                #expect(pattern.matches(value) == icuWithoutFinalBreak, "\(source) on \(value.debugDescription)")
            }
        }
    }
}

extension SimplePatternTests {
    @Test("a group repeated many thousands of times is matched or refused without exhausting the stack")
    func longGroups() throws {
        let type = try #require(SimplePattern(#"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$"#))
        let long = "a" + String(repeating: ".b", count: 200_000)
        #expect(type.matches(long))
        #expect(!type.matches(long + "."))
        #expect(!type.matches(long + ".é"))
    }
}
