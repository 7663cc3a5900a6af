import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation

/// The clock a suspicious or uncertain skin photo starts (`LesionFollowUp`): opened by the classifier's answer, told
/// to the patient and the care team; the patient reminded as each stage goes on; the care team alerted as urgent when
/// a stage runs out with no appointment booked by its date and no consultant's finding (the deployment's on-call
/// channel when the patient has no care team). The job's time is a `WallClock`, so a test moves it by weeks.
enum LesionFollowUps {
    static let batch = 200

    /// The notices of a stage that started: the patient's and the care team's.
    static func opened(_ id: UUID, stage: LesionFollowUp.Stage, patientID: String, consultants: [String], at now: Date) -> [NotificationStore.Row] {
        let topic = AlertTopic.lesionFollowUp(stage == .checkUp ? .checkUpOpened : .treatmentOpened)
        let source = UUID.named("lesion-follow-up/\(id.uuidString.lowercased())/\(stage.rawValue)/opened")
        let recipients = [NotificationStore.Recipient(id: patientID, role: .patient)] + consultants.map { .init(id: $0, role: .consultant) }
        return recipients.map {
            NotificationStore.Row(topic, severity: .normal, source: source, about: id, to: $0, patientID: patientID, raisedAt: now)
        }
    }

    /// One round at `now`: each due follow-up takes its steps up to then. After a pause longer than a step (a
    /// stopped service), only the latest due step is told: a reminder that the escalation has overtaken is counted,
    /// not sent.
    static func advance(now: Date, context: HandlerContext) async throws -> Int {
        let store = LesionFollowUpStore(context)
        let due = try await store.due(now: now, limit: batch)
        var rows: [NotificationStore.Row] = []
        let teams = try await CareTeamStore(context).activeConsultants(patientIDs: Array(Set(due.map(\.patientID))))
        for followUp in due {
            var sent = followUp.remindersSent
            var step = LesionFollowUp.next(followUp.stage, startedAt: followUp.stageStartedAt, remindersSent: sent)
            var told: LesionFollowUp.Step?
            while step.at <= now {
                told = step
                guard case .remind = step else { break }
                sent += 1
                step = LesionFollowUp.next(followUp.stage, startedAt: followUp.stageStartedAt, remindersSent: sent)
            }
            let id = followUp.id.uuidString.lowercased()
            let stage = followUp.stage
            switch told {
            case .remind:
                let source = UUID.named("lesion-follow-up/\(id)/\(stage.rawValue)/reminder/\(sent)")
                rows.append(
                    NotificationStore.Row(
                        .lesionFollowUp(stage == .checkUp ? .checkUpReminder : .treatmentReminder), severity: .normal, source: source,
                        about: followUp.id, to: .init(id: followUp.patientID, role: .patient), patientID: followUp.patientID, raisedAt: now))
                try await store.advance(followUp.id, remindersSent: sent, nextStepAt: step.at, escalatedAt: nil)
            case .escalate:
                let source = UUID.named("lesion-follow-up/\(id)/\(stage.rawValue)/overdue")
                let consultants = teams[followUp.patientID] ?? []
                let recipients: [NotificationStore.Recipient] =
                    consultants.isEmpty
                    ? [.init(id: Escalation.defaultChannel, role: .onCall)] : consultants.map { .init(id: $0, role: .consultant) }
                rows += recipients.map {
                    NotificationStore.Row(
                        .lesionFollowUp(stage == .checkUp ? .checkUpOverdue : .treatmentOverdue), severity: .urgent, source: source,
                        about: followUp.id, to: $0, patientID: followUp.patientID, raisedAt: now)
                }
                try await store.advance(followUp.id, remindersSent: sent, nextStepAt: nil, escalatedAt: now)
            case nil:
                try await store.advance(followUp.id, remindersSent: sent, nextStepAt: step.at, escalatedAt: nil)
            }
        }
        try await NotificationDelivery.deliver(rows, traceID: nil, context: context)
        return due.count
    }

    static func job(interval: Duration, clock: WallClock, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "skin-photo follow-ups", interval: interval, fullBatch: batch, context: context) {
            try await context.transaction { handler in try await advance(now: clock.now, context: handler) }
        }
    }
}
