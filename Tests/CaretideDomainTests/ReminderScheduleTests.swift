import CaretideDomain
import Foundation
import PropertyBased
import Testing

/// Reminder schedules in the recipient's own time zone: real dates only, month ends, clock changes, and the next
/// occurrence never skipping one.
@Suite struct ReminderScheduleTests {
    static let lisbon = TimeZone(identifier: "Europe/Lisbon")!
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    static func date(_ text: String) -> LocalDate { LocalDate(text)! }

    @Test(
        "only real calendar days: 29 February in leap years only",
        arguments: [
            ("2023-02-29", false), ("2024-02-29", true), ("2100-02-29", false), ("2000-02-29", true), ("2026-04-31", false), ("2026-13-01", false),
            ("2026-1-01", false), ("2026-12-31", true),
        ])
    func realDays(text: String, valid: Bool) {
        #expect((LocalDate(text) != nil) == valid)
    }

    @Test("monthly from the 31st: the month's last day when it is shorter, the 31st again when it is not")
    func monthEnds() {
        let schedule = ReminderSchedule(repeats: .monthly, startsOn: Self.date("2026-01-31"), at: LocalTime("09:00")!, timeZone: Self.lisbon)
        #expect(
            (0..<6).compactMap { schedule.date($0)?.description } == [
                "2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31", "2026-06-30",
            ])
        let leap = ReminderSchedule(repeats: .yearly, startsOn: Self.date("2024-02-29"), at: LocalTime("09:00")!, timeZone: Self.lisbon)
        #expect((0..<5).compactMap { leap.date($0)?.description } == ["2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"])
        let quarterly = ReminderSchedule(
            repeats: .everyThreeMonths, startsOn: Self.date("2026-11-30"), at: LocalTime("09:00")!, timeZone: Self.lisbon)
        #expect(quarterly.date(1)?.description == "2027-02-28" && quarterly.date(2)?.description == "2027-05-30")
        let bimonthly = ReminderSchedule(
            repeats: .everyTwoMonths, startsOn: Self.date("2026-12-31"), at: LocalTime("09:00")!, timeZone: Self.lisbon)
        #expect(
            (0..<5).compactMap { bimonthly.date($0)?.description } == ["2026-12-31", "2027-02-28", "2027-04-30", "2027-06-30", "2027-08-31"])
        // Found from far ahead as from the start: the first on or after 1 September 2030 is 31 October 2030.
        #expect(bimonthly.next(atOrAfter: Self.utc("2030-09-01T00:00:00Z"))?.at == Self.utc("2030-10-31T09:00:00Z"))
        #expect(ReminderRepeat(months: 2) == .everyTwoMonths)
    }

    @Test("a time that does not exist on a spring-forward night is read with the offset before the gap; a doubled one is the first")
    func clockChanges() {
        // Lisbon: 01:00 → 02:00 on 28 March 2027; 02:00 → 01:00 on 25 October 2026.
        #expect(ReminderSchedule.instant(of: Self.date("2027-03-28"), at: LocalTime("01:30")!, in: Self.lisbon) == Self.utc("2027-03-28T01:30:00Z"))
        #expect(ReminderSchedule.instant(of: Self.date("2026-10-25"), at: LocalTime("01:30")!, in: Self.lisbon) == Self.utc("2026-10-25T00:30:00Z"))
        #expect(ReminderSchedule.instant(of: Self.date("2026-07-01"), at: LocalTime("08:30")!, in: Self.lisbon) == Self.utc("2026-07-01T07:30:00Z"))
        // New York: 02:00 → 03:00 on 8 March 2026, so 02:30 is 03:30 EDT.
        let newYork = TimeZone(identifier: "America/New_York")!
        #expect(ReminderSchedule.instant(of: Self.date("2026-03-08"), at: LocalTime("02:30")!, in: newYork) == Self.utc("2026-03-08T07:30:00Z"))
        // Apia skipped 30 December 2011 altogether: any time that day is read with the day before's offset.
        let apia = TimeZone(identifier: "Pacific/Apia")!
        #expect(ReminderSchedule.instant(of: Self.date("2011-12-30"), at: LocalTime("09:00")!, in: apia) == Self.utc("2011-12-30T19:00:00Z"))
    }

    @Test("the next occurrence at or after an instant; once and listed dates end")
    func next() {
        let weekly = ReminderSchedule(repeats: .weekly, startsOn: Self.date("2026-11-02"), at: LocalTime("09:00")!, timeZone: Self.lisbon)
        #expect(weekly.next(atOrAfter: Self.utc("2026-11-20T12:00:00Z"))?.at == Self.utc("2026-11-23T09:00:00Z"))
        #expect(weekly.next(atOrAfter: Self.utc("2026-11-23T09:00:00Z"))?.index == 3)
        let once = ReminderSchedule(repeats: .once, startsOn: Self.date("2026-12-01"), at: LocalTime("18:00")!, timeZone: Self.lisbon)
        #expect(once.next(atOrAfter: Self.utc("2026-12-01T18:00:01Z")) == nil)
        let dates = ReminderSchedule(
            repeats: .onDates, startsOn: Self.date("2026-01-01"), at: LocalTime("07:15")!, timeZone: Self.lisbon,
            dates: [Self.date("2027-01-10"), Self.date("2026-12-24")])
        #expect(dates.next(atOrAfter: Self.utc("2026-12-25T00:00:00Z"))?.at == Self.utc("2027-01-10T07:15:00Z"))
        #expect(ReminderRepeat(months: 3) == .everyThreeMonths && ReminderRepeat(months: 5) == nil)
    }

    @Test("late only when fired more than five minutes after it fell due, however long the outage")
    func lateness() {
        let due = Self.utc("2026-03-02T09:00:00Z")
        #expect(!ReminderSchedule.isLate(dueAt: due, firedAt: due))
        #expect(!ReminderSchedule.isLate(dueAt: due, firedAt: Self.utc("2026-03-02T09:05:00Z")))
        #expect(ReminderSchedule.isLate(dueAt: due, firedAt: Self.utc("2026-03-02T09:05:01Z")))
        #expect(ReminderSchedule.isLate(dueAt: due, firedAt: Self.utc("2026-03-23T10:00:00Z")))
    }

    @Test("Property: occurrences rise strictly, and the next one at or after an instant skips none")
    func neverSkips() async {
        let zones = ["Europe/Lisbon", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Apia"]
        let repeats: [ReminderRepeat] = [.weekly, .everyTwoWeeks, .monthly, .everyThreeMonths, .everySixMonths, .yearly]
        await propertyCheck(input: Gen.int(in: 0...4), Gen.int(in: 0...5), Gen.int(in: 0...3650), Gen.int(in: 0...1439), Gen.int(in: 0...40_000_000))
        {
            zone, kind, startDay, minuteOfDay, secondsLater in
            let start = LocalDate(year: 2020, month: 1, day: 1)!
            let schedule = ReminderSchedule(
                repeats: repeats[kind], startsOn: Self.offset(start, days: startDay),
                at: LocalTime(String(format: "%02d:%02d", minuteOfDay / 60, minuteOfDay % 60))!, timeZone: TimeZone(identifier: zones[zone])!)
            let first = schedule.occurrence(0)!
            let probe = first.addingTimeInterval(Double(secondsLater) - 86_400)
            let next = schedule.next(atOrAfter: probe)!
            #expect(next.at >= probe)
            if next.index > 0 { #expect(schedule.occurrence(next.index - 1)! < probe) }
            #expect(schedule.occurrence(next.index + 1)! > next.at)
        }
    }

    static func offset(_ date: LocalDate, days: Int) -> LocalDate {
        LocalDate(Self.utc("\(date)T12:00:00Z").addingTimeInterval(Double(days) * 86_400), in: TimeZone(identifier: "UTC")!)
    }
}
