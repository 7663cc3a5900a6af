public import Foundation

/// The one JSON dialect Caretide speaks on the wire: RFC 3339 timestamps in UTC, with or without fractional seconds
/// on input, with milliseconds on output; keys sorted so that equal events encode to equal bytes.
public enum CaretideJSON {
    /// Parses bytes into a `JSONValue`, or says why they are not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws(SchemaViolation) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw SchemaViolation(pointer: .root, message: "malformed JSON at byte \(error.offset): \(error.reason)")
        }
    }
}

/// RFC 3339 timestamps (the `date-time` format of JSON Schema), parsed and written by plain arithmetic: strict,
/// locale-free and fast. Output is UTC with milliseconds: `2026-11-22T08:30:00.000Z`.
public enum Timestamp {
    /// Milliseconds since 1970 to the nearest (Double cannot hold most milliseconds exactly), held to what Int64 can
    /// count: a date made from a number a client sent may lie past it, and `format` then writes its fallback.
    public static func milliseconds(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return Int64(exactly: milliseconds) ?? (milliseconds > 0 ? .max : .min)
    }

    public static func format(_ date: Date) -> String {
        let totalMilliseconds = milliseconds(date)
        let (days, millisecondOfDay) = totalMilliseconds.floorDivided(by: 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let seconds = millisecondOfDay / 1000
        guard (0...9999).contains(year) else {
            // Outside what four digits write (never a date Caretide accepted: `plausibleRange`).
            return "\(year)-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):"
                + "\(pad(seconds % 60, 2)).\(pad(millisecondOfDay % 1000, 3))Z"
        }
        // Written straight into the string's bytes: every event carries two or three timestamps, and a string per
        // field, joined, was a tenth of encoding one (`caretide-bench codec`).
        return String(unsafeUninitializedCapacity: 24) { text in
            var index = 0
            func write(_ value: Int64, digits: Int, then separator: Unicode.Scalar) {
                var rest = value
                for position in stride(from: index + digits - 1, through: index, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                text[index + digits] = UInt8(ascii: separator)
                index += digits + 1
            }
            write(year, digits: 4, then: "-")
            write(month, digits: 2, then: "-")
            write(day, digits: 2, then: "T")
            write(seconds / 3600, digits: 2, then: ":")
            write(seconds / 60 % 60, digits: 2, then: ":")
            write(seconds % 60, digits: 2, then: ".")
            write(millisecondOfDay % 1000, digits: 3, then: "Z")
            return index
        }
    }

    /// The UTC calendar day of `date`, `YYYY-MM-DD`: how charts and reports write dates, whatever the locale.
    public static func formatDay(_ date: Date) -> String {
        let (days, _) = milliseconds(date).floorDivided(by: 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// The instants Caretide accepts: from 1900-01-01T00:00:00Z (no health record is older) to the end of 9999 (the
    /// last year four digits can write). Anything outside is refused where it is parsed, so `format` never meets a
    /// year it cannot write: year 0 with a +01:00 offset is year -1 in UTC, which no RFC 3339 timestamp can say.
    public static let plausibleRange = Date(timeIntervalSince1970: -2_208_988_800)..<Date(timeIntervalSince1970: 253_402_300_800)

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` within `plausibleRange`; nil for anything else, including
    /// impossible dates.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += width
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("Tt"),
            let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if expect("Zz") {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        let date = Date(timeIntervalSince1970: Double(seconds) + fraction)
        return plausibleRange.contains(date) ? date : nil
    }

    static func isLeapYear(_ year: Int64) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Howard Hinnant's days_from_civil (proleptic Gregorian calendar).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Howard Hinnant's civil_from_days.
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    /// Quotient and non-negative remainder (dates before 1970 divide downwards).
    func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let remainder = ((self % divisor) + divisor) % divisor
        return ((self - remainder) / divisor, remainder)
    }
}
