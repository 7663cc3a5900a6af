import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import PostgresNIO

/// Decides notifications from what scoring-service finds and what ingest-service releases:
/// - an assessment of severity attention or urgent, or a care-tracking flag, notifies the patient and every
///   consultant whose grant from the patient is in force (care tracking; urgent findings stay urgent);
/// - a flagged exam report notifies the care team at once; the patient hears of a report when it is released to them
///   (`exam-result.released`: results ready, or revised, with how many items are out of range and no values);
/// - an assessment that supersedes another withdraws the notifications of the one it replaces, a withdrawn assessment
///   its own, a report entered in error its results-ready notices;
/// - a UV index or air-quality reading alerts the patients subscribed to its area (`EnvironmentAlerting`).
struct AlertHandler: EventHandler {
    /// What one notification says, for whichever recipients receive it.
    struct Notice {
        let about: UUID
        let kind: String
        let severity: Severity
        let category: String
        var messageKey: String { "alert.\(kind).\(category)" }
        var subjectID: String?
        var outOfRangeCount: Int?
    }

    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        switch try NotificationInput(event) {
        case .assessmentRecorded(let assessment):
            if let previous = assessment.supersedes { try await withdraw(about: previous, reason: .superseded, event: event, context: context) }
            guard assessment.severity >= .attention else { return }
            let notice = Notice(about: assessment.assessmentID, kind: assessment.kind.rawValue, severity: assessment.severity, category: assessment.category)
            try await notify(notice, patient: true, careTeam: true, event: event, context: context)
        case .examResultFlagged(let exam):
            if let previous = exam.supersedes { try await withdraw(about: previous, reason: .superseded, event: event, context: context) }
            guard exam.severity >= .attention else { return }
            let worst = exam.items.max { $0.severity < $1.severity }
            let notice = Notice(
                about: exam.assessmentID, kind: AssessmentKind.examResult.rawValue, severity: exam.severity,
                category: worst?.interpretation.rawValue ?? InterpretationCode.N.rawValue)
            try await notify(notice, patient: false, careTeam: true, event: event, context: context)
        case .careTrackingFlagged(let flag):
            let notice = Notice(about: flag.flagID, kind: "careTracking", severity: max(flag.severity, .attention), category: flag.rule.rawValue)
            try await notify(notice, patient: true, careTeam: true, event: event, context: context)
        case .assessmentWithdrawn(let withdrawn):
            let reason: AlertWithdrawalReason = withdrawn.reason == .enteredInError ? .enteredInError : .measurementDeleted
            try await withdraw(about: withdrawn.assessmentID, reason: reason, event: event, context: context)
        case .examResultReleased(let release):
            let notice = Notice(
                about: event.eventID, kind: "examResultReady", severity: .normal, category: release.revision == 1 ? "released" : "revised",
                subjectID: AssessmentEngine.examSubjectID(institutionID: release.institutionID, examID: release.examID),
                outOfRangeCount: release.outOfRangeCount)
            try await notify(notice, patient: true, careTeam: false, event: event, context: context)
        case .examResultEnteredInError(let retraction):
            let subject = AssessmentEngine.examSubjectID(institutionID: retraction.institutionID, examID: retraction.examID)
            try await withdraw(subjectID: subject, reason: .enteredInError, event: event, context: context)
        case .areaRegistered(let area):
            try await EnvironmentStore(context).apply(area)
        case .uvIndexRecorded(let reading):
            try await EnvironmentAlerting(context: context, event: event).uvIndex(reading)
        case .airQualityRecorded(let reading):
            try await EnvironmentAlerting(context: context, event: event).airQuality(reading)
        case .nothingToDo:
            return
        case .notConsumed(let type):
            throw UnprocessableEvent("notification-service does not consume \(type.rawValue)")
        }
    }

    /// Stores the notice for the patient and/or the consultants of the patient's care team, and publishes each new one.
    private func notify(_ notice: Notice, patient: Bool, careTeam: Bool, event: ValidatedEvent, context: HandlerContext) async throws {
        guard let patientID = event.patientID else { throw UnprocessableEvent("the event names no patient to notify") }
        var recipients: [(String, RecipientRole)] = patient ? [(patientID, .patient)] : []
        if careTeam {
            recipients += try await CareTeamStore.activeConsultants(patientID: patientID, on: context.connection, logger: context.logger)
                .map { ($0, .consultant) }
        }
        let now = Date()
        let rows = recipients.map { recipient, role in
            NotificationStore.Row(
                alert: AlertRaised(
                    alertID: UUID.timeOrdered(), sourceEventID: event.eventID, aboutID: notice.about, kind: notice.kind, severity: notice.severity,
                    category: notice.category, messageKey: notice.messageKey, raisedAt: now, recipientID: recipient, recipientRole: role,
                    outOfRangeCount: notice.outOfRangeCount),
                patientID: patientID, subjectID: notice.subjectID, text: nil)
        }
        for row in try await NotificationStore(context).insert(rows) {
            try await context.publish(context.envelope(for: row.alert, causedBy: event))
        }
    }

    private func withdraw(
        about: UUID? = nil, subjectID: String? = nil, reason: AlertWithdrawalReason, event: ValidatedEvent, context: HandlerContext
    ) async throws {
        let withdrawn = try await NotificationStore(context).withdraw(about: about, subjectID: subjectID, reason: reason)
        for alertID in withdrawn {
            try await context.publish(context.envelope(
                for: AlertWithdrawn(alertID: alertID, sourceEventID: event.eventID, reason: reason, withdrawnAt: Date()), causedBy: event))
        }
    }
}
