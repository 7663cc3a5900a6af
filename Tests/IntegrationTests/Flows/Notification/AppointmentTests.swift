import CaretideIdentity
import CaretideSchemas
import CaretideTestSupport
import Foundation
import NotificationService
import PostgresNIO
import Testing

/// Appointments: slots published by institutions, booked by patients one booking per slot (a constraint decides a
/// race), both sides notified, reminders 24 h and 1 h before that go with a cancellation.
@Suite(.serialized, .stoppingStacks) struct AppointmentTests {
    static let staff = Caller.identity(Identity(subject: "staff-1", role: .institution, institutionID: "st-mary"))

    @Test("two bookings of one slot: one wins; both sides are told; reminders are set, and cancelled with the appointment")
    func bookOnce() async throws {
        let stack = try await TestStack.start([NotificationService.definition(reminderCheck: .milliseconds(200))])
        let notification = stack.baseURL(NotificationService.name)
        let starts = Date().addingTimeInterval(3 * 86_400)
        let slot =
            #"{"service": "dermatology", "startsAt": "\#(Timestamp.format(starts))", "endsAt": "\#(Timestamp.format(starts.addingTimeInterval(1200)))"}"#
        let slotURL = notification + "/v1/institutions/st-mary/slots/derm-1"
        #expect(try await HTTP.send(method: "PUT", slotURL, json: slot, as: Self.staff).status == 201)
        #expect(try await HTTP.send(method: "PUT", notification + "/v1/institutions/st-john/slots/derm-1", json: slot, as: Self.staff).status == 403)
        let backwards = slot.replacingOccurrences(
            of: "\"endsAt\": \"\(Timestamp.format(starts.addingTimeInterval(1200)))\"",
            with: "\"endsAt\": \"\(Timestamp.format(starts.addingTimeInterval(-60)))\"")
        #expect(
            try await HTTP.send(method: "PUT", notification + "/v1/institutions/st-mary/slots/derm-2", json: backwards, as: Self.staff).status == 400)
        #expect(try await HTTP.get(notification + "/v1/slots?service=dermatology").items().count == 1)

        // Two patients race for the slot.
        let book = #"{"institutionId": "st-mary", "slotId": "derm-1"}"#
        async let first = HTTP.post(notification + "/v1/patients/p-a1/appointments", json: book)
        async let second = HTTP.post(notification + "/v1/patients/p-a2/appointments", json: book)
        let statuses = try await [first.status, second.status].sorted()
        #expect(statuses == [201, 409])
        #expect(try await HTTP.get(notification + "/v1/slots?service=dermatology").items().isEmpty)
        #expect(try await HTTP.send(method: "PUT", slotURL, json: slot, as: Self.staff).status == 409)
        #expect(
            try await HTTP.post(notification + "/v1/patients/p-a1/appointments", json: #"{"institutionId": "st-mary", "slotId": "nope"}"#).status
                == 404)

        let mine =
            try await HTTP.get(notification + "/v1/patients/p-a1/appointments").items()
            + (try await HTTP.get(notification + "/v1/patients/p-a2/appointments").items())
        let appointment = try #require(mine.first)
        let patient = appointment["patientId"] as? String ?? ""
        let id = appointment["appointmentId"] as? String ?? ""
        // Both sides told; the institution's staff read it in the institution's inbox.
        #expect(
            try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: patient, role: .patient))).items()
                .map { $0["category"] as? String } == ["booked"])
        #expect(try await HTTP.get(notification + "/v1/inbox", as: Self.staff).items().map { $0["category"] as? String } == ["booked"])
        let reminders = try await HTTP.get(notification + "/v1/patients/\(patient)/reminders").items()
        #expect(Set(reminders.map { $0["topic"] as? String }) == ["appointment24h", "appointment1h"])

        // The institution cancels: both told, the reminders go, the slot is free again.
        #expect(
            try await HTTP.send(method: "POST", notification + "/v1/institutions/st-mary/appointments/\(id)/cancel", as: Self.staff).status == 204)
        #expect(
            try await HTTP.send(method: "POST", notification + "/v1/institutions/st-mary/appointments/\(id)/cancel", as: Self.staff).status == 404)
        #expect(try await HTTP.get(notification + "/v1/patients/\(patient)/reminders").items().isEmpty)
        #expect(try await HTTP.get(notification + "/v1/inbox", as: Self.staff).items().map { $0["category"] as? String } == ["cancelled", "booked"])
        #expect(try await HTTP.get(notification + "/v1/slots?institution=st-mary").items().count == 1)
        try await stack.shutdown()
    }
}
