/// How urgently a result needs a human to look at it.
///
/// - `normal`: no action beyond routine care.
/// - `attention`: outside the healthy range; should be reviewed at the next routine contact.
/// - `urgent`: needs prompt clinical attention.
///
/// Ordered `normal < attention < urgent`. Each rule documents (and `docs/clinical-rules.md` lists)
/// which of its categories maps to which severity.
public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    case normal, attention, urgent

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.declarationIndex < rhs.declarationIndex
    }
}

/// Enums whose cases are declared from "lowest" to "highest", compared by declaration order.
protocol DeclarationOrdered: CaseIterable, Equatable {}

extension DeclarationOrdered {
    var declarationIndex: Int {
        var index = 0
        for candidate in Self.allCases {
            if candidate == self { return index }
            index += 1
        }
        preconditionFailure("case missing from allCases")
    }
}

extension Severity: DeclarationOrdered {}

/// Biological sex as needed by sex-specific thresholds (e.g. the ATP III low-HDL limit).
public enum Sex: String, Sendable, Codable, CaseIterable {
    case female, male
}

/// Sex as a person states it for their record: female, male or other (HL7 v2 table 0001 "Administrative Sex",
/// FHIR `AdministrativeGender`, without "unknown": an unanswered field is absent). A rule with sex-specific
/// evidence applies it only for `female` and `male` and says so where it has none for `other`.
public enum AdministrativeSex: String, Sendable, Codable, CaseIterable {
    case female, male, other

    /// The sex a sex-specific threshold or weight is published for; nil for `other`.
    public var published: Sex? { Sex(rawValue: rawValue) }
}
