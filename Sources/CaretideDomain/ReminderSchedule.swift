public import Foundation

/// A calendar day as people write it, without a time zone.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A real calendar day (29 February only in leap years), or nil.
    public init?(year: Int, month: Int, day: Int) {
        guard (1900...9999).contains(year), (1...12).contains(month), (1...LocalDate.days(inMonth: month, year: year)).contains(day) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// `yyyy-MM-dd`, or nil when it is not a real calendar day.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day) }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// This date `months` months later, on the same day or, when that month is shorter, its last day.
    func addingMonths(_ months: Int) -> LocalDate {
        let index = year * 12 + (month - 1) + months
        let (newYear, newMonth) = (index / 12, index % 12 + 1)
        return LocalDate(year: newYear, month: newMonth, day: min(day, Self.days(inMonth: newMonth, year: newYear)))!
    }

    /// This date `days` calendar days later (earlier when negative).
    public func addingDays(_ days: Int) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        let parts = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: days, to: start)!)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)!
    }

    /// Completed years from this date (a date of birth) to `date`: a birthday on 29 February counts as passed on
    /// 1 March in the years without one, as most laws count it.
    public func completedYears(on date: LocalDate) -> Int {
        let years = date.year - year
        return (date.month, date.day) < (month, day) ? years - 1 : years
    }

    /// The date of `instant` in `timeZone`.
    public init(_ instant: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        self.init(year: parts.year!, month: parts.month!, day: parts.day!)!
    }
}

/// A time of day as people write it (`HH:mm`).
public struct LocalTime: Sendable, Hashable, Codable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        self.hour = hour
        self.minute = minute
    }

    public var description: String { String(format: "%02d:%02d", hour, minute) }
}

/// How often a reminder comes back.
public enum ReminderRepeat: String, Sendable, Codable, CaseIterable {
    case once, weekly, everyTwoWeeks, monthly, everyTwoMonths, everyThreeMonths, everySixMonths, yearly
    /// On the dates listed, and no others.
    case onDates

    /// The interval a melanoma risk category recommends for self-examination, in months.
    public init?(months: Int) {
        switch months {
        case 1: self = .monthly
        case 2: self = .everyTwoMonths
        case 3: self = .everyThreeMonths
        case 6: self = .everySixMonths
        case 12: self = .yearly
        default: return nil
        }
    }
}

/// When a reminder falls due, in the recipient's own time zone: a wall-clock time on a sequence of local dates.
///
/// Two rules make every date and time resolve to exactly one instant, never a crash:
/// - **Month ends.** Monthly (and two-, three-, six-monthly, yearly) dates count from the first date: from 31 January the
///   next are 28 (or 29) February, 31 March, 30 April, 31 May… (the month's last day when it is shorter, and back
///   to the 31st when it is not); from 29 February, 28 February in the years without one.
/// - **Clock changes** (RFC 5545 §3.3.5, as calendar software does): a time that does not exist on a spring-forward
///   night is read with the UTC offset before the gap (01:30 in Lisbon on 28 March 2027 falls at 02:30 summer time);
///   a time that happens twice on a fall-back night is the first of the two.
/// Dates that cannot exist (29 February 2023) are refused where they are entered (`LocalDate` is nil for them).
public struct ReminderSchedule: Sendable, Equatable {
    public let repeats: ReminderRepeat
    /// The first date (ignored for `onDates`).
    public let startsOn: LocalDate
    public let at: LocalTime
    public let timeZone: TimeZone
    /// For `onDates`: the dates, in order.
    public let dates: [LocalDate]

    public init(repeats: ReminderRepeat, startsOn: LocalDate, at: LocalTime, timeZone: TimeZone, dates: [LocalDate] = []) {
        self.repeats = repeats
        self.startsOn = startsOn
        self.at = at
        self.timeZone = timeZone
        self.dates = dates.sorted()
    }

    /// The `index`-th date of the schedule (0 is the first), or nil past its end.
    public func date(_ index: Int) -> LocalDate? {
        guard index >= 0 else { return nil }
        switch repeats {
        case .once: return index == 0 ? startsOn : nil
        case .onDates: return index < dates.count ? dates[index] : nil
        case .weekly: return startsOn.addingDays(7 * index)
        case .everyTwoWeeks: return startsOn.addingDays(14 * index)
        case .monthly: return startsOn.addingMonths(index)
        case .everyTwoMonths: return startsOn.addingMonths(2 * index)
        case .everyThreeMonths: return startsOn.addingMonths(3 * index)
        case .everySixMonths: return startsOn.addingMonths(6 * index)
        case .yearly: return startsOn.addingMonths(12 * index)
        }
    }

    /// The instant of the `index`-th occurrence.
    public func occurrence(_ index: Int) -> Date? {
        date(index).map { Self.instant(of: $0, at: at, in: timeZone) }
    }

    /// The first occurrence at or after `instant`: its index and when it falls.
    public func next(atOrAfter instant: Date) -> (index: Int, at: Date)? {
        // Every step is at least a week (or the listed dates), so counting from an estimate stays cheap.
        var index = 0
        if repeats != .once && repeats != .onDates, let first = occurrence(0), instant > first {
            let days = instant.timeIntervalSince(first) / 86_400
            let stepDays: Double =
                switch repeats {
                case .weekly: 7
                case .everyTwoWeeks: 14
                case .monthly: 31
                case .everyTwoMonths: 62
                case .everyThreeMonths: 92
                case .everySixMonths: 184
                default: 366
                }
            index = max(0, Int(days / stepDays) - 1)
        }
        while let at = occurrence(index) {
            if at >= instant { return (index, at) }
            index += 1
        }
        return nil
    }

    /// An occurrence delivered more than this after it fell due is late, and says so: after an outage every missed
    /// occurrence still fires (none is dropped), and the recipient should not read one three weeks old as today's.
    /// Five minutes is well above the scheduler's interval (30 s by default), so the round that finds an occurrence
    /// due fires it on time; it is also the mark at which the scheduler-overdue alert fires.
    public static let lateAfter: TimeInterval = 5 * 60

    /// Whether an occurrence that fell due at `dueAt` and fired at `firedAt` is late: a function of those two instants
    /// alone, so the same firing is judged the same whichever replica fires it and however often the scheduler looks.
    public static func isLate(dueAt: Date, firedAt: Date) -> Bool {
        firedAt.timeIntervalSince(dueAt) > lateAfter
    }

    /// The instant a wall-clock time on a local date falls at in `timeZone` (the clock-change rules above).
    public static func instant(of date: LocalDate, at time: LocalTime, in timeZone: TimeZone) -> Date {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        // The wall-clock reading as if it were UTC; the instant t satisfies t + offset(t) = wall.
        let wall = utc.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute))!
        let before = TimeInterval(timeZone.secondsFromGMT(for: wall.addingTimeInterval(-86_400)))
        let after = TimeInterval(timeZone.secondsFromGMT(for: wall.addingTimeInterval(86_400)))
        let candidates = [wall.addingTimeInterval(-before), wall.addingTimeInterval(-after)].filter {
            TimeInterval(timeZone.secondsFromGMT(for: $0)) == wall.timeIntervalSince($0)
        }
        // Twice (fall back): the first. Never (spring forward): read with the offset before the gap.
        return candidates.min() ?? wall.addingTimeInterval(-before)
    }
}
