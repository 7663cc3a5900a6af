import Crypto
public import Foundation

/// The access code of a report shared with someone outside Caretide: ten characters of Crockford's base32 (no I, L,
/// O or U, so it reads aloud and types without confusion), shown as `XXXXX-XXXXX`, 50 bits drawn from the system's
/// secure generator. The patient gives it to the doctor apart from the e-mail, so the link alone opens nothing.
///
/// Only a salted SHA-256 of it is stored: a code is compared after normalising what was typed (case, spaces and
/// dashes ignored, the letters Crockford reads as digits read so), in constant time. Five wrong codes lock the share
/// (`OutsideShareStore`), which is what keeps 50 bits out of reach of guessing.
public struct OutsideShareCode: Sendable, Equatable {
    public static let length = 10

    /// The code as the patient is shown it.
    public let text: String

    public static func random() -> OutsideShareCode { OutsideShareCode(text: CrockfordCode.random(length: length)) }

    /// What was typed, in the code's own characters, or nil when it cannot be a code.
    public static func normalised(_ typed: String) -> String? { CrockfordCode.normalised(typed, length: length) }

    /// A fresh salt for one share's code.
    public static func salt() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// SHA-256 of the salt and the normalised code.
    public static func digest(_ normalisedCode: String, salt: Data) -> Data {
        var hash = SHA256()
        hash.update(data: salt)
        hash.update(data: Data(normalisedCode.utf8))
        return Data(hash.finalize())
    }

    /// Whether `typed` is the code whose digest under `salt` is `digest`, compared in constant time.
    public static func matches(_ typed: String, digest: Data, salt: Data) -> Bool {
        guard let code = normalised(typed) else { return false }
        let computed = Self.digest(code, salt: salt)
        guard computed.count == digest.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(computed, digest) { difference |= a ^ b }
        return difference == 0
    }
}

/// Codes in Crockford's base32, drawn from the system's secure generator and shown in groups of five; what a person
/// types is read back ignoring case, spaces and dashes, with the letters Crockford reads as digits read so.
enum CrockfordCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    static func random(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] }
        return stride(from: 0, to: length, by: 5).map { String(characters[$0..<min($0 + 5, length)]) }.joined(separator: "-")
    }

    /// What was typed, in the code's own characters, or nil when it cannot be a code of `length`.
    static func normalised(_ typed: String, length: Int) -> String? {
        var characters: [Character] = []
        for character in typed.uppercased() where character != "-" && character != " " {
            let read: Character =
                switch character {
                case "I", "L": "1"
                case "O": "0"
                default: character
                }
            guard alphabet.contains(read), characters.count < length else { return nil }
            characters.append(read)
        }
        return characters.count == length ? String(characters) : nil
    }
}
