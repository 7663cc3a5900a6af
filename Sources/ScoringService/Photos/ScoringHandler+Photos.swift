import CaretideRuntime
import CaretideSchemas
import Foundation

/// The skin photos part of scoring's handler: a deleted photo's assessment is withdrawn, and a classifier's answer
/// is assessed once the model is registered and the photo known.
extension ScoringHandler {
    func photoDeleted(_ deletion: LesionPhotoDeleted, patientID: String, event: ValidatedEvent, context: HandlerContext) async throws {
        guard try await PhotoRegister(context).deleted(deletion.photoID, patientID: patientID) else { return }
        try await withdraw(
            AssessmentStore(context), patientID: patientID, kind: .lesionPhoto, subjectID: deletion.photoID.uuidString.lowercased(),
            reason: .photoDeleted, event: event, context: context)
    }

    func photoClassified(_ answer: LesionPhotoClassified, patientID: String, event: ValidatedEvent, context: HandlerContext) async throws {
        // Refused before anything is stored, each with its reason on the dead-letter topic. (A probability outside
        // 0–1 never gets here: the event's schema refuses it.)
        guard classifiers.contains(name: answer.model, version: answer.modelVersion) else {
            throw UnprocessableEvent("the classifier model \(answer.model) \(answer.modelVersion) is not registered (CLASSIFIER_MODELS)")
        }
        guard try await PhotoRegister(context).knows(answer.photoID, patientID: patientID) else {
            // Not retried here: a retry would hold back the patient's other events, the announcement among them.
            // An answer that outran the announcement is replayed from the dead-letter topic (docs/operations.md).
            throw UnprocessableEvent("no photo \(answer.photoID.uuidString.lowercased()) of this patient is known (lesion-photo.recorded)")
        }
        try await assess([event], context: context)
    }
}
