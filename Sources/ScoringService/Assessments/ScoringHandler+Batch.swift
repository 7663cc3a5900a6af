import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import PostgresNIO

/// The set-based path of the assessments: a run of assessable events is applied with one lookup, one update, one
/// insert, one outbox insert and one trend query (`ScoringHandler.handle(batch:)` cuts the runs). Results equal
/// applying the events one by one.
extension ScoringHandler {
    private struct Pending {
        let event: ValidatedEvent
        let patientID: String
        let assessment: Assessment
        let assessmentID = UUID.timeOrdered()
        var supersedes: UUID?

        var subject: AssessmentStore.Subject {
            AssessmentStore.Subject(patientID: patientID, kind: assessment.kind.rawValue, subjectID: assessment.subjectID)
        }
    }

    func assess(_ events: [ValidatedEvent], context: HandlerContext) async throws {
        guard !events.isEmpty else { return }
        var pending: [Pending] = []
        for event in events {
            guard let patientID = event.patientID else { throw UnprocessableEvent("\(event.eventType.rawValue) without a patientId") }
            pending.append(Pending(event: event, patientID: patientID, assessment: try Self.assessment(of: event)))
        }
        // The standing assessment of every subject in the run, locked; then the decisions, in event order.
        let store = AssessmentStore(context)
        var standing = try await store.lockStanding(pending.map(\.subject))
        var accepted: [Pending] = []
        for var item in pending {
            let key = item.subject
            // An older revision, late, or the same one again.
            guard AssessmentStore.replaces(standing: standing[key]?.revision, with: item.assessment.subjectRevision) else { continue }
            item.supersedes = standing[key]?.id
            standing[key] = (item.assessmentID, item.assessment.subjectRevision)
            accepted.append(item)
        }
        guard !accepted.isEmpty else { return }

        // Supersede first (one standing assessment per subject), then insert the run.
        try await store.supersede(accepted.compactMap { item in item.supersedes.map { ($0, item.assessmentID) } })
        try await store.insert(
            accepted.map { item in
                AssessmentStore.NewAssessment(
                    assessmentID: item.assessmentID, sourceEventID: item.event.eventID, sourceEventType: item.event.eventType,
                    patientID: item.patientID, assessment: item.assessment, inputs: item.event.payloadDocument)
            })
        var outbox: [Outbox.Entry] = []
        for item in accepted {
            outbox.append(
                try AssessmentPublication.entry(
                    assessmentID: item.assessmentID, item.assessment, sourceEventID: item.event.eventID,
                    supersedes: item.supersedes, patientID: item.patientID, traceID: item.event.traceID, context: context))
        }
        // Trends, once per patient and kind, after the whole run is stored; the newest assessment of each triggers.
        var newest: [String: Pending] = [:]
        for item in accepted where TrendTracker.canComplete(item.assessment) { newest["\(item.patientID)|\(item.assessment.kind.rawValue)"] = item }
        let triggers = newest.values.map {
            TrendTracker.Trigger(patientID: $0.patientID, kind: $0.assessment.kind, assessmentID: $0.assessmentID, traceID: $0.event.traceID)
        }
        for (trigger, flag) in try await TrendTracker(context).flags(for: triggers) {
            outbox.append(
                try Outbox.Entry(
                    EventEnvelope(producer: context.producer, patientID: trigger.patientID, traceID: trigger.traceID, payload: flag),
                    codec: context.codec))
        }
        try await context.publish(outbox)
    }
}
