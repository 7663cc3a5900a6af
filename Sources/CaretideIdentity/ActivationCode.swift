import Crypto
public import Foundation

/// The activation code an institution hands one of its patients (printed, or by its own channel) so that the patient
/// can link their Caretide account to the institution's record of them, as MyChart's activation codes do: fifteen
/// characters of Crockford's base32 shown as `XXXXX-XXXXX-XXXXX`, 75 bits from the system's secure generator.
///
/// It arrives alone (the patient types it with their date of birth), so it is found by its SHA-256, which is all that
/// is stored: unlike an outside share's code it cannot be salted per row. Its 75 bits, its limited life, the lock
/// after a few wrong dates of birth and the limit on a patient's attempts keep it out of reach of guessing.
public struct ActivationCode: Sendable, Equatable {
    public static let length = 15

    /// The code as the institution is shown it.
    public let text: String

    public static func random() -> ActivationCode { ActivationCode(text: CrockfordCode.random(length: length)) }

    /// The digest a code is stored and found by: SHA-256 of what was typed, normalised; nil when it cannot be a code.
    public static func digest(of typed: String) -> Data? {
        guard typed.utf8.count <= 64, let code = CrockfordCode.normalised(typed, length: length) else { return nil }
        return Data(SHA256.hash(data: Data(code.utf8)))
    }
}
