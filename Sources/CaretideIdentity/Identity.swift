/// Who is calling, as a verified token says: the subject, one role, the institution of institution staff, and the
/// scopes of a machine client. Ids only: no names, no token text.
public struct Identity: Sendable, Hashable {
    public let subject: String
    public let role: Role
    /// The institution a member of its staff acts for (`institution` role).
    public let institutionID: String?
    /// What a `service` client may do, from the token's space-separated scope claim.
    public let scopes: Set<String>

    public init(subject: String, role: Role, institutionID: String? = nil, scopes: Set<String> = []) {
        self.subject = subject
        self.role = role
        self.institutionID = institutionID
        self.scopes = scopes
    }
}

/// The roles Caretide knows. A token carrying none of them is refused.
public enum Role: String, Sendable, Hashable, CaseIterable {
    case patient, institution, consultant, `operator`, service
}
