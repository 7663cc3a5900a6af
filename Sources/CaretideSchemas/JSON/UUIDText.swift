public import Foundation

/// A UUID to and from its 36-character text without Foundation's `sprintf` and `sscanf`: read in upper or lower case
/// (what `UUID(uuidString:)` accepts), written in lower case (RFC 9562 §4, as the `event-id` header and PostgreSQL
/// write them).
enum UUIDText {
    static func format(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { octets in
            String(unsafeUninitializedCapacity: 36) { text in
                var index = 0
                for (position, octet) in octets.enumerated() {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    text[index] = lowercaseHex(octet >> 4)
                    text[index + 1] = lowercaseHex(octet & 0x0F)
                    index += 2
                }
                return index
            }
        }
    }

    private static func lowercaseHex(_ digit: UInt8) -> UInt8 { digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10 }

    static func parse(_ text: String) -> UUID? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse($0) }) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer { parse($0) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let complete = withUnsafeMutableBytes(of: &uuid) { octets -> Bool in
            var index = 0
            for octet in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard bytes[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                }
                guard let high = hexDigit(bytes[index]), let low = hexDigit(bytes[index + 1]) else { return false }
                octets[octet] = high << 4 | low
                index += 2
            }
            return true
        }
        return complete ? UUID(uuid: uuid) : nil
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension UUID {
    /// The id as text in lower case (RFC 9562 §4), as the `event-id` header and PostgreSQL write it.
    public var lowercasedText: String { UUIDText.format(self) }
}
