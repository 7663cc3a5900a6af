import CaretideRuntime
import CaretideStore
import CaretideSchemas
import Foundation
import PostgresNIO

/// Raises an alert for every assessment whose severity is not normal: the patient's inbox gets a row and
/// `caretide.alerts` gets an `alert.raised` event, in one transaction.
struct AssessmentAlertHandler: EventHandler {
    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        guard let assessment = event.payload(as: BloodPressureAssessed.self) else {
            throw UnprocessableEvent("notification-service does not handle \(event.eventType.rawValue)")
        }
        guard assessment.severity != "normal" else { return }
        let alert = AlertRaised(
            alertID: UUID(), sourceEventID: event.eventID, kind: "blood-pressure", severity: assessment.severity,
            category: assessment.category, messageKey: "alert.bloodPressure.\(assessment.category)", raisedAt: Date())
        let inserted = try await context.connection.fetchAll(
            """
            INSERT INTO alerts (alert_id, source_event_id, patient_id, kind, severity, category, message_key, raised_at)
            VALUES (\(alert.alertID), \(event.eventID), \(event.patientID), \(alert.kind), \(alert.severity), \(alert.category),
                    \(alert.messageKey), \(alert.raisedAt))
            ON CONFLICT (source_event_id) DO NOTHING RETURNING 1
            """, as: Int.self, logger: context.logger
        ).count == 1
        if inserted {
            try await context.publish(context.envelope(for: alert, causedBy: event))
        }
    }
}
