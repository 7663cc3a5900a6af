import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation

/// The assessments part of scoring's handler: the clinical rules applied to what ingest recorded, and assessments
/// withdrawn when what they assessed is retracted.
extension ScoringHandler {
    /// Applies the clinical rule to an event, or refuses it (it goes to the dead-letter topic) naming the failing fields.
    static func assessment(of event: ValidatedEvent) throws -> Assessment {
        do {
            // Dates are checked against when the event was recorded, so a redelivery or a rescore judges them alike.
            guard let result = try AssessmentEngine.assess(event.payload, now: event.occurredAt) else {
                throw UnprocessableEvent("scoring-service does not assess \(event.eventType.rawValue)")
            }
            return result
        } catch let error as DomainValidationError {
            throw UnprocessableEvent("the values cannot be assessed: " + error.issues.map(\.field).joined(separator: ", "))
        }
    }

    func withdraw(
        _ store: AssessmentStore, patientID: String, kind: AssessmentKind, subjectID: String, reason: WithdrawalReason, event: ValidatedEvent,
        context: HandlerContext
    ) async throws {
        guard let withdrawn = try await store.withdraw(patientID: patientID, kind: kind, subjectID: subjectID, reason: reason) else { return }
        try await context.publish(
            context.envelope(
                for: AssessmentWithdrawn(
                    assessmentID: withdrawn, subjectID: subjectID, kind: kind, reason: reason, sourceEventID: event.eventID), causedBy: event))
    }
}

/// The event announcing an assessment: `exam-result.flagged` for exam reports (item by item), `assessment.recorded`
/// for everything else.
enum AssessmentPublication {
    static func entry(
        assessmentID: UUID, _ assessment: Assessment, sourceEventID: UUID, supersedes: UUID?, patientID: String,
        traceID: String?, context: HandlerContext
    ) throws -> Outbox.Entry {
        // An exam report's assessment is about the report its subject names, taken at its revision and report time.
        if case .examResult = assessment.category, let exam = ExamKey(subjectID: assessment.subjectID) {
            return try Outbox.Entry(
                EventEnvelope(
                    producer: context.producer, patientID: patientID, traceID: traceID,
                    payload: ExamResultFlagged(
                        assessmentID: assessmentID, sourceEventID: sourceEventID, examID: exam.examID, institutionID: exam.institutionID,
                        revision: assessment.subjectRevision, reportedAt: assessment.observedAt, severity: assessment.severity,
                        supersedes: supersedes,
                        ruleSetVersion: assessment.ruleSetVersion, items: assessment.flaggedItems)), codec: context.codec)
        }
        return try Outbox.Entry(
            EventEnvelope(
                producer: context.producer, patientID: patientID, traceID: traceID,
                payload: AssessmentRecorded(
                    assessmentID: assessmentID, sourceEventID: sourceEventID, subjectID: assessment.subjectID,
                    category: assessment.category, severity: assessment.severity, tip: assessment.tip.rawValue,
                    ruleSetVersion: assessment.ruleSetVersion, observedAt: assessment.observedAt, supersedes: supersedes, values: assessment.values)),
            codec: context.codec)
    }
}

/// What the assessments table keeps as `result`: the rule's outcome in full.
struct StoredResult: Codable {
    let category: String
    let severity: Severity
    let tip: String
    let values: [String: Double]
    let items: [FlaggedExamLine]?

    init(_ assessment: Assessment) {
        category = assessment.category.rawValue
        severity = assessment.severity
        tip = assessment.tip.rawValue
        values = assessment.values
        items = assessment.flaggedItems.isEmpty ? nil : assessment.flaggedItems
    }
}
