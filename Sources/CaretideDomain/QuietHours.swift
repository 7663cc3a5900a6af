public import Foundation

/// A recipient's quiet hours, a daily window of local time (it may cross midnight, 22:00–07:00) in their own time
/// zone. A notification that arrives inside the window waits until it ends, unless it is urgent: an urgent finding or
/// hazardous air goes through at any hour.
public struct QuietHours: Sendable, Equatable {
    public let from: LocalTime
    public let to: LocalTime
    public let timeZone: TimeZone

    public init(from: LocalTime, to: LocalTime, timeZone: TimeZone) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
    }

    /// When a notification of `severity` arriving at `instant` is delivered: at once, or when the window ends (its
    /// end on the recipient's clock; on a clock-change night the rules of `ReminderSchedule.instant`).
    public func delivery(of severity: Severity, arrivingAt instant: Date) -> Date {
        guard severity < .urgent, from != to else { return instant }
        let today = LocalDate(instant, in: timeZone)
        // The window that may hold the instant starts today, or (crossing midnight) started yesterday.
        for start in [today, today.addingDays(-1)] {
            let opens = ReminderSchedule.instant(of: start, at: from, in: timeZone)
            let closesOn = to.minutes > from.minutes ? start : start.addingDays(1)
            let closes = ReminderSchedule.instant(of: closesOn, at: to, in: timeZone)
            if instant >= opens && instant < closes { return closes }
        }
        return instant
    }
}

extension LocalTime {
    var minutes: Int { hour * 60 + minute }
}
