/// Hexadecimal digits as bytes: a webhook signature's `v1` (IntegrationTests) and the hostile corpus's `{"hex": …}`
/// values (SerialTests).
public enum Hex {
    /// The bytes `hex` spells two digits each; nil for an odd number of digits or anything that is not one.
    public static func bytes(_ hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        return stride(from: 0, to: characters.count, by: 2).map { index -> UInt8? in
            UInt8(String(decoding: characters[index..<index + 2], as: UTF8.self), radix: 16)
        }.reduce(into: [UInt8]?([])) { result, byte in
            guard let byte else {
                result = nil
                return
            }
            result?.append(byte)
        }
    }
}
