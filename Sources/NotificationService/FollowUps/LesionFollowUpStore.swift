import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

/// The SQL of `lesion_follow_ups` and `lesion_follow_up_findings`: the clock a suspicious or uncertain skin photo
/// starts (`LesionFollowUp`), one open follow-up per photo.
struct LesionFollowUpStore: ServiceStore {
    let session: StoreSession

    /// A follow-up as the patient and the care team read it.
    struct FollowUp: Encodable, Sendable {
        let followUpId: UUID
        let photoId: String
        /// The classifier's answer that opened it (suspicious or uncertain).
        let category: String
        let stage: LesionFollowUp.Stage
        let stageStartedAt: Date
        let dueAt: Date
        /// open, appointmentBooked (an appointment by the due date stops the clock), overdue (the care team was
        /// alerted), or closed.
        let status: String
        let appointmentId: UUID?
        let remindersSent: Int
        let escalatedAt: Date?
        let openedAt: Date
        let closedAt: Date?
        /// benign, treated, reassessed (a later answer about the photo was not suspicious), withdrawn (the photo
        /// went).
        let outcome: String?
        var findings: [Finding]
    }

    struct Finding: Encodable, Sendable {
        let stage: LesionFollowUp.Stage
        let finding: LesionFollowUp.Finding
        let consultantId: String
        let recordedAt: Date
    }

