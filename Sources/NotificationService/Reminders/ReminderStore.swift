import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// notification-service's persisted reminders: each with its schedule and the occurrence due next, and a row per
/// occurrence fired, whose key (reminder, occurrence number) makes firing it twice impossible, whichever replica
/// tries.
struct ReminderStore: ServiceStore {
    let session: StoreSession

    /// A reminder as stored: who, what, and when.
    struct Reminder: Sendable {
        let id: UUID
        let patientID: String
        let topic: String
        let note: String?
        let schedule: ReminderSchedule
        /// patient, or the rule that made it (melanomaRisk).
        let origin: String
        /// The assessment whose rule made it, if a rule did.
        var setBy: UUID? = nil
    }

    /// Stores a new reminder due at its first occurrence from `now` on; false when the id is taken (a duplicate).
    func insert(_ reminder: Reminder, now: Date) async throws -> Bool {
        let next = reminder.schedule.next(atOrAfter: now)
        let schedule = reminder.schedule
        return try await !session.fetchAll(
            """
            INSERT INTO reminders (reminder_id, patient_id, topic, note, repeats, starts_on, at_time, time_zone, dates, origin, next_index, next_due_at,
                                   set_by)
            VALUES (\(reminder.id), \(reminder.patientID), \(reminder.topic), \(reminder.note), \(schedule.repeats.rawValue),
                    \(schedule.startsOn.description), \(schedule.at.description), \(schedule.timeZone.identifier), \(schedule.dates.map(\.description)),
                    \(reminder.origin), \(next?.index), \(next?.at), \(reminder.setBy))
            ON CONFLICT (reminder_id) DO NOTHING RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// A rule's reminder for the patient (one per rule and topic): made, or its schedule replaced.
    func replace(_ reminder: Reminder, now: Date) async throws {
        try await session.query(
            """
            UPDATE reminders SET cancelled_at = now(), next_due_at = NULL
            WHERE patient_id = \(reminder.patientID) AND origin = \(reminder.origin) AND topic = \(reminder.topic) AND cancelled_at IS NULL
            """)
        _ = try await insert(reminder, now: now)
    }

    /// Cancels the reminder a withdrawn assessment's rule set, if it still stands (a later assessment's replaced it
    /// otherwise).
    func cancel(setBy assessmentID: UUID, patientID: String) async throws {
        try await session.query(
            """
            UPDATE reminders SET cancelled_at = now(), next_due_at = NULL
            WHERE patient_id = \(patientID) AND set_by = \(assessmentID) AND cancelled_at IS NULL
            """)
    }

    /// Cancels a patient's reminder (its occurrences stop); false when there is none standing.
    func cancel(_ id: UUID, patientID: String) async throws -> Bool {
        try await !session.fetchAll(
            """
            UPDATE reminders SET cancelled_at = now(), next_due_at = NULL
            WHERE reminder_id = \(id) AND patient_id = \(patientID) AND cancelled_at IS NULL RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// A reminder's state after a pause or a resume.
    struct State: Encodable, Sendable {
        let reminderId: UUID
        /// `paused` or `active`.
        let status: String
        let nextDueAt: Date?
    }

    /// Pauses a patient's standing reminder: it is due at no time until resumed. Nil when there is none.
    func pause(_ id: UUID, patientID: String) async throws -> State? {
        let paused = try await session.fetchAll(
            """
            UPDATE reminders SET paused_at = coalesce(paused_at, now()), next_due_at = NULL
            WHERE reminder_id = \(id) AND patient_id = \(patientID) AND cancelled_at IS NULL RETURNING 1
            """, as: Int.self)
        return paused.isEmpty ? nil : State(reminderId: id, status: "paused", nextDueAt: nil)
    }

    /// Resumes a patient's standing reminder from its first occurrence at or after `now` (a resumed reminder that is
    /// not paused keeps its due time). Nil when there is none.
    func resume(_ id: UUID, patientID: String, now: Date) async throws -> State? {
        guard
            let row = try await session.fetchAll(
                """
                SELECT repeats, starts_on, at_time, time_zone, dates, paused_at IS NOT NULL, next_due_at FROM reminders
                WHERE reminder_id = \(id) AND patient_id = \(patientID) AND cancelled_at IS NULL FOR UPDATE
                """, as: (String, String, String, String, [String], Bool, Date?).self
            ).first
        else { return nil }
        guard row.5 else { return State(reminderId: id, status: "active", nextDueAt: row.6) }
        let next = Self.schedule(repeats: row.0, startsOn: row.1, at: row.2, timeZone: row.3, dates: row.4)?.next(atOrAfter: now)
        try await session.query(
            """
            UPDATE reminders SET paused_at = NULL, next_index = coalesce(\(next?.index), next_index), next_due_at = \(next?.at)
            WHERE reminder_id = \(id)
            """)
        return State(reminderId: id, status: "active", nextDueAt: next?.at)
    }

    /// Reminders due by `now`, locked; those another replica holds are skipped (it fires them).
    func due(now: Date, limit: Int) async throws -> [(reminder: Reminder, nextIndex: Int)] {
        let rows = try await session.fetchAll(
            """
            SELECT reminder_id, patient_id, topic, note, repeats, starts_on, at_time, time_zone, dates, origin, next_index FROM reminders
            WHERE cancelled_at IS NULL AND next_due_at <= \(now)
            ORDER BY next_due_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """, as: (UUID, String, String, String?, String, String, String, String, [String], String, Int).self)
        return rows.compactMap { row in
            guard let schedule = Self.schedule(repeats: row.4, startsOn: row.5, at: row.6, timeZone: row.7, dates: row.8) else { return nil }
            return (Reminder(id: row.0, patientID: row.1, topic: row.2, note: row.3, schedule: schedule, origin: row.9), row.10)
        }
    }

    /// An occurrence about to fire.
    struct Occurrence: Sendable {
        let reminderID: UUID
        let index: Int
        let id: UUID
        let dueAt: Date
        let late: Bool
    }

    /// Records occurrences fired at `firedAt`, in one statement; returns those not recorded before (the others already
    /// fired). The firing time is the one each occurrence's `late` was judged against (not the database's clock), so
    /// every row agrees with its own flag.
    func fire(_ occurrences: [Occurrence], at firedAt: Date) async throws -> [Occurrence] {
        guard !occurrences.isEmpty else { return [] }
        let fired = Set(
            try await session.fetchAll(
                """
                INSERT INTO reminder_occurrences (reminder_id, occurrence_index, occurrence_id, due_at, fired_at, late)
                SELECT reminder, index, id, due, \(firedAt), late
                FROM unnest(\(occurrences.map(\.reminderID)), \(occurrences.map { Int64($0.index) }), \(occurrences.map(\.id)), \(occurrences.map(\.dueAt)),
                            \(occurrences.map(\.late))) AS t(reminder, index, id, due, late)
                ON CONFLICT DO NOTHING RETURNING occurrence_id
                """, as: UUID.self) as [UUID])
        return occurrences.filter { fired.contains($0.id) }
    }

    /// Moves each reminder to the occurrence it waits for next (no due time: its schedule has ended), in one statement.
    func advance(_ reminders: [(id: UUID, index: Int, dueAt: Date?)]) async throws {
        guard !reminders.isEmpty else { return }
        // PostgresNIO binds no arrays of optionals: an ended schedule travels as the epoch, which `nullif` turns back.
        let epoch = Date(timeIntervalSince1970: 0)
        try await session.query(
            """
            UPDATE reminders r SET next_index = t.index, next_due_at = nullif(t.due, \(epoch))
            FROM unnest(\(reminders.map(\.id)), \(reminders.map { Int64($0.index) }), \(reminders.map { $0.dueAt ?? epoch })) AS t(id, index, due)
            WHERE r.reminder_id = t.id
            """)
    }

    static func schedule(repeats: String, startsOn: String, at: String, timeZone: String, dates: [String]) -> ReminderSchedule? {
        guard let repeats = ReminderRepeat(rawValue: repeats), let startsOn = LocalDate(startsOn), let at = LocalTime(at),
            let zone = TimeZone(identifier: timeZone)
        else { return nil }
        return ReminderSchedule(repeats: repeats, startsOn: startsOn, at: at, timeZone: zone, dates: dates.compactMap(LocalDate.init))
    }
}

extension ReminderStore {
    /// A reminder as the patient reads it.
    struct Listed: Encodable, Sendable {
        let reminderId: UUID
        let topic: String
        let note: String?
        let repeats: String
        let startsOn: String
        let dates: [String]
        let at: String
        let timeZone: String
        let origin: String
        let nextDueAt: Date?
        /// When it was paused; absent while it is active.
        let pausedAt: Date?
        let createdAt: Date
    }

    /// A page of the patient's standing reminders, oldest first.
    func standing(patientID: String, page: PageRequest) async throws -> Page<Listed> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT reminder_id, topic, note, repeats, starts_on, dates, at_time, time_zone, origin, next_due_at, paused_at, created_at FROM reminders
            WHERE patient_id = \(patientID) AND cancelled_at IS NULL
              AND (\(after == nil) OR (created_at, reminder_id) > (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY created_at, reminder_id LIMIT \(page.limit + 1)
            """, as: (UUID, String, String?, String, String, [String], String, String, String, Date?, Date?, Date).self)
        return Page(
            rows: rows.map {
                Listed(
                    reminderId: $0.0, topic: $0.1, note: $0.2, repeats: $0.3, startsOn: $0.4, dates: $0.5, at: $0.6, timeZone: $0.7, origin: $0.8,
                    nextDueAt: $0.9, pausedAt: $0.10, createdAt: $0.11)
            }, request: page
        ) { .init(date: $0.createdAt, id: $0.reminderId) }
    }

    /// How late the oldest occurrence still waiting is, in seconds (0 when none is due).
    func oldestOverdueSeconds() async throws -> Double {
        try await session.fetchAll(
            """
            SELECT coalesce(extract(epoch FROM now() - min(next_due_at)), 0)::float8 FROM reminders
            WHERE next_due_at <= now() AND cancelled_at IS NULL
            """, as: Double.self
        ).first ?? 0
    }
}
