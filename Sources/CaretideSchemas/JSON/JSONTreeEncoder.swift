import Foundation

extension CaretideJSON {
    /// Encodes a value as JSON with Caretide's conventions: keys sorted (by UTF-8 bytes), slashes unescaped, dates as
    /// RFC 3339 (`Timestamp.format`), integral numbers without a fraction. Every event and stored document goes
    /// through here; it does what Foundation's `JSONEncoder` configured the same way did, at a fraction of the cost.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(512)
        JSONTextWriter.write(try EncodedNode.make(value, codingPath: []), into: &output)
        return output
    }

    /// A flat object of strings, keys sorted as `encode` sorts them: what a log line is, written without building a
    /// tree, since every request writes one. The keys must differ from each other.
    public static func encode(stringMembers members: [(key: String, value: String)]) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(64 * members.count)
        for (index, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONTextWriter.writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            JSONTextWriter.writeString(member.value, into: &output)
        }
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// `encode` as a String.
    public static func encodeToString<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }
}

/// A value being encoded. Objects and arrays are boxes, so containers handed out by an encoder can fill them.
private enum EncodedNode {
    case null
    case bool(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array(ArrayBox)
    case object(ObjectBox)
    /// A parsed document kept as it is (a record's body, an assessment's inputs): written from itself, not copied into
    /// nodes first.
    case json(JSONValue)

    final class ArrayBox { var elements: [EncodedNode] = [] }
    /// Members in the order they were encoded; sorted (the last of a repeated key kept) when written. Appending is
    /// cheaper than hashing every key into a dictionary.
    final class ObjectBox { var members: [(key: String, value: EncodedNode)] = [] }

    /// `codingPath` is only built for a value that needs an encoder of its own: a date, string or id member costs no
    /// copy of its path.
    static func make<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey]) throws -> EncodedNode {
        // The types with a convention of their own, and the common leaves without an encoder round trip. Metatype
        // comparisons, not casts: this runs for every value, and a dynamic cast per candidate type cost more than
        // encoding the value.
        if T.self == Date.self { return .string(Timestamp.format(value as! Date)) }
        if T.self == String.self { return .string(value as! String) }
        // RFC 9562 §4: lowercase on output, as the `event-id` header and PostgreSQL write them.
        if T.self == UUID.self { return .string(UUIDText.format(value as! UUID)) }
        if T.self == JSONValue.self { return .json(value as! JSONValue) }
        // Numbers in maps and arrays (an assessment's values) come through here, not through a container's own
        // `encode(Double)`: without these, each would cost an encoder and a copy of its path.
        if T.self == Double.self { return try double(value as! Double, codingPath: codingPath()) }
        if T.self == Int.self { return .signed(Int64(value as! Int)) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == [String: Double].self {
            let box = ObjectBox()
            box.members.reserveCapacity((value as! [String: Double]).count)
            for (name, number) in value as! [String: Double] {
                box.members.append((name, try double(number, codingPath: codingPath() + [AnyCodingKey(name)])))
            }
            return .object(box)
        }
        let encoder = TreeEncoder(codingPath: codingPath())
        try value.encode(to: encoder)
        // A type that encodes nothing at all is written as an empty object, as Foundation does.
        return encoder.node ?? .object(ObjectBox())
    }

    static func double(_ value: Double, codingPath: @autoclosure () -> [any CodingKey]) throws -> EncodedNode {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath(), debugDescription: "JSON has no non-finite numbers"))
        }
        return .double(value)
    }
}

private final class TreeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: EncodedNode?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let box)? = node { return KeyedEncodingContainer(KeyedWriter(box: box, codingPath: codingPath)) }
        let box = EncodedNode.ObjectBox()
        node = .object(box)
        return KeyedEncodingContainer(KeyedWriter(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let box)? = node { return UnkeyedWriter(box: box, codingPath: codingPath) }
        let box = EncodedNode.ArrayBox()
        node = .array(box)
        return UnkeyedWriter(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueWriter(encoder: self) }
}

/// The encoder a `superEncoder` call hands out: what is encoded into it lands in its parent when it is released.
private final class DeferredEncoder: Encoder {
    private let inner: TreeEncoder
    private let store: (EncodedNode) -> Void
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(codingPath: [any CodingKey], store: @escaping (EncodedNode) -> Void) {
        inner = TreeEncoder(codingPath: codingPath)
        self.store = store
    }

