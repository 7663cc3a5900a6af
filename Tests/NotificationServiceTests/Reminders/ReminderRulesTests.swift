import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// What a reminder request may set: a real time zone, its first date or its dates, and no date whose time has
/// already passed in the patient's own zone (such a reminder could never fire).
@Suite struct ReminderRequestTests {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// Friday 20 November 2026, 13:00 in Berlin (CET, UTC+1).
    static let now = utc("2026-11-20T12:00:00Z")

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func body(
        _ repeats: ReminderRepeat, startsOn: String? = nil, dates: [String]? = nil, at: String = "09:00", timeZone: String = "Europe/Berlin"
    ) -> ReminderRoutes.Body {
        ReminderRoutes.Body(
            reminderId: nil, topic: "skinCheck", note: nil, repeats: repeats, startsOn: startsOn, dates: dates, at: at, timeZone: timeZone)
    }

    /// The JSON Pointers a refusal names; empty when the request is taken.
    static func refusal(_ body: ReminderRoutes.Body) -> [String] {
        do {
            _ = try ReminderRoutes.schedule(body, now: now)
            return []
        } catch let problem as HTTPProblem {
            return problem.violations.map(\.pointer)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test("an unknown time zone and a missing first date are both named in one answer")
    func missingFields() {
        #expect(Self.refusal(Self.body(.weekly, timeZone: "Europe/Atlantis")) == ["/timeZone", "/startsOn"])
        #expect(Self.refusal(Self.body(.monthly)) == ["/startsOn"])
        // onDates needs dates, and a date that is not a real day does not count as one.
        #expect(Self.refusal(Self.body(.onDates, dates: ["2027-02-29"])) == ["/dates"])
        #expect(Self.refusal(Self.body(.onDates)) == ["/dates"])
    }

    @Test("a once reminder earlier today on the patient's clock is refused; one at this very minute is taken")
    func onceInThePast() {
        // 12:30 in Berlin is 11:30 UTC, before now although 12:30 is after 12:00 on a UTC clock.
        #expect(Self.refusal(Self.body(.once, startsOn: "2026-11-20", at: "12:30")) == ["/startsOn"])
        #expect(Self.refusal(Self.body(.once, startsOn: "2026-11-20", at: "13:00")).isEmpty)
        #expect(Self.refusal(Self.body(.once, startsOn: "2026-11-19", at: "23:59")) == ["/startsOn"])
        // A repeating reminder may start in the past: it fires from its next occurrence on.
        #expect(Self.refusal(Self.body(.weekly, startsOn: "2026-01-05")).isEmpty)
    }

    @Test("each listed date whose time has passed is named by its position in the request")
    func onDatesInThePast() {
        let dates = ["2026-12-24", "2026-11-19", "2026-11-20", "2026-11-01"]
        #expect(Self.refusal(Self.body(.onDates, dates: dates, at: "13:00")) == ["/dates/1", "/dates/3"])
        #expect(Self.refusal(Self.body(.onDates, dates: dates, at: "12:59")) == ["/dates/1", "/dates/2", "/dates/3"])
    }

    @Test("a weekly reminder keeps its wall-clock time across the spring clock change")
    func weeklyAcrossDST() throws {
        let schedule = try ReminderRoutes.schedule(Self.body(.weekly, startsOn: "2027-03-22"), now: Self.now)
        #expect(schedule.repeats == .weekly && schedule.timeZone.identifier == "Europe/Berlin")
        #expect(schedule.occurrence(0) == Self.utc("2027-03-22T08:00:00Z"))
        // Berlin moves to summer time on 28 March 2027: 09:00 is then 07:00 UTC.
        #expect(schedule.occurrence(1) == Self.utc("2027-03-29T07:00:00Z"))
        #expect(schedule.next(atOrAfter: Self.now)?.index == 0)
    }

    @Test("onDates without a first date starts on its earliest date, and its dates are kept in order")
    func onDatesOrdered() throws {
        let schedule = try ReminderRoutes.schedule(Self.body(.onDates, dates: ["2027-01-10", "2026-12-24"], at: "07:15"), now: Self.now)
        #expect(schedule.startsOn == LocalDate("2026-12-24"))
        #expect(schedule.dates.map(\.description) == ["2026-12-24", "2027-01-10"])
        #expect(schedule.occurrence(1) == Self.utc("2027-01-10T06:15:00Z"))
        #expect(schedule.occurrence(2) == nil)
    }

    @Test("a stored schedule is read back only when every column is valid; stored dates come back in order")
    func storedSchedule() {
        let stored = ReminderStore.schedule(
            repeats: "onDates", startsOn: "2026-12-24", at: "07:15", timeZone: "Europe/Lisbon", dates: ["2027-01-10", "2026-12-24"])
        #expect(stored?.dates.map(\.description) == ["2026-12-24", "2027-01-10"])
        #expect(stored?.at == LocalTime("07:15"))
        #expect(ReminderStore.schedule(repeats: "fortnightly", startsOn: "2026-12-24", at: "07:15", timeZone: "UTC", dates: []) == nil)
        #expect(ReminderStore.schedule(repeats: "weekly", startsOn: "2026-02-30", at: "07:15", timeZone: "UTC", dates: []) == nil)
        #expect(ReminderStore.schedule(repeats: "weekly", startsOn: "2026-12-24", at: "7:15", timeZone: "UTC", dates: []) == nil)
        #expect(ReminderStore.schedule(repeats: "weekly", startsOn: "2026-12-24", at: "07:15", timeZone: "Mars/Olympus", dates: []) == nil)
    }
}

/// One reminder's part of a scheduler round (`ReminderScheduler.dueOccurrences`): what fires, whether it is late, and
/// what the reminder waits for next.
@Suite struct ReminderRoundTests {
    static let lisbon = TimeZone(identifier: "Europe/Lisbon")!
    static let id = UUID(uuidString: "0190a5b2-0000-7000-8000-000000000001")!

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func reminder(_ repeats: ReminderRepeat, startsOn: String) -> ReminderStore.Reminder {
        ReminderStore.Reminder(
            id: id, patientID: "p-1", topic: "medication", note: nil,
            schedule: ReminderSchedule(repeats: repeats, startsOn: LocalDate(startsOn)!, at: LocalTime("09:00")!, timeZone: lisbon),
            origin: "patient")
    }

    @Test("an occurrence fires in the round that finds it due, not before, and on time it is not late")
    func onTime() {
        let weekly = Self.reminder(.weekly, startsOn: "2026-11-02")
        let early = ReminderScheduler.dueOccurrences(of: weekly, from: 0, now: Self.utc("2026-11-02T08:59:59Z"))
        #expect(early.due.isEmpty)
        #expect(early.next.index == 0 && early.next.dueAt == Self.utc("2026-11-02T09:00:00Z"))
        let round = ReminderScheduler.dueOccurrences(of: weekly, from: 0, now: Self.utc("2026-11-02T09:00:30Z"))
        #expect(round.due.map(\.index) == [0])
        #expect(round.due.map(\.late) == [false])
        #expect(round.due.first?.dueAt == Self.utc("2026-11-02T09:00:00Z"))
        #expect(round.next.index == 1 && round.next.dueAt == Self.utc("2026-11-09T09:00:00Z"))
    }

    @Test("after an outage every missed occurrence fires once, each marked late, and the reminder moves past them")
    func catchUp() {
        let weekly = Self.reminder(.weekly, startsOn: "2026-11-02")
        let round = ReminderScheduler.dueOccurrences(of: weekly, from: 1, now: Self.utc("2026-11-23T10:00:00Z"))
        #expect(round.due.map(\.index) == [1, 2, 3])
        #expect(round.due.map(\.dueAt) == ["2026-11-09", "2026-11-16", "2026-11-23"].map { Self.utc("\($0)T09:00:00Z") })
        #expect(round.due.allSatisfy { $0.late })
        #expect(round.next.index == 4 && round.next.dueAt == Self.utc("2026-11-30T09:00:00Z"))
    }

    @Test("a long outage is caught up over several rounds: at most fifty occurrences of one reminder per round")
    func boundedRound() {
        let weekly = Self.reminder(.weekly, startsOn: "2020-01-06")
        let now = Self.utc("2026-11-23T10:00:00Z")
        let round = ReminderScheduler.dueOccurrences(of: weekly, from: 0, now: now)
        #expect(round.due.count == ReminderScheduler.occurrencesPerRound)
        #expect(round.due.map(\.index) == Array(0..<50))
        // The next one is already due, so the next round starts there rather than skipping it.
        #expect(round.next.index == 50)
        #expect(round.next.dueAt.map { $0 <= now } == true)
    }

    @Test("each occurrence has an id of its own that the same occurrence gets again, whichever replica fires it")
    func occurrenceIDs() {
        let weekly = Self.reminder(.weekly, startsOn: "2026-11-02")
        let now = Self.utc("2026-11-23T10:00:00Z")
        let first = ReminderScheduler.dueOccurrences(of: weekly, from: 0, now: now).due.map(\.id)
        let again = ReminderScheduler.dueOccurrences(of: weekly, from: 0, now: now.addingTimeInterval(60)).due.map(\.id)
        #expect(first == again)
        #expect(Set(first).count == first.count)
        #expect(first.first == UUID.named("reminder/0190a5b2-0000-7000-8000-000000000001/0"))
    }

    @Test("a once reminder that has fired waits for nothing: its schedule has ended")
    func onceEnds() {
        let once = Self.reminder(.once, startsOn: "2026-11-02")
        let round = ReminderScheduler.dueOccurrences(of: once, from: 0, now: Self.utc("2026-11-02T09:00:00Z"))
        #expect(round.due.map(\.index) == [0])
        #expect(round.next.index == 1 && round.next.dueAt == nil)
        #expect(ReminderScheduler.dueOccurrences(of: once, from: 1, now: Self.utc("2027-01-01T00:00:00Z")).due.isEmpty)
    }
}

/// The self-check reminder a melanoma risk category sets starts on the patient's next calendar day.
@Suite struct SelfCheckStartTests {
    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("an assessment at 00:30 on the night London's clocks go back starts the reminder the next day, not the same one")
    func clocksGoBack() {
        let london = TimeZone(identifier: "Europe/London")!
        // 00:30 BST on 25 October 2026; that day lasts 25 hours, so 24 hours later is still the 25th.
        let instant = Self.utc("2026-10-24T23:30:00Z")
        #expect(NotificationHandler.dayAfter(instant, in: london) == LocalDate("2026-10-26"))
        #expect(NotificationHandler.dayAfter(Self.utc("2026-11-02T12:00:00Z"), in: london) == LocalDate("2026-11-03"))
    }

    @Test("the next day is the patient's: late evening in Auckland is already the day after in UTC")
    func patientsZone() {
        let auckland = TimeZone(identifier: "Pacific/Auckland")!
        #expect(NotificationHandler.dayAfter(Self.utc("2026-11-02T12:00:00Z"), in: auckland) == LocalDate("2026-11-04"))
        #expect(NotificationHandler.dayAfter(Self.utc("2026-12-31T12:00:00Z"), in: TimeZone(identifier: "UTC")!) == LocalDate("2027-01-01"))
    }
}
