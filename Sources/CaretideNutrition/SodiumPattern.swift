public import CaretideDomain

/// Sodium at or above the WHO limit on at least 5 of 7 consecutive days: Caretide's own care-tracking rule (no
/// guideline defines it), which scoring-service raises as a flag for a patient whose latest blood-pressure assessment
/// is stage 2 hypertension or a hypertensive crisis (ACC/AHA 2017).
///
/// - A **qualifying window** is 7 consecutive calendar days ending on an over-limit day `D` (the window `D − 6 … D`)
///   and holding at least 5 over-limit days. Windows end on over-limit days only: a window ending on a day under the
///   limit adds no new high day, and counting it would stretch an episode past its last high day into days that may
///   not be recorded yet.
/// - An **episode** is a run of qualifying windows: consecutive window ends (`D`, `D + 1`, …) belong to one episode,
///   and so does any later window whose first over-limit day falls within the episode (a day or two under the limit
///   inside a high week does not start a new episode). So episodes never overlap.
/// - An episode's ``Episode/start`` is the first over-limit day of its first qualifying window, its ``Episode/end``
///   the last day of its last qualifying window. A high day later than all before it only extends the last episode or
///   starts a new one, so as days arrive in order an episode's start never moves: it is the key that makes each
///   episode flagged once. (A day synced late, inside or just before an episode, can move its start earlier.)
public enum SodiumPattern {
    public static let windowDays = 7
    public static let requiredDays = 5

    public struct Episode: Sendable, Equatable, Hashable, Codable {
        /// The first over-limit day of the episode's first qualifying window: the key that makes it flagged once.
        public let start: LocalDate
        /// The last day of its last qualifying window (an over-limit day).
        public let end: LocalDate
        /// The over-limit days from ``start`` through ``end``.
        public let daysOverLimit: Int

        public init(start: LocalDate, end: LocalDate, daysOverLimit: Int) {
            self.start = start
            self.end = end
            self.daysOverLimit = daysOverLimit
        }
    }

    /// Every episode in `overLimitDays` (the days whose sodium was at or above the limit), in calendar order.
    public static func episodes(overLimitDays: Set<LocalDate>) -> [Episode] {
        let days = overLimitDays.map(\.dayNumber).sorted()
        var episodes: [Episode] = []
        // The open episode: indices into `days` of its start and of its end.
        var open: (start: Int, end: Int)?
        var windowStart = 0
        for (index, day) in days.enumerated() {
            while days[windowStart] <= day - windowDays { windowStart += 1 }
            guard index - windowStart + 1 >= requiredDays else { continue }
            if let current = open, days[windowStart] <= days[current.end] {
                open = (start: current.start, end: index)
            } else {
                if let current = open { episodes.append(episode(days, current)) }
                open = (start: windowStart, end: index)
            }
        }
        if let current = open { episodes.append(episode(days, current)) }
        return episodes
    }

    private static func episode(_ days: [Int], _ range: (start: Int, end: Int)) -> Episode {
        Episode(
            start: LocalDate(dayNumber: days[range.start]), end: LocalDate(dayNumber: days[range.end]), daysOverLimit: range.end - range.start + 1)
    }
}

extension LocalDate {
    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant, "chrono-Compatible Low-Level Date
    /// Algorithms", `days_from_civil`): day arithmetic without a `Calendar`.
    var dayNumber: Int {
        let shiftedYear = month <= 2 ? year - 1 : year  // years start in March, so leap days end them
        let era = shiftedYear / 400  // LocalDate years are 1900…9999: never negative
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `dayNumber` days after 1970-01-01 (`civil_from_days`); it must lie within LocalDate's years.
    init(dayNumber: Int) {
        let shifted = dayNumber + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(year: year, month: month, day: day)!
    }
}