    /// Opens the follow-up of a photo unless one is open; true when it opened.
    func open(_ id: UUID, patientID: String, photoID: String, category: LesionPhotoCategory, at now: Date) async throws -> Bool {
        let stage = LesionFollowUp.Stage.checkUp
        let next = LesionFollowUp.next(stage, startedAt: now, remindersSent: 0)
        return try await !session.fetchAll(
            """
            INSERT INTO lesion_follow_ups (follow_up_id, patient_id, photo_id, category, stage, stage_started_at, due_at, next_step_at, opened_at)
            VALUES (\(id), \(patientID), \(photoID), \(category.rawValue), \(stage.rawValue), \(now), \(now.addingTimeInterval(stage.window)),
                    \(next.at), \(now))
            ON CONFLICT DO NOTHING RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// Closes the open follow-up of a photo (a later answer that is not suspicious, the photo deleted); its id.
    func close(patientID: String, photoID: String, outcome: String, at now: Date) async throws -> UUID? {
        try await session.fetchAll(
            """
            UPDATE lesion_follow_ups SET closed_at = \(now), outcome = \(outcome), next_step_at = NULL
            WHERE patient_id = \(patientID) AND photo_id = \(photoID) AND closed_at IS NULL RETURNING follow_up_id
            """, as: UUID.self
        ).first
    }

    /// An open follow-up whose next step (`LesionFollowUp.next`) is due, locked for this round.
    struct Due: Sendable {
        let id: UUID
        let patientID: String
        let stage: LesionFollowUp.Stage
        let stageStartedAt: Date
        let remindersSent: Int
    }

    /// The follow-ups with a step due at `now` and no appointment booked, locked with SKIP LOCKED so replicas share
    /// them and none is reminded or escalated twice.
    func due(now: Date, limit: Int) async throws -> [Due] {
        try await session.fetchAll(
            """
            SELECT follow_up_id, patient_id, stage, stage_started_at, reminders_sent FROM lesion_follow_ups
            WHERE closed_at IS NULL AND appointment_id IS NULL AND next_step_at <= \(now)
            ORDER BY next_step_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """, as: (UUID, String, String, Date, Int).self
        ).compactMap { id, patient, stage, started, sent in
            LesionFollowUp.Stage(rawValue: stage).map { Due(id: id, patientID: patient, stage: $0, stageStartedAt: started, remindersSent: sent) }
        }
    }

    /// Records the steps taken: the reminders counted, the next step's time (none after the escalation).
    func advance(_ id: UUID, remindersSent: Int, nextStepAt: Date?, escalatedAt: Date?) async throws {
        try await session.query(
            """
            UPDATE lesion_follow_ups SET reminders_sent = \(remindersSent), next_step_at = \(nextStepAt),
                escalated_at = coalesce(\(escalatedAt), escalated_at)
            WHERE follow_up_id = \(id)
            """)
    }

    /// An appointment the patient booked stops the clock of each open stage it falls within.
    func appointmentBooked(_ appointmentID: UUID, patientID: String, startsAt: Date) async throws {
        try await session.query(
            """
            UPDATE lesion_follow_ups SET appointment_id = \(appointmentID)
            WHERE patient_id = \(patientID) AND closed_at IS NULL AND appointment_id IS NULL AND due_at >= \(startsAt)
            """)
    }

    /// A cancelled appointment starts the clocks it stopped again (a step that fell due meanwhile is taken next round).
    func appointmentCancelled(_ appointmentID: UUID) async throws {
        try await session.query("UPDATE lesion_follow_ups SET appointment_id = NULL WHERE appointment_id = \(appointmentID)")
    }

    enum Recorded: Sendable {
        case recorded(FollowUp, started: LesionFollowUp.Stage?)
        /// The same finding for the same stage again (a retried request).
        case duplicate(FollowUp)
        case notFound
        case conflict(String)
    }

    /// A consultant's finding: it closes the follow-up or starts its treatment stage (`LesionFollowUp.transition`).
    func record(_ finding: LesionFollowUp.Finding, followUpID: UUID, patientID: String, consultantID: String, at now: Date) async throws
        -> Recorded
    {
        guard
            let (stageText, closed, outcome) = try await session.fetchAll(
                """
                SELECT stage, closed_at IS NOT NULL, outcome FROM lesion_follow_ups
                WHERE follow_up_id = \(followUpID) AND patient_id = \(patientID) FOR UPDATE
                """, as: (String, Bool, String?).self
            ).first, let stage = LesionFollowUp.Stage(rawValue: stageText)
        else { return .notFound }
        let earlier = try await session.fetchAll(
            "SELECT finding FROM lesion_follow_up_findings WHERE follow_up_id = \(followUpID) AND stage = \(stage.rawValue)", as: String.self
        ).first
        if let earlier {
            guard earlier == finding.rawValue, let followUp = try await read(followUpID) else {
                return .conflict("a finding (\(earlier)) is already recorded for the \(stage.rawValue) stage")
            }
            return .duplicate(followUp)
        }
        guard !closed else { return .conflict("the follow-up is closed (\(outcome ?? "closed"))") }
        let transition = LesionFollowUp.transition(from: stage, on: finding)
        if case .refused(let reason) = transition { return .conflict(reason) }
        try await session.query(
            """
            INSERT INTO lesion_follow_up_findings (follow_up_id, patient_id, stage, finding, consultant_id, recorded_at)
            VALUES (\(followUpID), \(patientID), \(stage.rawValue), \(finding.rawValue), \(consultantID), \(now))
            """)
        var started: LesionFollowUp.Stage?
        switch transition {
        case .close:
            try await session.query(
                "UPDATE lesion_follow_ups SET closed_at = \(now), outcome = \(finding.rawValue), next_step_at = NULL WHERE follow_up_id = \(followUpID)"
            )
        case .start(let next):
            started = next
            try await session.query(
                """
                UPDATE lesion_follow_ups SET stage = \(next.rawValue), stage_started_at = \(now), due_at = \(now.addingTimeInterval(next.window)),
                    reminders_sent = 0, next_step_at = \(LesionFollowUp.next(next, startedAt: now, remindersSent: 0).at),
                    appointment_id = NULL, escalated_at = NULL
                WHERE follow_up_id = \(followUpID)
                """)
        case .refused:
            break
        }
        guard let followUp = try await read(followUpID) else { return .notFound }
        return .recorded(followUp, started: started)
    }

    func read(_ id: UUID) async throws -> FollowUp? {
        try await followUps(id: id, patientID: nil, after: nil, limit: 1).first
    }

    /// A page of the patient's follow-ups, newest first.
    func list(patientID: String, page: PageRequest) async throws -> Page<FollowUp> {
        let rows = try await followUps(id: nil, patientID: patientID, after: try page.timeAndUUID(), limit: page.limit + 1)
        return Page(rows: rows, request: page) { .init(date: $0.openedAt, id: $0.followUpId) }
    }

    /// One follow-up by id, or a patient's, newest first, after a cursor.
    private func followUps(id: UUID?, patientID: String?, after: (Date, UUID)?, limit: Int) async throws -> [FollowUp] {
        let rows = try await session.fetchAll(
            """
            SELECT follow_up_id, photo_id, category, stage, stage_started_at, due_at, appointment_id, reminders_sent, escalated_at,
                   opened_at, closed_at, outcome
            FROM lesion_follow_ups
            WHERE (\(id == nil) OR follow_up_id = \(id ?? UUID())) AND (\(patientID == nil) OR patient_id = \(patientID ?? ""))
              AND (\(after == nil) OR (opened_at, follow_up_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY opened_at DESC, follow_up_id DESC LIMIT \(limit)
            """, as: (UUID, String, String, String, Date, Date, UUID?, Int, Date?, Date, Date?, String?).self)
        let ids = rows.map(\.0)
        var findings: [UUID: [Finding]] = [:]
        if !ids.isEmpty {
            for (id, stage, finding, consultant, at) in try await session.fetchAll(
                """
                SELECT follow_up_id, stage, finding, consultant_id, recorded_at FROM lesion_follow_up_findings
                WHERE follow_up_id = ANY(\(ids)) ORDER BY recorded_at
                """, as: (UUID, String, String, String, Date).self)
            {
                guard let stage = LesionFollowUp.Stage(rawValue: stage), let finding = LesionFollowUp.Finding(rawValue: finding) else { continue }
                findings[id, default: []].append(Finding(stage: stage, finding: finding, consultantId: consultant, recordedAt: at))
            }
        }
        return rows.compactMap { row in
            guard let stage = LesionFollowUp.Stage(rawValue: row.3) else { return nil }
            let status =
                row.10 != nil ? "closed" : row.6 != nil ? "appointmentBooked" : row.8 != nil ? "overdue" : "open"
            return FollowUp(
                followUpId: row.0, photoId: row.1, category: row.2, stage: stage, stageStartedAt: row.4, dueAt: row.5, status: status,
                appointmentId: row.6, remindersSent: row.7, escalatedAt: row.8, openedAt: row.9, closedAt: row.10, outcome: row.11,
                findings: findings[row.0] ?? [])
        }
    }
}
