import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Closed-loop reporting of critical results: an urgent finding (a hypertensive crisis, a critical lab value) that no
/// consultant of the patient's care team has acknowledged within the delay (30 minutes) escalates to the on-call
/// channel of the institution that reported it, or, for a patient's own measurement, to the deployment's on-call
/// channel (`on-call`). A finding withdrawn before then is not escalated.
struct Escalation: ServiceStore {
    let session: StoreSession

    /// Where escalations without an institution go.
    static let defaultChannel = "on-call"
    static let batch = 100

    /// Starts the clock for an urgent finding (once per finding).
    func watch(about: UUID, patientID: String, institutionID: String?, kind: String, category: String, sourceEventID: UUID, dueAt: Date) async throws
    {
        try await session.query(
            """
            INSERT INTO escalations (about_id, patient_id, institution_id, kind, category, source_event_id, due_at)
            VALUES (\(about), \(patientID), \(institutionID), \(kind), \(category), \(sourceEventID), \(dueAt))
            ON CONFLICT (about_id) DO NOTHING
            """)
    }

    /// Stops the clock of findings withdrawn before it ran out.
    func cancel(about: UUID) async throws {
        try await session.query("DELETE FROM escalations WHERE about_id = \(about) AND outcome IS NULL")
    }

    /// Escalates the findings whose time ran out unacknowledged; closes those a consultant acknowledged. Rows are locked
    /// with SKIP LOCKED, so replicas share them and none escalates twice.
    static func escalateDue(context: HandlerContext) async throws -> Int {
        let due = try await context.connection.fetchAll(
            """
            UPDATE escalations e SET outcome = CASE WHEN EXISTS (
                    SELECT 1 FROM notifications n WHERE n.about_id = e.about_id AND n.recipient_role = 'consultant' AND n.acknowledged_at IS NOT NULL)
                THEN 'acknowledged' ELSE 'escalated' END, closed_at = now()
            WHERE about_id IN (
                SELECT about_id FROM escalations WHERE outcome IS NULL AND due_at <= now() ORDER BY due_at LIMIT \(batch) FOR UPDATE SKIP LOCKED)
            RETURNING about_id, patient_id, institution_id, kind, category, source_event_id, outcome
            """, as: (UUID, String, String?, String, String, UUID, String).self, logger: context.logger)
        try await NotificationDelivery.deliver(notices(due, now: Date()), traceID: nil, context: context)
        return due.count
    }

    /// The notifications of closed findings, apart from the database so the rule can be checked alone: each row is
    /// (about, patient, institution, kind, category, source event, outcome). One a consultant acknowledged tells nobody;
    /// one escalated is urgent news for the on-call channel of the institution that reported it, or the deployment's
    /// (`defaultChannel`) for a patient's own measurement.
    static func notices(_ closed: [(UUID, String, String?, String, String, UUID, String)], now: Date) -> [NotificationStore.Row] {
        closed.filter { $0.6 == "escalated" }.map { about, patient, institution, kind, category, source, _ in
            NotificationStore.Row(
                .escalation(kind: kind, category: category), severity: .urgent, source: source, about: about,
                to: .init(id: institution ?? defaultChannel, role: .onCall), patientID: patient, raisedAt: now)
        }
    }

    static func job(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "escalation of unacknowledged urgent findings", interval: interval, fullBatch: batch, context: context) {
            try await context.transaction { handler in try await escalateDue(context: handler) }
        }
    }
}
