/// HL7 v2 Table 0078 ("Interpretation codes" / "Abnormal flags", used in OBX-8) — the subset this rule emits.
public enum InterpretationCode: String, Sendable, Codable, CaseIterable {
    /// Normal (applies to non-numeric results too).
    case N
    /// Below low normal.
    case L
    /// Above high normal.
    case H
    /// Below lower panic (critical) limit.
    case LL
    /// Above upper panic (critical) limit.
    case HH
}

/// An item's own reference interval and optional critical (panic) limits. Every limit is optional.
public struct ReferenceRange: Sendable, Equatable, Codable {
    public var low: Double?
    public var high: Double?
    public var criticalLow: Double?
    public var criticalHigh: Double?

    public init(low: Double? = nil, high: Double? = nil, criticalLow: Double? = nil, criticalHigh: Double? = nil) {
        self.low = low
        self.high = high
        self.criticalLow = criticalLow
        self.criticalHigh = criticalHigh
    }
}

/// One numeric exam result as delivered by the institution.
public struct ExamResultItem: Sendable, Equatable, Codable {
    /// The institution's test code (e.g. a LOINC code or local code); carried through unchanged.
    public var code: String
    public var value: Double
    /// Unit as reported; carried through unchanged (no conversion is done — the range is in the same unit).
    public var unit: String
    public var referenceRange: ReferenceRange
    /// Free-text comment from the institution; carried through unchanged, never interpreted.
    public var institutionComment: String?

    public init(
        code: String, value: Double, unit: String, referenceRange: ReferenceRange, institutionComment: String? = nil
    ) {
        self.code = code
        self.value = value
        self.unit = unit
        self.referenceRange = referenceRange
        self.institutionComment = institutionComment
    }
}

/// Result of ``ReferenceRangeFlag/flag(_:)``: the original item (including the institution's comment) plus its flag.
public struct FlaggedExamResult: Sendable, Equatable, Codable {
    public let item: ExamResultItem
    public let interpretation: InterpretationCode
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String

    /// The institution's comment, carried through from the input item.
    public var institutionComment: String? { item.institutionComment }
}

/// Flags an exam result against **its own** reference range with HL7 v2 Table 0078 codes.
///
/// Source: HL7 Version 2.x, Table 0078 "Interpretation Codes" (Abnormal flags, OBX-8), codes N, L, H, LL, HH
/// (HL7 v2.5.1 §7.4.2.8; the same table is published as the FHIR code system
/// `http://terminology.hl7.org/CodeSystem/v2-0078`).
///
/// Rule (first match wins):
///
/// | Condition                    | Code | Severity  |
/// |------------------------------|------|-----------|
/// | value < criticalLow          | LL   | urgent    |
/// | value > criticalHigh         | HH   | urgent    |
/// | value < low                  | L    | attention |
/// | value > high                 | H    | attention |
/// | otherwise                    | N    | normal    |
///
/// Boundaries: the reference interval is **inclusive** (a value equal to `low` or `high` is N — reference
/// intervals include their limits, CLSI EP28-A3c), and a value equal to a critical limit is not beyond it
/// (equal to `criticalLow` → L, not LL). Absent limits are simply not applied.
///
/// Validation: value and limits finite; `low ≤ high`; `criticalLow ≤ low` and `criticalHigh ≥ high` when
/// both are present; `criticalLow < criticalHigh`.
public enum ReferenceRangeFlag {
    public static func flag(_ item: ExamResultItem) throws(DomainValidationError) -> FlaggedExamResult {
        try IssueCollector.throwing(validationIssues(item, pointer: ""))
        return flagged(item)
    }

    /// Flags many items, reporting the issues of **all** invalid items together (pointers `/items/<index>/...`).
    public static func flag(items: [ExamResultItem]) throws(DomainValidationError) -> [FlaggedExamResult] {
        var issues = IssueCollector()
        for (index, item) in items.enumerated() {
            issues.append(contentsOf: validationIssues(item, pointer: "/items/\(index)"))
        }
        try issues.throwIfAny()
        return items.map(flagged)
    }

    static func flagged(_ item: ExamResultItem) -> FlaggedExamResult {
        let v = item.value
        let r = item.referenceRange
        let code: InterpretationCode =
            if let c = r.criticalLow, v < c { .LL } else if let c = r.criticalHigh, v > c { .HH } else if let l = r.low, v < l {
                .L
            } else if let h = r.high, v > h { .H } else { .N }
        let (severity, tip): (Severity, TipKey) =
            switch code {
            case .N: (.normal, .labNormal)
            case .L: (.attention, .labLow)
            case .H: (.attention, .labHigh)
            case .LL: (.urgent, .labCriticalLow)
            case .HH: (.urgent, .labCriticalHigh)
            }
        return FlaggedExamResult(
            item: item, interpretation: code, severity: severity, tip: tip, ruleSetVersion: RuleSetVersion.current)
    }

    static func validationIssues(_ item: ExamResultItem, pointer: String) -> [FieldIssue] {
        var issues = IssueCollector()
        let r = item.referenceRange
        let range = pointer + "/referenceRange"
        if !item.value.isFinite { issues.add(pointer + "/value", "must be a finite number") }
        let limits: [(String, Double?)] = [
            ("low", r.low), ("high", r.high), ("criticalLow", r.criticalLow), ("criticalHigh", r.criticalHigh),
        ]
        var allFinite = true
        for (name, limit) in limits {
            if let limit, !limit.isFinite {
                issues.add("\(range)/\(name)", "must be a finite number")
                allFinite = false
            }
        }
        guard allFinite else { return issues.issues }
        if let low = r.low, let high = r.high, low > high {
            issues.add("\(range)/low", "must not be greater than high (\(high))", allowed: "≤ \(high)")
        }
        if let criticalLow = r.criticalLow, let low = r.low, criticalLow > low {
            issues.add("\(range)/criticalLow", "must not be greater than low (\(low))", allowed: "≤ \(low)")
        }
        if let criticalHigh = r.criticalHigh, let high = r.high, criticalHigh < high {
            issues.add("\(range)/criticalHigh", "must not be less than high (\(high))", allowed: "≥ \(high)")
        }
        if let criticalLow = r.criticalLow, let criticalHigh = r.criticalHigh, criticalLow >= criticalHigh {
            issues.add(
                "\(range)/criticalLow", "must be less than criticalHigh (\(criticalHigh))", allowed: "< \(criticalHigh)")
        }
        return issues.issues
    }
}
