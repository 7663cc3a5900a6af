import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Appointments: institutions publish slots per service, patients book them. A slot holds one standing booking,
/// enforced by a partial unique index (two bookings racing for a slot: one wins, the other is told it is taken).
/// Booking and cancellation notify both sides (the patient's inbox and the institution's); a booking sets reminders
/// 24 hours and 1 hour before, cancelled with it. A booking by an open skin-photo follow-up's due date stops that
/// follow-up's clock, and its cancellation starts it again (`LesionFollowUpStore`).
struct Appointments: ServiceStore {
    let session: StoreSession

    struct Slot: Encodable, Sendable {
        let institutionId: String
        let slotId: String
        let service: String
        let startsAt: Date
        let endsAt: Date
        let location: String?
    }

    /// Publishes or changes a slot; nil when it is booked (a booked slot does not change under its patient).
    func putSlot(_ slot: Slot) async throws -> String? {
        let rows = try await session.fetchAll(
            """
            INSERT INTO slots (institution_id, slot_id, service, starts_at, ends_at, location) VALUES
                (\(slot.institutionId), \(slot.slotId), \(slot.service), \(slot.startsAt), \(slot.endsAt), \(slot.location))
            ON CONFLICT (institution_id, slot_id) DO UPDATE SET service = excluded.service, starts_at = excluded.starts_at,
                ends_at = excluded.ends_at, location = excluded.location
            WHERE NOT EXISTS (SELECT 1 FROM appointments a WHERE a.institution_id = slots.institution_id AND a.slot_id = slots.slot_id
                              AND a.cancelled_at IS NULL)
            RETURNING (xmax = 0)
            """, as: Bool.self)
        return rows.first.map { $0 ? "published" : "changed" }
    }

    /// Free slots from `from` on, soonest first (paged by start and id).
    func freeSlots(
        institution: String?, service: String?, from: Date, page: PageRequest
    ) async throws -> Page<Slot> {
        let after = page.after
        guard after == nil || after?.date != nil else { throw PageRequest.badCursor }
        let rows = try await session.fetchAll(
            """
            SELECT institution_id, slot_id, service, starts_at, ends_at, location FROM slots s
            WHERE starts_at >= \(from) AND (\(institution == nil) OR institution_id = \(institution ?? ""))
              AND (\(service == nil) OR service = \(service ?? ""))
              AND NOT EXISTS (SELECT 1 FROM appointments a WHERE a.institution_id = s.institution_id AND a.slot_id = s.slot_id AND a.cancelled_at IS NULL)
              AND (\(after == nil) OR (starts_at, institution_id || '/' || slot_id) > (\(after?.date ?? Date()), \(after?.id ?? "")))
            ORDER BY starts_at, institution_id || '/' || slot_id LIMIT \(page.limit + 1)
            """, as: (String, String, String, Date, Date, String?).self)
        return Page(
            rows: rows.map { Slot(institutionId: $0.0, slotId: $0.1, service: $0.2, startsAt: $0.3, endsAt: $0.4, location: $0.5) }, request: page
        ) {
            PageRequest.Cursor(date: $0.startsAt, id: "\($0.institutionId)/\($0.slotId)")
        }
    }

    enum Booking: Sendable {
        case booked(Appointment)
        case noSuchSlot
        case past
        case taken
    }

    struct Appointment: Encodable, Sendable {
        let appointmentId: UUID
        let patientId: String
        let slot: Slot
        let cancelledAt: Date?
        let cancelledBy: String?
    }

    /// Books the slot for the patient, unless it is taken (the index decides), past or unknown.
    func book(_ id: UUID, patientID: String, institutionID: String, slotID: String, now: Date) async throws -> Booking {
        guard
            let slot = try await session.fetchAll(
                "SELECT service, starts_at, ends_at, location FROM slots WHERE institution_id = \(institutionID) AND slot_id = \(slotID)",
                as: (String, Date, Date, String?).self
            ).first
        else { return .noSuchSlot }
        guard slot.1 > now else { return .past }
        let inserted = try await session.fetchAll(
            """
            INSERT INTO appointments (appointment_id, patient_id, institution_id, slot_id) VALUES (\(id), \(patientID), \(institutionID), \(slotID))
            ON CONFLICT (institution_id, slot_id) WHERE cancelled_at IS NULL DO NOTHING RETURNING 1
            """, as: Int.self)
        guard !inserted.isEmpty else { return .taken }
        return .booked(
            Appointment(
                appointmentId: id, patientId: patientID,
                slot: Slot(institutionId: institutionID, slotId: slotID, service: slot.0, startsAt: slot.1, endsAt: slot.2, location: slot.3),
                cancelledAt: nil, cancelledBy: nil))
    }

