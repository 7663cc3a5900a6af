import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation

/// Assesses what ingest recorded, withdraws what it retracted, and looks for trends after each new assessment.
/// Everything it writes and publishes happens in the event's transaction.
struct ScoringHandler: EventHandler {
    /// The classifier models whose answers about skin photos are accepted (`CLASSIFIER_MODELS`).
    var classifiers = ClassifierModels()

    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        // Areas and their readings are keyed by area; every other event belongs to a patient.
        func patientID() throws -> String {
            guard let patientID = event.patientID else { throw UnprocessableEvent("\(event.eventType.rawValue) without a patientId") }
            return patientID
        }
        switch try ScoringInput(event) {
        case .areaRegistered(let area):
            try await ReportEnvironmentStore(context).register(area)
        case .uvIndexRecorded(let reading):
            try await ReportEnvironmentStore(context).record(reading)
        case .airQualityRecorded(let reading):
            try await ReportEnvironmentStore(context).record(reading)
        case .environmentSubscriptionChanged(let change):
            try await ReportEnvironmentStore(context).apply(change, patientID: try patientID())
        case .measurementDeleted(let deleted):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: AssessmentKind(deleted.kind),
                subjectID: deleted.measurementID.uuidString.lowercased(),
                reason: .measurementDeleted, event: event, context: context)
        case .examResultEnteredInError(let retracted):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: .examResult,
                subjectID: ExamKey(institutionID: retracted.institutionID, examID: retracted.examID).subjectID,
                reason: .enteredInError, event: event, context: context)
        case .melanomaRiskProfileWithdrawn(let withdrawal):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: .melanomaRisk, subjectID: withdrawal.profileID.uuidString.lowercased(),
                reason: .profileWithdrawn, event: event, context: context)
        case .examResultReleased(let release):
            try await ReportStore(context).released(
                patientID: try patientID(), exam: ExamKey(institutionID: release.institutionID, examID: release.examID), revision: release.revision,
                at: release.releasedAt)
        case .mealRecorded(let meal):
            try await NutritionAnalysis.recorded(meal, event: event, patientID: try patientID(), context: context)
        case .mealDeleted(let deletion):
            try await NutritionAnalysis.deleted(deletion, event: event, patientID: try patientID(), context: context)
        case .lesionPhotoRecorded(let photo):
            try await PhotoRegister(context).recorded(photo, patientID: try patientID())
        case .lesionPhotoDeleted(let deletion):
            let patientID = try patientID()
            guard try await PhotoRegister(context).deleted(deletion.photoID, patientID: patientID) else { return }
            try await withdraw(
                AssessmentStore(context), patientID: patientID, kind: .lesionPhoto, subjectID: deletion.photoID.uuidString.lowercased(),
                reason: .photoDeleted, event: event, context: context)
        case .patientDemographicsChanged(let change):
            try await DemographicsStore(context).apply(change, patientID: try patientID())
        case .lesionPhotoClassified(let answer):
            // Refused before anything is stored, each with its reason on the dead-letter topic. (A probability outside
            // 0–1 never gets here: the event's schema refuses it.)
            guard classifiers.contains(name: answer.model, version: answer.modelVersion) else {
                throw UnprocessableEvent(
                    "the classifier model \(answer.model) \(answer.modelVersion) is not registered (CLASSIFIER_MODELS)")
            }
            guard try await PhotoRegister(context).knows(answer.photoID, patientID: try patientID()) else {
                // Not retried here: a retry would hold back the patient's other events, the announcement among them.
                // An answer that outran the announcement is replayed from the dead-letter topic (docs/operations.md).
                throw UnprocessableEvent("no photo \(answer.photoID.uuidString.lowercased()) of this patient is known (lesion-photo.recorded)")
            }
            try await assess([event], context: context)
        case .assess:
            // One event is a run of one: the same set-based path as a batch.
            try await assess([event], context: context)
        case .notConsumed(let type):
            // A patient's event lacking its patient is refused as that first, as every patient case refuses it.
            _ = try patientID()
            throw UnprocessableEvent("scoring-service does not consume \(type.rawValue)")
        }
    }

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

    private func withdraw(
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
