/// A strict RFC 8259 parser from bytes to `JSONValue`. Every message and request body passes through here before its
/// schema check, so it is written for speed (one pass over the bytes, no intermediate Foundation objects) and for
/// hostile input (a nesting limit instead of unbounded recursion, no trailing bytes, valid UTF-8 and escapes only).
struct JSONParser {
    /// Where and why the bytes stop being JSON: the 0-based byte offset and a phrase, for an answer a sender can act on
    /// ("malformed JSON at byte 17: expected ':' after an object key").
    struct Failure: Error {
        let offset: Int
        let reason: String
    }

    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    /// The members of the objects being read, each object's after its parent's: an object's dictionary is made once
    /// its members are known, at its size, instead of growing (and rehashing) member by member.
    private var pending: [(key: String, value: JSONValue, offset: Int)] = []

    static func parse(_ input: some Collection<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: Array(input))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected data after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard index < bytes.count else { throw failure("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default: return .number(try parseNumber())
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end of input, expected \(literal)") }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw failure("expected \(literal)") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        let first = pending.count
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            pending.append((key, try parseValue(depth: depth + 1), keyOffset))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input, expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                defer { pending.removeSubrange(first...) }
                var members = [String: JSONValue](minimumCapacity: pending.count - first)
                for (key, value, keyOffset) in pending[first...] {
                    // A repeated key is ambiguous (RFC 8259 §4); refuse it rather than guess which one a sender meant.
                    // The key is caller text: its offset names it, it is not echoed.
                    guard members.updateValue(value, forKey: key) == nil else {
                        throw Failure(offset: keyOffset, reason: "a key appears twice in one object")
                    }
                }
                return .object(members)
            } else {
                throw failure("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input, expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw failure("expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        let start = index
        var ascii = true
        // Fast path: no escapes, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                // ASCII needs no validation: the standard library's validating initialiser is generic over the
                // encoding and was 8 % of reading an event (`caretide-bench codec`).
                return ascii ? String(decoding: bytes[start..<index], as: UTF8.self) : try utf8(bytes[start..<index])
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("a control character inside a string must be escaped") }
            ascii = ascii && byte < 0x80
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try utf8(scalars[...])
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unexpected end of input inside a string") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        // A high surrogate must be followed by an escaped low surrogate.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a high surrogate escape must be followed by a low one")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("a high surrogate escape must be followed by a low one") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw failure("a low surrogate escape without a high one before it")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("an escape that is no Unicode scalar") }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default:
                    index -= 2  // at the backslash
                    throw failure("an unknown escape sequence")
                }
            default:
                guard byte >= 0x20 else { throw failure("a control character inside a string must be escaped") }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("unexpected end of input inside a string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of input in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("expected 4 hex digits after \\u")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func utf8(_ slice: ArraySlice<UInt8>) throws(Failure) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw Failure(offset: slice.startIndex, reason: "a string that is not valid UTF-8")
        }
        return text
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, converted by the standard library.
    private mutating func parseNumber() throws(Failure) -> Double {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw failure("unexpected end of input, expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw failure(index == start ? "expected a value" : "expected a digit")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("expected a digit after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw Failure(offset: start, reason: "a number too large to represent")
        }
        return value
    }
}
