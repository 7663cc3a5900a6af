/// A single failing input field.
///
/// `field` is a JSON-pointer-style path (RFC 6901 syntax, e.g. `/systolic`, `/readings/2/diastolic`)
/// so that API layers can map the issue straight back onto the request body.
public struct FieldIssue: Sendable, Equatable, Hashable, Codable {
    /// JSON-pointer-style location of the offending value, e.g. `"/systolic"`.
    public let field: String
    /// Plain-English description of what is wrong.
    public let message: String
    /// The allowed values or range, when there is one (e.g. `"50...300 mmHg"`).
    public let allowedRange: String?

    public init(field: String, message: String, allowedRange: String? = nil) {
        self.field = field
        self.message = message
        self.allowedRange = allowedRange
    }
}

/// Thrown by every rule when its input is missing or clinically implausible.
///
/// Always carries **all** failing fields found in one pass, never just the first one.
public struct DomainValidationError: Error, Equatable, Sendable, Codable {
    public let issues: [FieldIssue]

    public init(issues: [FieldIssue]) {
        self.issues = issues
    }

    /// The JSON pointers of all failing fields, in the order they were found.
    public var fields: [String] { issues.map(\.field) }

    /// The first issue reported for `field`, if any.
    public func issue(for field: String) -> FieldIssue? {
        issues.first { $0.field == field }
    }
}

/// Collects field issues during validation and throws them together.
struct IssueCollector {
    private(set) var issues: [FieldIssue] = []

    var isEmpty: Bool { issues.isEmpty }

    mutating func add(_ field: String, _ message: String, allowed: String? = nil) {
        issues.append(FieldIssue(field: field, message: message, allowedRange: allowed))
    }

    mutating func append(contentsOf other: [FieldIssue]) {
        issues.append(contentsOf: other)
    }

    /// Records a "required" issue when `value` is nil and returns the unwrapped value otherwise.
    mutating func require<T>(_ value: T?, _ field: String, allowed: String? = nil) -> T? {
        if value == nil { add(field, "is required", allowed: allowed) }
        return value
    }

    /// Checks that an integer lies in `range`; records an issue otherwise. Returns whether it passed.
    @discardableResult
    mutating func check(_ value: Int, in range: ClosedRange<Int>, _ field: String, unit: String = "") -> Bool {
        guard range.contains(value) else {
            add(field, "is outside the plausible range", allowed: Self.describe(range, unit: unit))
            return false
        }
        return true
    }

    /// Checks that a floating-point value is finite and lies in `range`. Returns whether it passed.
    @discardableResult
    mutating func check(
        _ value: Double, in range: ClosedRange<Double>, _ field: String, unit: String = "", decimals: Int = 1
    ) -> Bool {
        let allowed = Self.describe(range, unit: unit, decimals: decimals)
        guard value.isFinite else {
            add(field, "must be a finite number", allowed: allowed)
            return false
        }
        guard range.contains(value) else {
            add(field, "is outside the plausible range", allowed: allowed)
            return false
        }
        return true
    }

    func throwIfAny() throws(DomainValidationError) {
        if !issues.isEmpty { throw DomainValidationError(issues: issues) }
    }

    static func describe(_ range: ClosedRange<Int>, unit: String = "") -> String {
        "\(range.lowerBound)...\(range.upperBound)" + (unit.isEmpty ? "" : " \(unit)")
    }

    static func describe(_ range: ClosedRange<Double>, unit: String = "", decimals: Int = 1) -> String {
        "\(DecimalFormat.fixed(range.lowerBound, decimals: decimals))...\(DecimalFormat.fixed(range.upperBound, decimals: decimals))"
            + (unit.isEmpty ? "" : " \(unit)")
    }

    static func oneOf<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> String where E.RawValue == String {
        "one of: " + E.allCases.map(\.rawValue).joined(separator: ", ")
    }
}

/// Locale-independent fixed-point formatting (no `NumberFormatter`, no locale surprises).
enum DecimalFormat {
    /// Formats `value` rounded half away from zero to `decimals` places, e.g. `fixed(2.4, decimals: 2) == "2.40"`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        precondition((0...6).contains(decimals))
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        // bounded: only the rules' own range limits are written with it, never a value a client sent.
        let scaled = Int((value * Double(scale)).rounded(.toNearestOrAwayFromZero))
        return fixed(scaledInteger: scaled, decimals: decimals)
    }

    /// Formats an integer that is already scaled by 10^decimals, e.g. `fixed(scaledInteger: 240, decimals: 2) == "2.40"`.
    static func fixed(scaledInteger: Int, decimals: Int) -> String {
        guard decimals > 0 else { return String(scaledInteger) }
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        let sign = scaledInteger < 0 ? "-" : ""
        let magnitude = scaledInteger.magnitude
        let whole = magnitude / UInt(scale)
        var fraction = String(magnitude % UInt(scale))
        while fraction.count < decimals { fraction = "0" + fraction }
        return "\(sign)\(whole).\(fraction)"
    }
}
