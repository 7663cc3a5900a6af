import Foundation
import Testing

@testable import CaretideRuntime

/// `PatientID.isValid` reads bytes; the envelope schema states the rule as a pattern. They must agree on every
/// character, ASCII or not, first or later, and at the length limit.
@Suite struct PatientIDTests {
    /// The schema's pattern, with `\z` for its `$`: in JSON Schema (ECMA-262) `$` ends the input, while ICU's also
    /// matches before a final line break.
    static let pattern = try! NSRegularExpression(pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}\\z")

    static func matchesPattern(_ value: String) -> Bool {
        pattern.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }

    static let characters: [String] = (1...0x7E).map { String(UnicodeScalar(UInt8($0))) } + ["é", "Ä", "٣", "ｱ", "😀", "\u{301}", "\u{7F}"]

    @Test("each character, alone, first and after a letter, as the pattern says")
    func everyCharacter() {
        for character in Self.characters {
            for value in [character, character + "a", "a" + character, "p-1" + character + "2"] {
                #expect(PatientID.isValid(value) == Self.matchesPattern(value), "\(value.unicodeScalars.map(\.value))")
            }
        }
    }

    @Test("up to 64 characters")
    func length() {
        #expect(!PatientID.isValid(""))
        #expect(PatientID.isValid(String(repeating: "a", count: 64)))
        #expect(!PatientID.isValid(String(repeating: "a", count: 65)))
        #expect(!PatientID.isValid(String(repeating: "a", count: 63) + "é"))
        #expect(PatientID.isValid("A-b_c:d.e9"))
    }
}
