import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation

/// The follow-ups' part of notification's handler: a classifier's answer that advises a dermatologist opens the
/// photo's follow-up (`LesionFollowUps`), a later answer about the same photo that does not closes it, and so does the
/// photo's deletion.
extension NotificationHandler {
    func followUp(_ assessment: AssessmentRecorded, event: ValidatedEvent, context: HandlerContext, alertBatch: inout AlertBatch?) async throws {
        guard case .lesionPhoto(let category) = assessment.category else { return }
        guard let patientID = event.patientID else { throw UnprocessableEvent("the event names no patient") }
        let store = LesionFollowUpStore(context)
        let now = clock.now
        guard LesionFollowUp.opens(category) else {
            if let closed = try await store.close(patientID: patientID, photoID: assessment.subjectID, outcome: "reassessed", at: now) {
                try await withdraw(about: closed, reason: .superseded, event: event, context: context)
            }
            return
        }
        // Named after the answer that opened it: a redelivered answer opens nothing twice, and a rescored one keeps the
        // clock the first started.
        let id = UUID.named("lesion-follow-up/\(assessment.assessmentID.uuidString.lowercased())")
        guard try await store.open(id, patientID: patientID, photoID: assessment.subjectID, category: category, at: now) else { return }
        // Asked here, not of the batch: the batch knows only the care teams its alerts reach (not an uncertain answer's).
        let consultants = try await CareTeamStore(context).activeConsultants(patientID: patientID)
        let rows = LesionFollowUps.opened(id, stage: .checkUp, patientID: patientID, consultants: consultants, at: now)
        if alertBatch == nil {
            try await NotificationDelivery.deliver(rows, traceID: event.traceID, context: context)
        } else {
            alertBatch?.deliverLater(rows, traceID: event.traceID)
        }
    }

    func closeFollowUp(_ withdrawn: AssessmentWithdrawn, event: ValidatedEvent, context: HandlerContext) async throws {
        guard withdrawn.kind == .lesionPhoto, let patientID = event.patientID else { return }
        if let closed = try await LesionFollowUpStore(context).close(
            patientID: patientID, photoID: withdrawn.subjectID, outcome: "withdrawn", at: clock.now)
        {
            try await withdraw(about: closed, reason: .photoDeleted, event: event, context: context)
        }
    }
}
