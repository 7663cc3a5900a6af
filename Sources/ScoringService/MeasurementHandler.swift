import CaretideDomain
import CaretideRuntime
import CaretideStore
import CaretideSchemas
import Foundation
import PostgresNIO

/// Assesses each recorded measurement. The assessment row's unique source event id makes a redelivery harmless even
/// beyond the consumer's processed-events record.
struct MeasurementHandler: EventHandler {
    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        guard let reading = event.payload(as: BloodPressureRecorded.self) else {
            throw UnprocessableEvent("scoring-service does not assess \(event.eventType.rawValue)")
        }
        let assessment: BloodPressureAssessment
        do {
            assessment = try BloodPressure.assess(systolic: reading.systolic, diastolic: reading.diastolic)
        } catch {
            throw UnprocessableEvent("blood pressure outside the assessable range")
        }
        let payload = BloodPressureAssessed(
            assessmentID: UUID(), sourceEventID: event.eventID, measurementID: reading.measurementID, takenAt: reading.takenAt,
            category: assessment.category.rawValue, severity: assessment.severity.rawValue, tip: assessment.tip.rawValue,
            ruleSetVersion: RuleSetVersion.current, systolic: reading.systolic, diastolic: reading.diastolic)
        let inserted = try await context.connection.fetchAll(
            """
            INSERT INTO blood_pressure_assessments (assessment_id, source_event_id, patient_id, measurement_id, taken_at,
                systolic, diastolic, category, severity, tip, rule_set_version)
            VALUES (\(payload.assessmentID), \(event.eventID), \(event.patientID), \(reading.measurementID), \(reading.takenAt),
                \(reading.systolic), \(reading.diastolic), \(payload.category), \(payload.severity), \(payload.tip), \(payload.ruleSetVersion))
            ON CONFLICT (source_event_id) DO NOTHING RETURNING 1
            """, as: Int.self, logger: context.logger
        ).count == 1
        if inserted {
            try await context.publish(context.envelope(for: payload, causedBy: event))
        }
    }
}
