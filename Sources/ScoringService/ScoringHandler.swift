import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// scoring-service's consumer: each event goes to the capability it is for. Everything a part writes and publishes
/// happens in the event's transaction.
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
        case .assess:
            // One event is a run of one: the same set-based path as a batch.
            try await assess([event], context: context)
        case .measurementDeleted(let deleted):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: AssessmentKind(deleted.kind),
                subjectID: deleted.measurementID.uuidString.lowercased(), reason: .measurementDeleted, event: event, context: context)
        case .examResultEnteredInError(let retracted):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: .examResult,
                subjectID: ExamKey(institutionID: retracted.institutionID, examID: retracted.examID).subjectID, reason: .enteredInError,
                event: event, context: context)
        case .melanomaRiskProfileWithdrawn(let withdrawal):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: .melanomaRisk, subjectID: withdrawal.profileID.uuidString.lowercased(),
                reason: .profileWithdrawn, event: event, context: context)
        case .npiInputsDeleted(let deletion):
            try await withdraw(
                AssessmentStore(context), patientID: try patientID(), kind: .nottinghamPrognosticIndex,
                subjectID: deletion.npiID.uuidString.lowercased(),
                reason: .npiDeleted, event: event, context: context)
        case .examResultReleased(let release):
            try await ReportStore(context).released(
                patientID: try patientID(), exam: ExamKey(institutionID: release.institutionID, examID: release.examID), revision: release.revision,
                at: release.releasedAt)
        case .areaRegistered(let area):
            try await ReportEnvironmentStore(context).register(area)
        case .uvIndexRecorded(let reading):
            try await ReportEnvironmentStore(context).record(reading)
        case .airQualityRecorded(let reading):
            try await ReportEnvironmentStore(context).record(reading)
        case .environmentSubscriptionChanged(let change):
            try await ReportEnvironmentStore(context).apply(change, patientID: try patientID())
        case .mealRecorded(let meal):
            try await NutritionAnalysis.recorded(meal, event: event, patientID: try patientID(), context: context)
        case .mealDeleted(let deletion):
            try await NutritionAnalysis.deleted(deletion, event: event, patientID: try patientID(), context: context)
        case .lesionPhotoRecorded(let photo):
            try await PhotoRegister(context).recorded(photo, patientID: try patientID())
        case .lesionPhotoDeleted(let deletion):
            try await photoDeleted(deletion, patientID: try patientID(), event: event, context: context)
        case .lesionPhotoClassified(let answer):
            try await photoClassified(answer, patientID: try patientID(), event: event, context: context)
        case .patientDemographicsChanged(let change):
            try await DemographicsStore(context).apply(change, patientID: try patientID())
        case .notConsumed(let type):
            // A patient's event lacking its patient is refused as that first, as every patient case refuses it.
            _ = try patientID()
            throw UnprocessableEvent("scoring-service does not consume \(type.rawValue)")
        }
    }

    /// Runs of assessable events go to the set-based assessment at once; anything else in between is applied singly,
    /// so the order of a patient's events is kept.
    func handle(batch: [ValidatedEvent], context: HandlerContext) async throws {
        var run: [ValidatedEvent] = []
        for event in batch {
            if case .assess? = try? ScoringInput(event) {
                run.append(event)
            } else {
                try await assess(run, context: context)
                run = []
                try await handle(event, context: context)
            }
        }
        try await assess(run, context: context)
    }
}