    deinit { store(inner.node ?? .object(EncodedNode.ObjectBox())) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodedNode.ObjectBox
    let codingPath: [any CodingKey]

    private func set(_ node: EncodedNode, _ key: Key) { box.members.append((key.stringValue, node)) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try .double(value, codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(try .double(Double(value), codingPath: codingPath + [key]), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.signed(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.unsigned(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { set(try .make(value, codingPath: codingPath + [key]), key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedNode.ObjectBox()
        set(.object(nested), key)
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(box: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedNode.ArrayBox()
        set(.array(nested), key)
        return UnkeyedWriter(box: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        DeferredEncoder(codingPath: codingPath) { [box] in box.members.append(("super", $0)) }
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        DeferredEncoder(codingPath: codingPath + [key]) { [box] in box.members.append((key.stringValue, $0)) }
    }
}

private struct UnkeyedWriter: UnkeyedEncodingContainer {
    let box: EncodedNode.ArrayBox
    let codingPath: [any CodingKey]
    var count: Int { box.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [ArrayIndexKey(count)] }

    mutating func encodeNil() throws { box.elements.append(.null) }
    mutating func encode(_ value: Bool) throws { box.elements.append(.bool(value)) }
    mutating func encode(_ value: String) throws { box.elements.append(.string(value)) }
    mutating func encode(_ value: Double) throws { box.elements.append(try .double(value, codingPath: nextPath)) }
    mutating func encode(_ value: Float) throws { box.elements.append(try .double(Double(value), codingPath: nextPath)) }
    mutating func encode(_ value: Int) throws { box.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { box.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { box.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { box.elements.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { box.elements.append(.signed(value)) }
    mutating func encode(_ value: UInt) throws { box.elements.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { box.elements.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { box.elements.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { box.elements.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { box.elements.append(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.elements.append(try .make(value, codingPath: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedNode.ObjectBox()
        let path = nextPath
        box.elements.append(.object(nested))
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(box: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedNode.ArrayBox()
        let path = nextPath
        box.elements.append(.array(nested))
        return UnkeyedWriter(box: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let index = box.elements.count
        box.elements.append(.null)
        return DeferredEncoder(codingPath: nextPath) { [box] in box.elements[index] = $0 }
    }
}

private struct SingleValueWriter: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ node: EncodedNode) { encoder.node = node }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try .double(value, codingPath: codingPath)) }
    mutating func encode(_ value: Float) throws { set(try .double(Double(value), codingPath: codingPath)) }
    mutating func encode(_ value: Int) throws { set(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { set(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { set(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { set(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { set(.signed(value)) }
    mutating func encode(_ value: UInt) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { set(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { set(try .make(value, codingPath: codingPath)) }
}

/// Writes an encoded tree as compact JSON text.
private enum JSONTextWriter {
    static func write(_ node: EncodedNode, into output: inout [UInt8]) {
        switch node {
        case .null: output += "null".utf8
        case .bool(let flag): output += (flag ? "true" : "false").utf8
        case .signed(let integer): output += String(integer).utf8
        case .unsigned(let integer): output += String(integer).utf8
        case .double(let number):
            // Integral values without a fraction, so that "integer" fields round-trip; others in Swift's shortest
            // form that reads back exactly.
            if number.isIntegral, abs(number) < 9_007_199_254_740_992 {
                output += String(Int64(number)).utf8
            } else {
                output += number.description.utf8
            }
        case .string(let text): writeString(text, into: &output)
        case .json(let json): write(json, into: &output)
        case .array(let box):
            output.append(UInt8(ascii: "["))
            for (index, element) in box.elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let box):
            output.append(UInt8(ascii: "{"))
            // Positions sorted, not the members (one small array, no copies of keys and values); ties by position keep
            // repeated keys in encoding order, and the last one wins, as in a dictionary.
            let members = box.members
            let order = members.indices.sorted { lhs, rhs in
                members[lhs].key == members[rhs].key ? lhs < rhs : members[lhs].key.utf8.lexicographicallyPrecedes(members[rhs].key.utf8)
            }
            var first = true
            for (rank, index) in order.enumerated() where rank + 1 == order.count || members[order[rank + 1]].key != members[index].key {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                writeString(members[index].key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(members[index].value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func write(_ json: JSONValue, into output: inout [UInt8]) {
        switch json {
        case .null: output += "null".utf8
        case .bool(let flag): output += (flag ? "true" : "false").utf8
        case .number(let number): write(.double(number), into: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (ids, codes, timestamps) need no escape: copied whole rather than byte by byte, which was the
        // largest part of encoding an event (`caretide-bench codec`).
        let copiedWhole =
            text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
                output.append(contentsOf: bytes)
                return true
            } ?? false
        if copiedWhole {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += #"\""#.utf8
            case UInt8(ascii: "\\"): output += #"\\"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0x08: output += #"\b"#.utf8
            case 0x0C: output += #"\f"#.utf8
            case 0..<0x20:
                output += #"\u00"#.utf8
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
