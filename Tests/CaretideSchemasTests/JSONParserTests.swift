import CaretideSchemas
import Foundation
import Testing

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try CaretideJSON.parse(Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5e3, 0, true, false, null], "b": {"c": "d"}, "e": ""} "#)
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .number(-2500), .number(0), .bool(true), .bool(false), .null]),
                    "b": .object(["c": .string("d")]), "e": .string(""),
                ]))
    }

    @Test func decodesEscapes() throws {
        #expect(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "tru", "nul", "\"abc", "\"a\u{01}b\"", "{\"a\" 1}", "[1 2]",
        "{\"a\":1}x", "\"\\x\"", "\"\\ud83d\"", "\"\\ude00\"", "{\"a\":1,\"a\":2}", "NaN", "1e999",
    ])
    func refusesInvalidJSON(text: String) {
        #expect(throws: SchemaViolation.self) { try parse(text) }
    }

    @Test("deep nesting is refused instead of exhausting the stack")
    func nestingLimit() {
        #expect(throws: SchemaViolation.self) { try parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) }
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 200) + String(repeating: "]", count: 200)) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: SchemaViolation.self) { try CaretideJSON.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("whatever Foundation's encoder writes, the parser reads back as the same value")
    func roundTripsRandomValues() throws {
        var generator = SystemRandomNumberGenerator()
        func random(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 8)
            case 3:
                let characters = "aé\"\\/\n\t😀 \u{7f}z"
                return .string(String((0..<Int.random(in: 0...8, using: &generator)).map { _ in characters.randomElement(using: &generator)! }))
            case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in random(depth: depth + 1) })
            default:
                var members: [String: JSONValue] = [:]
                for index in 0..<Int.random(in: 0...4, using: &generator) { members["k\(index)"] = random(depth: depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<500 {
            let value = random(depth: 0)
            let encoded = try JSONEncoder().encode(value)
            #expect(try CaretideJSON.parse(encoded) == value)
        }
    }
}
