public import CaretideSchemas
public import Foundation
public import Hummingbird

/// The period a history or a series is read over: `?from=&to=`, each optional. `from` is inclusive and `to`
/// exclusive, so consecutive periods never count a reading twice. Each is an RFC 3339 time, or a calendar date
/// (`2026-11-01`) read as that day in UTC, a date `to` meaning the end of that day: `from=2026-11-01&to=2026-11-30`
/// is all of November. An app that draws the patient's own days sends times with the patient's offset.
public struct Period: Sendable, Equatable {
    /// The first instant in the period; `Timestamp.plausibleRange`'s start when open.
    public let start: Date
    /// The first instant after it; the end of `Timestamp.plausibleRange` when open.
    public let end: Date

    public init(start: Date = Timestamp.plausibleRange.lowerBound, end: Date = Timestamp.plausibleRange.upperBound) {
        self.start = start
        self.end = end
    }

    /// Every time Caretide accepts.
    public static let always = Period()

    public func contains(_ date: Date) -> Bool { date >= start && date < end }
    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// A report's period from the one asked for: when no end is given, now; when no start, twelve months before the
    /// end (what a report, a shared report and a report e-mail cover by default).
    public func reportPeriod(now: Date) -> Period {
        let end = end == Timestamp.plausibleRange.upperBound ? now : end
        let start = start == Timestamp.plausibleRange.lowerBound ? end.addingTimeInterval(-365 * 86_400) : start
        return Period(start: min(start, end), end: end)
    }

    public static let queryParameters = [
        QueryParameter("from", "the first time included: an RFC 3339 time, or a date (that day, UTC)"),
        QueryParameter("to", "the first time no longer included: an RFC 3339 time, or a date (through the end of that day, UTC)"),
    ]

    /// Reads `from` and `to`, or a 400 naming each one that is not a time or a date, and `to` when it is not after `from`.
    public static func from(_ request: Request) throws -> Period {
        let parameters = request.uri.queryParameters
        return try from(from: parameters.get("from"), to: parameters.get("to"))
    }

    public static func from(from fromText: String?, to toText: String?) throws -> Period {
        var violations: [SchemaViolation] = []
        func read(_ text: String?, _ name: String, endOfDay: Bool) -> Date? {
            guard let text else { return nil }
            guard let date = instant(text, endOfDay: endOfDay) else {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: [name]), message: "must be an RFC 3339 time or a date (YYYY-MM-DD)"))
                return nil
            }
            return date
        }
        let start = read(fromText, "from", endOfDay: false)
        let end = read(toText, "to", endOfDay: true)
        if let start, let end, end <= start {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["to"]), message: "must be after from"))
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return Period(start: start ?? Timestamp.plausibleRange.lowerBound, end: end ?? Timestamp.plausibleRange.upperBound)
    }

    /// A time, or a date's first instant (its next day's, for the end of a period).
    static func instant(_ text: String, endOfDay: Bool) -> Date? {
        // A `+` in a query string arrives as a space when the caller did not percent-encode the offset.
        let text = text.replacingOccurrences(of: " ", with: "+")
        if text.utf8.count == 10, let day = Timestamp.parse(text + "T00:00:00Z") {
            return endOfDay ? day.addingTimeInterval(86_400) : day
        }
        return Timestamp.parse(text)
    }
}
