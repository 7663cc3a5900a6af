import CaretideSchemas
import Foundation
import Testing

@Suite struct JSONSchemaTests {
    static func schema(_ text: String) throws -> JSONSchema { try JSONSchema(bytes: Array(text.utf8)) }
    static func json(_ text: String) throws -> JSONValue { try CaretideJSON.parse(Array(text.utf8)) }

    let reading = try! schema(
        """
        {"type": "object", "required": ["systolic", "diastolic", "takenAt"], "additionalProperties": false,
         "properties": {
           "systolic": {"type": "integer", "minimum": 50, "maximum": 300},
           "diastolic": {"type": "integer", "minimum": 20, "maximum": 200},
           "takenAt": {"type": "string", "format": "date-time"},
           "source": {"enum": ["patient", "device"]},
           "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2}}}
        """)

    @Test func validDocumentHasNoViolations() throws {
        #expect(reading.validate(try Self.json(#"{"systolic": 120, "diastolic": 80, "takenAt": "2026-11-22T08:00:00Z"}"#)) == [])
    }

    @Test("every failing field is reported, each by its JSON Pointer")
    func reportsEveryViolation() throws {
        let violations = reading.validate(
            try Self.json(
                #"{"systolic": "high", "diastolic": 10, "takenAt": "yesterday", "source": "fax", "extra": 1, "tags": ["a", "long", "b"]}"#))
        // Three tags are too many, so the items are not checked one by one.
        #expect(violations.map(\.pointer) == ["", "/diastolic", "/source", "/systolic", "/tags", "/takenAt"])
        #expect(violations.first { $0.pointer == "/systolic" }?.message == "must be of type integer")
        #expect(violations.first { $0.pointer == "/diastolic" }?.message == "must be at least 20")
        #expect(violations.first { $0.pointer == "" }?.message == "has a member that is not a known field")
    }

    @Test func missingRequiredFieldsAreNamed() throws {
        let violations = reading.validate(try Self.json("{}"))
        #expect(
            violations
                == ["/diastolic", "/systolic", "/takenAt"].map {
                    SchemaViolation(pointer: JSONPointer(tokens: [String($0.dropFirst())]), message: "is required")
                })
    }

    @Test("missing names come first, then the members' violations, at every level of a document nested deep")
    func missingNamesAtEveryLevel() throws {
        let tree = try Self.schema(
            """
            {"$defs": {"node": {"type": "object", "required": ["name", "unlisted"],
             "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/node"}}}},
             "$ref": "#/$defs/node"}
            """)
        // Each of 150 levels lacks its name and has `unlisted` (required, with no schema of its own); the innermost has
        // both. A level's missing names come before whatever is found beneath it, so the hundred listed are the
        // missing names of the outer hundred levels.
        var text = #"{"unlisted": 1, "name": "leaf"}"#
        for _ in 0..<150 { text = #"{"child": \#(text), "unlisted": true}"# }
        let violations = tree.validate(try Self.json(text))
        let missing = (0..<100).map { depth in
            SchemaViolation(pointer: JSONPointer(tokens: Array(repeating: "child", count: depth) + ["name"]), message: "is required")
        }
        #expect(Set(violations.dropLast()) == Set(missing))
        #expect(violations.last == SchemaViolation(pointer: .root, message: "and 50 more violations not listed"))
        #expect(tree.validate(try Self.json(#"{"unlisted": 1, "name": "leaf"}"#)) == [])
        #expect(
            tree.validate(try Self.json(#"{"name": "leaf"}"#)) == [
                SchemaViolation(pointer: JSONPointer(tokens: ["unlisted"]), message: "is required")
            ])
    }

    @Test("integers are not fractional numbers; whole-valued numbers are integers")
    func integerType() throws {
        #expect(
            reading.validate(try Self.json(#"{"systolic": 120.5, "diastolic": 80, "takenAt": "2026-11-22T08:00:00Z"}"#)).map(\.pointer) == [
                "/systolic"
            ])
        #expect(reading.validate(try Self.json(#"{"systolic": 120.0, "diastolic": 80, "takenAt": "2026-11-22T08:00:00Z"}"#)) == [])
    }

    @Test("a string's length is its code points, as JSON Schema counts it, not its user-perceived characters")
    func lengthCountsCodePoints() throws {
        let tags = { (tag: String) in try Self.json(#"{"systolic": 120, "diastolic": 80, "takenAt": "2026-11-22T08:00:00Z", "tags": ["\#(tag)"]}"#) }
        // Three code points each: at the bound (the second is two characters to Swift, an accented letter and a letter).
        #expect(reading.validate(try tags("abc")) == [])
        #expect(reading.validate(try tags("e\u{301}e")) == [])
        // Four code points: over the bound, though Swift counts two characters (two flags, each a pair of regional
        // indicators) and two (two accented letters).
        for tag in ["\u{1F1EB}\u{1F1F7}\u{1F1E9}\u{1F1EA}", "e\u{301}e\u{301}"] {
            #expect(tag.count == 2)
            let violation = SchemaViolation(pointer: JSONPointer(tokens: ["tags", "0"]), message: "must have at most 3 characters")
            #expect(reading.validate(try tags(tag)) == [violation])
        }
    }

    @Test func boundsAreInclusive() throws {
        #expect(reading.validate(try Self.json(#"{"systolic": 300, "diastolic": 20, "takenAt": "2026-11-22T08:00:00Z"}"#)) == [])
        #expect(reading.validate(try Self.json(#"{"systolic": 301, "diastolic": 19, "takenAt": "2026-11-22T08:00:00Z"}"#)).count == 2)
    }

    @Test func localReferencesAndOneOf() throws {
        let schema = try Self.schema(
            """
            {"$defs": {"id": {"type": "string", "pattern": "^[a-z]+$"}},
             "type": "object", "properties": {"a": {"$ref": "#/$defs/id"},
             "b": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}
            """)
        #expect(schema.validate(try Self.json(#"{"a": "abc", "b": 3}"#)) == [])
        #expect(schema.validate(try Self.json(#"{"a": "ABC", "b": true}"#)).map(\.pointer) == ["/a", "/b"])
    }

    @Test("a schema using an unimplemented keyword is refused, so no rule is silently skipped")
    func unsupportedKeywordsAreRefused() {
        #expect(throws: SchemaViolation.self) { try Self.schema(#"{"type": "object", "dependentRequired": {"a": ["b"]}}"#) }
        #expect(throws: SchemaViolation.self) { try Self.schema(#"{"properties": {"a": {"if": {"type": "string"}}}}"#) }
    }

    @Test("malformed JSON is reported at the root with the byte offset where it breaks and why, never echoing the input")
    func malformedJSONSaysWhere() {
        let cases: [(String, String)] = [
            (#"{"systolic": "#, "at byte 13: unexpected end of input, expected a value"),
            (#"{"systolic" 120}"#, "at byte 12: expected ':' after an object key"),
            (#"{"a": 1 "b": 2}"#, "at byte 8: expected ',' or '}' after an object member"),
            (#"[1, 2,, 3]"#, "at byte 6: expected a value"),
            (#"{"secret": 1, "secret": 2}"#, "at byte 14: a key appears twice in one object"),
            (#"{"a": {"b": [{}], "c": {"d": 1}, "b": 2}, "e": 3}"#, "at byte 33: a key appears twice in one object"),
            (#"{"a": tru}"#, "at byte 6: expected true"),
            (#"{"a": 1.}"#, "at byte 8: expected a digit after the decimal point"),
            (#"{"a": "\q"}"#, "at byte 7: an unknown escape sequence"),
            (#"{} {}"#, "at byte 3: unexpected data after the JSON value"),
            ("{\"a\": \"x\u{01}\"}", "at byte 8: a control character inside a string must be escaped"),
        ]
        for (text, expected) in cases {
            #expect(throws: SchemaViolation(pointer: .root, message: "malformed JSON \(expected)"), "\(text)") { try Self.json(text) }
        }
    }

    @Test func pointerEscaping() {
        #expect(JSONPointer(tokens: ["a/b", "c~d", "0"]).description == "/a~1b/c~0d/0")
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-11-22T08:30:00Z", 1_795_336_200.0),
        ("2026-11-22T08:30:00.250Z", 1_795_336_200.25),
        ("2026-11-22T09:30:00+01:00", 1_795_336_200.0),
        ("2026-11-22t08:30:00z", 1_795_336_200.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1969-12-31T23:59:59Z", -1.0),
    ])
    func parsesRFC3339(text: String, seconds: Double) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test(arguments: [
        "2026-11-22", "2026-11-22 08:30:00Z", "2026-11-22T08:30:00", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T08:30:00.Z", "2026-11-22T08:30:00+0100", "yesterday",
    ])
    func refusesOtherText(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_795_336_200.25)) == "2026-11-22T08:30:00.250Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }

    @Test("format and parse round-trip at millisecond precision")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let parsed = try #require(Timestamp.parse(Timestamp.format(date)))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
        }
    }
}

@Suite struct EventCodecTests {
    let codec = EventCodec(catalog: try! SchemaCatalog(directory: SchemaContractTests.schemasDirectory))

    func envelope(_ payload: String, type: String = "blood-pressure.recorded", version: Int = 1) -> [UInt8] {
        Array(
            """
            {"eventId": "7d0a3c52-8a43-4f3e-9a53-0d8a1d1b2f10", "eventType": "\(type)", "schemaVersion": \(version),
             "occurredAt": "2026-11-22T08:30:00Z", "producer": "test", "patientId": "p1", "payload": \(payload)}
            """.utf8)
    }

    @Test func acceptsAValidEvent() throws {
        let event = try codec.decode(
            envelope(
                #"{"measurementId": "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11", "revision": 1, "systolic": 120, "diastolic": 80, "takenAt": "2026-11-22T07:55:00Z", "source": "patient"}"#
            ))
        #expect(event.payload(as: BloodPressureRecorded.self)?.systolic == 120)
        #expect(event.patientID == "p1")
    }

    @Test func refusesMalformedJSON() {
        #expect(throws: EventRejection.self) { try codec.decode(Array("{not json".utf8)) }
    }

    @Test func refusesUnknownEventTypes() throws {
        do {
            _ = try codec.decode(envelope("{}", type: "weather.changed"))
            Issue.record("accepted an unknown event type")
        } catch {
            #expect(error.reason == "unknown event type")
        }
    }

    @Test func refusesOtherSchemaVersions() throws {
        do {
            _ = try codec.decode(envelope("{}", version: 7))
            Issue.record("accepted an unknown schema version")
        } catch {
            #expect(error.reason == "unsupported schema version")
        }
    }

    @Test("an invalid payload names every failing field under /payload")
    func refusesInvalidPayload() throws {
        do {
            _ = try codec.decode(
                envelope(#"{"measurementId": "nope", "revision": 1, "systolic": 20, "takenAt": "2026-11-22T07:55:00Z", "source": "patient"}"#))
            Issue.record("accepted an invalid payload")
        } catch {
            #expect(error.violations.map(\.pointer) == ["/payload/diastolic", "/payload/measurementId", "/payload/systolic"])
            #expect(!error.description.contains("20"))  // reasons name fields and rules, never the values
        }
    }
}
