import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

/// The alerts part of notification's handler: the notice each finding raises and for whom, its delivery with the
/// day's alert-fatigue rule and the escalation of urgent ones, and the withdrawal of notices whose finding went.
extension NotificationHandler {
    /// What one notification says, for whichever recipients receive it.
    struct Notice {
        let about: UUID
        let topic: AlertTopic
        let severity: Severity
        var kind: String { topic.kind }
        var category: String { topic.category }
        var subjectID: String?
        var outOfRangeCount: Int?
        /// The institution that reported the finding (whose on-call channel hears of it if nobody acknowledges it).
        var institutionID: String?
    }

    /// A notice and whom it is for: the patient, the care team, both, or an institution.
    struct Intent {
        let notice: Notice
        let patient: Bool
        let careTeam: Bool
        /// The institution told as well (its staff share its inbox).
        var institution: String? = nil
    }

    /// The notice an input raises, if any, and for whom.
    static func intent(_ input: NotificationInput, event: ValidatedEvent) -> Intent? {
        switch input {
        case .assessmentRecorded(let assessment):
            // A classifier's answer about a skin photo is the patient's to hear whatever it says (its tip carries the
            // warning that it can be wrong); the care team hears of a suspicious one at once.
            if case .lesionPhoto(let category) = assessment.category {
                let notice = Notice(about: assessment.assessmentID, topic: .assessment(assessment.category), severity: assessment.severity)
                return Intent(notice: notice, patient: true, careTeam: category == .suspicious)
            }
            guard assessment.severity >= .attention else { return nil }
            let notice = Notice(about: assessment.assessmentID, topic: .assessment(assessment.category), severity: assessment.severity)
            return Intent(notice: notice, patient: true, careTeam: true)
        case .examResultFlagged(let exam):
            guard exam.severity >= .attention else { return nil }
            let worst = exam.items.max { $0.severity < $1.severity }
            let notice = Notice(
                about: exam.assessmentID, topic: .assessment(.examResult(worst?.interpretation ?? .N)), severity: exam.severity,
                institutionID: exam.institutionID)
            return Intent(notice: notice, patient: false, careTeam: true)
        case .careTrackingFlagged(let flag):
            let notice = Notice(about: flag.flagID, topic: .careTracking(flag.rule), severity: max(flag.severity, .attention))
            return Intent(notice: notice, patient: true, careTeam: true)
        case .examResultReleased(let release):
            let notice = Notice(
                about: event.eventID, topic: .examResultReady(revised: release.revision > 1), severity: .normal,
                subjectID: ExamKey(institutionID: release.institutionID, examID: release.examID).subjectID,
                outOfRangeCount: release.outOfRangeCount)
            return Intent(notice: notice, patient: true, careTeam: false)
        case .examResultEnteredInError(let retraction):
            // A retraction the institution made needs no word to it; a patient's "this is not me" does.
            guard retraction.disputedByPatient == true else { return nil }
            let notice = Notice(about: event.eventID, topic: .examResultDisputed, severity: .normal, institutionID: retraction.institutionID)
            return Intent(notice: notice, patient: false, careTeam: false, institution: retraction.institutionID)
        case .assessmentWithdrawn, .areaRegistered, .uvIndexRecorded, .airQualityRecorded, .nothingToDo, .notConsumed:
            return nil
        }
    }

    /// Stores the notice for the patient and/or the consultants of the patient's care team, and publishes each new one.
    /// - Parameter alertBatch: the batch's care teams and alerts of today, else nil to ask the database.
    func notify(_ intent: Intent, event: ValidatedEvent, context: HandlerContext, alertBatch: inout AlertBatch?) async throws {
        guard let patientID = event.patientID else { throw UnprocessableEvent("the event names no patient to notify") }
        let notice = intent.notice
        var recipients: [NotificationStore.Recipient] = intent.patient ? [.init(id: patientID, role: .patient)] : []
        if intent.careTeam {
            let consultants =
                if let alertBatch { alertBatch.careTeam(of: patientID) } else {
                    try await CareTeamStore(context).activeConsultants(patientID: patientID)
                }
            recipients += consultants.map { .init(id: $0, role: .consultant) }
        }
        if let institution = intent.institution { recipients.append(.init(id: institution, role: .institution)) }
        if notice.severity == .attention {
            // Alert fatigue: one attention alert per recipient, kind and category a day (the recipient's day); a
            // finding in another category, or an urgent one, alerts at once. Urgent findings are never held back:
            // each may be the one that needs acting on, and each is escalated on its own.
            let subject = AlertBatch.Subject(patientID: patientID, kind: notice.kind, category: notice.category)
            let alerted =
                if let alertBatch { alertBatch.alertedToday(recipients, about: subject) } else {
                    try await NotificationStore(context).alertedToday(recipients, about: subject)
                }
            recipients.removeAll { alerted.contains($0) }
            guard !recipients.isEmpty else { return }
        }
        let now = Date()
        let rows = recipients.map { recipient in
            NotificationStore.Row(
                notice.topic, severity: notice.severity, source: event.eventID, about: notice.about, to: recipient, patientID: patientID,
                raisedAt: now, subjectID: notice.subjectID, outOfRangeCount: notice.outOfRangeCount)
        }
        if alertBatch == nil {
            try await NotificationDelivery.deliver(rows, traceID: event.traceID, context: context)
        } else {
            alertBatch?.deliverLater(rows, traceID: event.traceID)
        }
        alertBatch?.alerted(
            recipients, about: AlertBatch.Subject(patientID: patientID, kind: notice.kind, category: notice.category), severity: notice.severity)
        if intent.careTeam, notice.severity == .urgent {
            try await Escalation(context).watch(
                about: notice.about, patientID: patientID, institutionID: notice.institutionID, kind: notice.kind, category: notice.category,
                sourceEventID: event.eventID, dueAt: now.addingTimeInterval(Double(escalationDelay.components.seconds)))
        }
    }

    func withdraw(
        about: UUID? = nil, subjectID: String? = nil, reason: AlertWithdrawalReason, event: ValidatedEvent, context: HandlerContext
    ) async throws {
        if let about { try await Escalation(context).cancel(about: about) }
        try await NotificationDelivery.withdraw(about: about, subjectID: subjectID, reason: reason, cause: event, context: context)
    }
}
