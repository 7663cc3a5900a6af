public import CaretideIdentity

extension ShareKey {
    /// `REPORT_SHARE_KEY`'s value: nil when unset or empty (sharing is then refused with a 409 naming the variable);
    /// an error naming the variable when it is shorter than 32 bytes.
    public static func configured(_ secret: String?) throws(InvalidConfiguration) -> ShareKey? {
        guard let secret, !secret.isEmpty else { return nil }
        guard let key = ShareKey(secret: secret) else {
            throw InvalidConfiguration(problems: [
                "\(variable) must be at least 32 bytes: a random secret, the same in scoring- and notification-service"
            ])
        }
        return key
    }
}
