import CaretideSchemas
import Foundation
import PropertyBased
import Testing

/// `CaretideJSON.encode` replaced a Foundation `JSONEncoder` configured with Caretide's conventions; what it writes
/// must read back the same everywhere.
@Suite struct JSONEncodingTests {
    static var foundationEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        return encoder
    }

    static func roundTrip(_ value: some Encodable) -> JSONValue? {
        try? CaretideJSON.parse(CaretideJSON.encode(value))
    }

    @Test("every event sample encodes to the same bytes as Foundation's encoder with the same settings", arguments: EventSamples.all)
    func sameBytesAsFoundation(sample: EventSample) throws {
        let ours = try sample.encode()
        let foundation = String(decoding: try sample.encodeWithFoundation(Self.foundationEncoder), as: UTF8.self)
        // Foundation writes UUIDs in uppercase; Caretide in lowercase (RFC 9562 §4), as its headers and PostgreSQL do.
        #expect(String(decoding: ours, as: UTF8.self) == Self.lowercasingUUIDs(foundation))
    }

    @Test("UUIDs are written in lowercase, and read in either case")
    func uuidsAreLowercase() throws {
        let id = UUID(uuidString: "0B9A1C8E-52E4-4C1B-B1B6-2D3F0D9E0A11")!
        let text = String(decoding: try CaretideJSON.encode(["id": id]), as: UTF8.self)
        #expect(text == #"{"id":"0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"}"#)
        #expect(
            try JSONValueDecoder.decode(
                [String: UUID].self, from: CaretideJSON.parse(Array(text.uppercased().replacingOccurrences(of: "ID", with: "id").utf8))) == ["id": id]
        )
    }

    static func lowercasingUUIDs(_ text: String) -> String {
        let pattern = try! Regex("[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
        return text.replacing(pattern) { $0.output[0].substring.map { $0.lowercased() } ?? "" }
    }

    @Test("any string survives encoding and parsing unchanged: quotes, backslashes, control characters, non-ASCII")
    func stringsRoundTrip() async {
        let scalar = Gen<Character>.character(in: "\u{0}"..."\u{2FF}")
        await propertyCheck(input: scalar.string(of: 0...40)) { text in
            #expect(Self.roundTrip(["key \(text)": text]) == .object(["key \(text)": .string(text)]))
        }
    }

    @Test("a flat object of strings (a log line) is written byte for byte as the encoder writes the same dictionary")
    func stringMembers() async throws {
        let scalar = Gen<Character>.character(in: "\u{0}"..."\u{2FF}")
        await propertyCheck(input: scalar.string(of: 0...12), scalar.string(of: 0...12), scalar.string(of: 0...40)) { first, second, value in
            // Assigned one by one: the generated keys may repeat each other or "message".
            var members = ["message": value]
            members[first] = "a \(value)"
            members[second] = "\"\(first)\\"
            #expect(CaretideJSON.encode(stringMembers: members.map { ($0.key, $0.value) }) == (try? CaretideJSON.encode(members)))
        }
        #expect(CaretideJSON.encode(stringMembers: []) == Array("{}".utf8))
    }

    @Test("numbers: integral values without a fraction, others exactly; non-finite values refused")
    func numbers() async throws {
        #expect(String(decoding: try CaretideJSON.encode([120.0, -3, 0.1, 1e-7, 2.5e20]), as: UTF8.self) == "[120,-3,0.1,1e-07,2.5e+20]")
        #expect(String(decoding: try CaretideJSON.encode([Int64.max]), as: UTF8.self) == "[9223372036854775807]")
        #expect(throws: EncodingError.self) { try CaretideJSON.encode([Double.nan]) }
        await propertyCheck(input: Gen.double(in: -1e12...1e12)) { value in
            #expect(Self.roundTrip([value]) == .array([.number(value)]))
        }
    }

    @Test("dates as RFC 3339 with milliseconds, keys sorted by their bytes, nil optionals left out")
    func conventions() throws {
        struct Sample: Encodable {
            let b: Date
            let a: String?
            let Z: [String: Int]
            let url = "https://example.org/a"
        }
        let text = String(
            decoding: try CaretideJSON.encode(Sample(b: Date(timeIntervalSince1970: 0.25), a: nil, Z: ["y": 1, "x": 2])), as: UTF8.self)
        #expect(text == #"{"Z":{"x":2,"y":1},"b":"1970-01-01T00:00:00.250Z","url":"https://example.org/a"}"#)
    }

    @Test("a key encoded twice keeps its last value, as a dictionary would")
    func repeatedKey() throws {
        struct Twice: Encodable {
            enum Key: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: .b)
                try container.encode(2, forKey: .a)
                try container.encode(3, forKey: .b)
            }
        }
        #expect(String(decoding: try CaretideJSON.encode(Twice()), as: UTF8.self) == #"{"a":2,"b":3}"#)
    }
}