    /// Cancels a standing appointment of the patient or of the institution; nil when there is none.
    func cancel(_ id: UUID, patientID: String? = nil, institutionID: String? = nil, by: String) async throws -> Appointment? {
        try await session.fetchAll(
            """
            UPDATE appointments a SET cancelled_at = now(), cancelled_by = \(by)
            FROM slots s WHERE a.appointment_id = \(id) AND a.cancelled_at IS NULL AND s.institution_id = a.institution_id AND s.slot_id = a.slot_id
              AND (\(patientID == nil) OR a.patient_id = \(patientID ?? "")) AND (\(institutionID == nil) OR a.institution_id = \(institutionID ?? ""))
            RETURNING a.patient_id, a.institution_id, a.slot_id, s.service, s.starts_at, s.ends_at, s.location, a.cancelled_at
            """, as: (String, String, String, String, Date, Date, String?, Date).self
        ).first.map {
            Appointment(
                appointmentId: id, patientId: $0.0,
                slot: Slot(institutionId: $0.1, slotId: $0.2, service: $0.3, startsAt: $0.4, endsAt: $0.5, location: $0.6), cancelledAt: $0.7,
                cancelledBy: by)
        }
    }

    /// A page of appointments of a patient or of an institution, soonest first.
    func list(
        patientID: String? = nil, institutionID: String? = nil, page: PageRequest
    ) async throws -> Page<Appointment> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT a.appointment_id, a.patient_id, a.institution_id, a.slot_id, s.service, s.starts_at, s.ends_at, s.location, a.cancelled_at, a.cancelled_by
            FROM appointments a JOIN slots s ON s.institution_id = a.institution_id AND s.slot_id = a.slot_id
            WHERE (\(patientID == nil) OR a.patient_id = \(patientID ?? "")) AND (\(institutionID == nil) OR a.institution_id = \(institutionID ?? ""))
              AND (\(after == nil) OR (s.starts_at, a.appointment_id) > (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY s.starts_at, a.appointment_id LIMIT \(page.limit + 1)
            """, as: (UUID, String, String, String, String, Date, Date, String?, Date?, String?).self)
        return Page(
            rows: rows.map {
                Appointment(
                    appointmentId: $0.0, patientId: $0.1,
                    slot: Slot(institutionId: $0.2, slotId: $0.3, service: $0.4, startsAt: $0.5, endsAt: $0.6, location: $0.7), cancelledAt: $0.8,
                    cancelledBy: $0.9)
            }, request: page
        ) { .init(date: $0.slot.startsAt, id: $0.appointmentId) }
    }

    /// The reminders before an appointment (those still ahead), and their cancellation.
    static let reminderOffsets: [(topic: String, before: TimeInterval)] = [("appointment24h", 24 * 3600), ("appointment1h", 3600)]

    func setReminders(_ appointment: Appointment, now: Date) async throws {
        for reminder in Self.reminders(before: appointment, now: now) {
            _ = try await ReminderStore(session: session).insert(reminder, now: now)
        }
    }

    /// The reminders `setReminders` stores, apart from the database so their times can be checked alone: one per
    /// offset whose time is still ahead at `now`, once, in UTC to the minute, its id made from the appointment and the
    /// topic (a booking retried sets none twice) and its origin naming the appointment (its cancellation finds them).
    static func reminders(before appointment: Appointment, now: Date) -> [ReminderStore.Reminder] {
        let utc = TimeZone(identifier: "UTC")!
        var reminders: [ReminderStore.Reminder] = []
        for (topic, before) in reminderOffsets {
            // A reminder's schedule holds minutes: the instant it fires is the minute it falls in, which must still lie ahead.
            let exact = appointment.slot.startsAt.addingTimeInterval(-before)
            let at = Date(timeIntervalSince1970: (exact.timeIntervalSince1970 / 60).rounded(.down) * 60)
            guard at > now else { continue }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = utc
            let time = LocalTime(String(format: "%02d:%02d", calendar.component(.hour, from: at), calendar.component(.minute, from: at)))!
            let schedule = ReminderSchedule(repeats: .once, startsOn: LocalDate(at, in: utc), at: time, timeZone: utc)
            reminders.append(
                .init(
                    id: .named("appointment/\(appointment.appointmentId.uuidString.lowercased())/\(topic)"), patientID: appointment.patientId,
                    topic: topic,
                    note: nil, schedule: schedule, origin: "appointment:\(appointment.appointmentId.uuidString.lowercased())"))
        }
        return reminders
    }

    func cancelReminders(_ appointment: Appointment) async throws {
        try await session.query(
            """
            UPDATE reminders SET cancelled_at = now(), next_due_at = NULL
            WHERE origin = \("appointment:\(appointment.appointmentId.uuidString.lowercased())") AND cancelled_at IS NULL
            """)
    }

    /// The notices of a booking or a cancellation, for the patient and the institution.
    static func notices(_ appointment: Appointment, _ change: AlertTopic.AppointmentChange, source: UUID, now: Date) -> [NotificationStore.Row] {
        [(appointment.patientId, RecipientRole.patient), (appointment.slot.institutionId, .institution)].map { recipient, role in
            NotificationStore.Row(
                .appointment(change), severity: .normal, source: source, about: appointment.appointmentId, to: .init(id: recipient, role: role),
                patientID: appointment.patientId, raisedAt: now)
        }
    }
}
