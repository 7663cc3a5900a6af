import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import NotificationService

/// A slot's bounds, the reminders a booking sets before its appointment, and who hears of a booking or a
/// cancellation.
@Suite struct AppointmentRulesTests {
    static let appointmentID = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000a1")!
    /// Thursday 3 December 2026, 10:30 UTC.
    static let startsAt = utc("2026-12-03T10:30:00Z")

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func appointment(startsAt: Date = AppointmentRulesTests.startsAt) -> Appointments.Appointment {
        Appointments.Appointment(
            appointmentId: appointmentID, patientId: "p-1",
            slot: Appointments.Slot(
                institutionId: "st-mary", slotId: "derm-1030", service: "dermatology", startsAt: startsAt, endsAt: startsAt.addingTimeInterval(1800),
                location: "Clinic B"),
            cancelledAt: nil, cancelledBy: nil)
    }

    static func slotRefusal(startsAt: Date, endsAt: Date) -> [String] {
        do {
            _ = try AppointmentRoutes.slot(
                AppointmentRoutes.SlotBody(service: "dermatology", startsAt: startsAt, endsAt: endsAt, location: nil), institutionID: "st-mary",
                slotID: "derm-1030")
            return []
        } catch let problem as HTTPProblem {
            return problem.violations.map(\.pointer)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test("a slot must end after it starts: an empty or backward slot is refused on endsAt")
    func slotBounds() throws {
        #expect(Self.slotRefusal(startsAt: Self.startsAt, endsAt: Self.startsAt) == ["/endsAt"])
        #expect(Self.slotRefusal(startsAt: Self.startsAt, endsAt: Self.startsAt.addingTimeInterval(-60)) == ["/endsAt"])
        #expect(Self.slotRefusal(startsAt: Self.startsAt, endsAt: Self.startsAt.addingTimeInterval(1)).isEmpty)
        let slot = try AppointmentRoutes.slot(
            AppointmentRoutes.SlotBody(
                service: "dermatology", startsAt: Self.startsAt, endsAt: Self.startsAt.addingTimeInterval(1800), location: "B"),
            institutionID: "st-mary", slotID: "derm-1030")
        #expect(slot.institutionId == "st-mary" && slot.slotId == "derm-1030" && slot.service == "dermatology" && slot.location == "B")
        #expect(slot.endsAt.timeIntervalSince(slot.startsAt) == 1800)
    }

    @Test("booked days ahead: a reminder 24 hours and one 1 hour before, each once, at the minute in UTC")
    func bothReminders() {
        let reminders = Appointments.reminders(before: Self.appointment(), now: Self.utc("2026-11-20T12:00:00Z"))
        #expect(reminders.map(\.topic) == ["appointment24h", "appointment1h"])
        #expect(reminders.map { $0.schedule.occurrence(0) } == [Self.utc("2026-12-02T10:30:00Z"), Self.utc("2026-12-03T09:30:00Z")])
        #expect(
            reminders.allSatisfy { $0.schedule.repeats == .once && $0.schedule.timeZone.secondsFromGMT(for: Self.utc("2026-07-01T00:00:00Z")) == 0 })
        #expect(reminders.allSatisfy { $0.patientID == "p-1" && $0.note == nil })
        // The origin names the appointment: cancelling it cancels them.
        #expect(reminders.allSatisfy { $0.origin == "appointment:0190a5b2-0000-7000-8000-0000000000a1" })
    }

    @Test("a reminder whose time has come by the booking is not set; one still a second ahead is")
    func onlyThoseAhead() {
        let appointment = Self.appointment()
        let threeHoursBefore = Appointments.reminders(before: appointment, now: Self.startsAt.addingTimeInterval(-3 * 3600))
        #expect(threeHoursBefore.map(\.topic) == ["appointment1h"])
        #expect(Appointments.reminders(before: appointment, now: Self.startsAt.addingTimeInterval(-3600)).isEmpty)
        #expect(Appointments.reminders(before: appointment, now: Self.startsAt.addingTimeInterval(-3601)).map(\.topic) == ["appointment1h"])
        #expect(Appointments.reminders(before: appointment, now: Self.startsAt.addingTimeInterval(-24 * 3600)).map(\.topic) == ["appointment1h"])
        #expect(Appointments.reminders(before: appointment, now: Self.startsAt).isEmpty)
    }

    @Test("a slot starting at seconds past the minute: a reminder is set only if its minute is still ahead, so every one set fires")
    func secondsPastTheMinute() {
        let appointment = Self.appointment(startsAt: Self.utc("2026-12-03T10:30:30Z"))
        // The 1-hour reminder's minute is 09:30: ahead at 09:29:59, passed at 09:30:10 (though the exact instant is not).
        let ahead = Appointments.reminders(before: appointment, now: Self.utc("2026-12-03T09:29:59Z"))
        #expect(ahead.map(\.topic) == ["appointment1h"])
        #expect(ahead.map { $0.schedule.occurrence(0) } == [Self.utc("2026-12-03T09:30:00Z")])
        #expect(Appointments.reminders(before: appointment, now: Self.utc("2026-12-03T09:30:10Z")).isEmpty)
    }

    @Test("an appointment just after midnight UTC has its 1-hour reminder on the day before")
    func acrossMidnight() {
        let appointment = Self.appointment(startsAt: Self.utc("2026-12-03T00:15:00Z"))
        let reminders = Appointments.reminders(before: appointment, now: Self.utc("2026-11-20T12:00:00Z"))
        #expect(reminders.map { $0.schedule.startsOn.description } == ["2026-12-02", "2026-12-02"])
        #expect(reminders.map { $0.schedule.at.description } == ["00:15", "23:15"])
    }

    @Test("the same booking again makes the same reminder ids, one per topic, so none is set twice")
    func reminderIDs() {
        let now = Self.utc("2026-11-20T12:00:00Z")
        let first = Appointments.reminders(before: Self.appointment(), now: now).map(\.id)
        let again = Appointments.reminders(before: Self.appointment(), now: now.addingTimeInterval(600)).map(\.id)
        #expect(first == again && Set(first).count == 2)
        #expect(first.first == UUID.named("appointment/0190a5b2-0000-7000-8000-0000000000a1/appointment24h"))
    }

    @Test("a booking or a cancellation tells the patient and the institution, once each, about the patient")
    func notices() {
        let source = UUID(uuidString: "0190a5b2-0000-7000-8000-0000000000b1")!
        let now = Self.utc("2026-11-20T12:00:00Z")
        let booked = Appointments.notices(Self.appointment(), .booked, source: source, now: now)
        #expect(booked.map(\.recipient) == [.init(id: "p-1", role: .patient), .init(id: "st-mary", role: .institution)])
        #expect(booked.allSatisfy { $0.alert.kind == "appointment" && $0.alert.category == "booked" && $0.alert.severity == .normal })
        #expect(booked.allSatisfy { $0.patientID == "p-1" && $0.alert.aboutID == Self.appointmentID && $0.alert.sourceEventID == source })
        #expect(Set(booked.map(\.alert.alertID)).count == 2)
        let cancelled = Appointments.notices(Self.appointment(), .cancelled, source: UUID(), now: now)
        #expect(cancelled.map(\.alert.category) == ["cancelled", "cancelled"])
        #expect(Set(cancelled.map(\.alert.alertID)).isDisjoint(with: booked.map(\.alert.alertID)))
    }
}
