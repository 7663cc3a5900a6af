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
        #expect(throws: EncodingError.self) { try CaretideJSON.encode(["systolic": Double.infinity]) }
        #expect(String(decoding: try CaretideJSON.encode(["b": 2.5, "a": 120.0]), as: UTF8.self) == #"{"a":120,"b":2.5}"#)
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

    /// A value built from a seed: objects of distinct keys in any order, arrays, strings, numbers, booleans and nulls,
    /// nested up to four deep, and written the ways an `Encodable` writes them: a nested container, or a nested value.
    struct RandomTree: Encodable {
        indirect enum Node {
            case object([(String, Node)])
            case array([Node])
            case text(String)
            case number(Double)
            case flag(Bool)
            case null
        }

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        let node: Node
        /// Nested objects and arrays through nested containers, rather than as values of their own.
        let nesting: Bool

        /// A generator whose sequence the seed fixes (SplitMix64), so that a failing seed can be run again.
        struct Seeded: RandomNumberGenerator {
            var state: UInt64
            mutating func next() -> UInt64 {
                state &+= 0x9E37_79B9_7F4A_7C15
                var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                return mixed ^ (mixed >> 31)
            }
        }

        init(seed: Int) {
            var random = Seeded(state: UInt64(truncatingIfNeeded: seed))
            func make(depth: Int) -> Node {
                switch Int.random(in: 0..<(depth >= 4 ? 4 : 6), using: &random) {
                case 0: return .text(["", "a", "é\"", "line\nbreak", "2026-12-01"].randomElement(using: &random)!)
                case 1: return .number([0, -3, 0.1, 1e-7, 2.5e20, 120].randomElement(using: &random)!)
                case 2: return .flag(Bool.random(using: &random))
                case 3: return .null
                case 4: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in make(depth: depth + 1) })
                default:
                    let names = ["b", "a", "Z", "aa", "é", "_", "ab", "B"].shuffled(using: &random)
                    return .object(names.prefix(Int.random(in: 0..<6, using: &random)).map { ($0, make(depth: depth + 1)) })
                }
            }
            node = make(depth: 0)
            nesting = Bool.random(using: &random)
        }

        private init(_ node: Node, nesting: Bool) {
            self.node = node
            self.nesting = nesting
        }

        func encode(to encoder: any Encoder) throws {
            switch node {
            case .object(let members):
                var container = encoder.container(keyedBy: Key.self)
                for (name, member) in members { try Self.write(member, forKey: Key(name), in: &container, nesting: nesting) }
            case .array(let elements):
                var container = encoder.unkeyedContainer()
                for element in elements { try Self.append(element, to: &container, nesting: nesting) }
            case .text(let text):
                var container = encoder.singleValueContainer()
                try container.encode(text)
            case .number(let number):
                var container = encoder.singleValueContainer()
                try container.encode(number)
            case .flag(let flag):
                var container = encoder.singleValueContainer()
                try container.encode(flag)
            case .null:
                var container = encoder.singleValueContainer()
                try container.encodeNil()
            }
        }

        static func write(_ node: Node, forKey key: Key, in container: inout KeyedEncodingContainer<Key>, nesting: Bool) throws {
            switch node {
            case .object(let members) where nesting:
                var nested = container.nestedContainer(keyedBy: Key.self, forKey: key)
                for (name, member) in members { try write(member, forKey: Key(name), in: &nested, nesting: nesting) }
            case .array(let elements) where nesting:
                var nested = container.nestedUnkeyedContainer(forKey: key)
                for element in elements { try append(element, to: &nested, nesting: nesting) }
            case .text(let text): try container.encode(text, forKey: key)
            case .number(let number): try container.encode(number, forKey: key)
            case .null: try container.encodeNil(forKey: key)
            default: try container.encode(RandomTree(node, nesting: !nesting), forKey: key)
            }
        }

        static func append(_ node: Node, to container: inout any UnkeyedEncodingContainer, nesting: Bool) throws {
            switch node {
            case .object(let members) where nesting:
                var nested = container.nestedContainer(keyedBy: Key.self)
                for (name, member) in members { try write(member, forKey: Key(name), in: &nested, nesting: nesting) }
            case .array(let elements) where nesting:
                var nested = container.nestedUnkeyedContainer()
                for element in elements { try append(element, to: &nested, nesting: nesting) }
            case .flag(let flag): try container.encode(flag)
            default: try container.encode(RandomTree(node, nesting: !nesting))
            }
        }
    }

    @Test("any value, written through nested containers or nested values in any order, encodes as Foundation's encoder does")
    func randomTreesAsFoundation() async throws {
        await propertyCheck(count: 500, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            let tree = RandomTree(seed: seed)
            let foundation = try? Self.foundationEncoder.encode(tree)
            #expect((try? CaretideJSON.encode(tree)) == foundation.map(Array.init), "seed \(seed)")
        }
    }

    @Test("a subclass's superclass part is written under \"super\", as Foundation writes it")
    func superEncoder() throws {
        struct Parted: Encodable {
            enum Key: String, CodingKey { case name, base, items }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode("z", forKey: .name)
                try RandomTree(seed: 7).encode(to: container.superEncoder())
                try ["x": 1].encode(to: container.superEncoder(forKey: .base))
                var elements = container.nestedUnkeyedContainer(forKey: .items)
                try 2.encode(to: elements.superEncoder())
                try elements.encode(3)
            }
        }
        #expect(try CaretideJSON.encode(Parted()) == Array(try Self.foundationEncoder.encode(Parted())))
    }

    @Test("a container written after a later one still lands in its place; a value that writes nothing is {}")
    func containersOutOfOrder() throws {
        struct LateWrite: Encodable {
            enum Key: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                var early = container.nestedContainer(keyedBy: Key.self, forKey: .a)
                try container.encode(1, forKey: .b)
                try early.encode(2, forKey: .a)
            }
        }
        #expect(try CaretideJSON.encode(LateWrite()) == Array(try Self.foundationEncoder.encode(LateWrite())))
        #expect(try CaretideJSON.encode(LateWrite()) == Array(#"{"a":{"a":2},"b":1}"#.utf8))
        struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
        #expect(try CaretideJSON.encode([Nothing()]) == Array("[{}]".utf8))
    }
}
