import CaretideSchemas
import Foundation
import PropertyBased
import Testing

/// What a hostile or careless caller sends must cost the server about what it cost the caller, and must never come
/// back in an answer, a log line or a dead-letter reason.
@Suite struct HostileInputTests {
    static func json(_ text: String) throws -> JSONValue { try CaretideJSON.parse(Array(text.utf8)) }

    let readings = try! JSONSchema(
        bytes: Array(
            """
            {"type": "object", "additionalProperties": false,
             "properties": {
               "values": {"type": "array", "maxItems": 500, "items": {"type": "number", "minimum": 0}},
               "items": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                                                   "properties": {"comment": {"type": "string"}}}},
               "note": {"type": "string"}, "free": {}}}
            """.utf8))

    @Test("items are not checked once maxItems fails: a million bad numbers make one violation")
    func maxItemsStopsItemChecks() throws {
        let values = JSONValue.array(Array(repeating: .number(-1), count: 1_000_000))
        let violations = readings.validate(.object(["values": values]))
        #expect(violations == [SchemaViolation(pointer: JSONPointer(tokens: ["values"]), message: "must have at most 500 items")])
    }

    @Test("at most 100 violations are listed, then one counting the rest")
    func violationsAreCapped() throws {
        let items = JSONValue.array((0..<5_000).map { _ in .object(["comment": .number(1)]) })
        let violations = readings.validate(.object(["items": items]))
        #expect(violations.count == JSONSchema.maximumViolations + 1)
        #expect(violations.last == SchemaViolation(pointer: .root, message: "and 4900 more violations not listed"))
        #expect(violations.dropLast().allSatisfy { $0.message == "must be of type string" })
    }

    @Test("an unknown member is reported at its object, its name never echoed")
    func unknownMemberNamesAreNotEchoed() throws {
        let violations = readings.validate(try Self.json(#"{"Jane Roe has HIV": 1, "items": [{"another secret": 2, "and one more": 3}]}"#))
        #expect(
            violations == [
                SchemaViolation(pointer: .root, message: "has a member that is not a known field"),
                SchemaViolation(pointer: JSONPointer(tokens: ["items", "0"]), message: "has 2 members that are not known fields"),
            ])
        #expect(!violations.map(\.description).joined().contains("secret") && !violations.map(\.description).joined().contains("Jane"))
    }

    @Test("U+0000 is refused in any string, by the pointer of its field, or at the object for a member name")
    func nulIsRefused() throws {
        let violations = readings.validate(try Self.json(#"{"note": "a\u0000b", "items": [{"comment": "\u0000"}], "free": {"x": ["\u0000"]}}"#))
        #expect(violations.map(\.pointer) == ["/free", "/items/0/comment", "/note"])
        #expect(violations.allSatisfy { $0.message.contains("U+0000") })
        let inName = readings.validate(try Self.json(#"{"items": [{"com\u0000ment": "x"}]}"#))
        #expect(
            inName == [
                SchemaViolation(pointer: JSONPointer(tokens: ["items", "0"]), message: "has a member name containing U+0000, which cannot be stored")
            ])
    }

    @Test("timestamps before 1900 or beyond 9999 in UTC are refused, whatever their offset")
    func implausibleYearsAreRefused() {
        #expect(Timestamp.parse("0000-01-01T00:00:00+01:00") == nil)
        #expect(Timestamp.parse("1899-12-31T23:59:59Z") == nil)
        #expect(Timestamp.parse("1900-01-01T00:30:00+01:00") == nil)  // 1899-12-31T23:30Z
        #expect(Timestamp.parse("1900-01-01T00:00:00Z") == Timestamp.plausibleRange.lowerBound)
        #expect(Timestamp.parse("9999-12-31T23:59:59Z") != nil)
        #expect(Timestamp.parse("9999-12-31T23:59:59-01:00") == nil)  // year 10000 in UTC
        #expect(Timestamp.format(Timestamp.plausibleRange.lowerBound) == "1900-01-01T00:00:00.000Z")
    }

    @Test("every accepted instant is written as four-digit RFC 3339 and reads back the same")
    func writerRoundTripsEveryAcceptedInstant() async {
        let lower = Int64(Timestamp.plausibleRange.lowerBound.timeIntervalSince1970 * 1000)
        let upper = Int64(Timestamp.plausibleRange.upperBound.timeIntervalSince1970 * 1000) - 1
        await propertyCheck(input: Gen.int64(in: lower...upper)) { milliseconds in
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = Timestamp.format(date)
            #expect(text.utf8.count == 24)
            #expect(Timestamp.parse(text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == milliseconds)
        }
    }

    @Test("date format: a real calendar day in a plausible year")
    func dateFormat() throws {
        let schema = try JSONSchema(bytes: Array(#"{"type": "string", "format": "date"}"#.utf8))
        #expect(schema.validate(.string("2026-02-28")).isEmpty)
        #expect(!schema.validate(.string("2026-02-30")).isEmpty)
        #expect(!schema.validate(.string("0000-01-01")).isEmpty)
    }
}
