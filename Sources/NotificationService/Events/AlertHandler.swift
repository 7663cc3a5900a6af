import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

/// Decides alerts from what scoring-service publishes:
/// - an assessment or exam report of severity attention or urgent raises an alert;
/// - a care-tracking flag raises an alert;
/// - an assessment that supersedes another withdraws the alerts of the one it replaces;
/// - a withdrawn assessment withdraws its alerts.
struct AlertHandler: EventHandler {
    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        switch try NotificationInput(event) {
        case .assessmentRecorded(let assessment):
            if let previous = assessment.supersedes { try await withdrawAlerts(about: previous, reason: .superseded, event: event, context: context) }
            try await raise(
                about: assessment.assessmentID, kind: assessment.kind.rawValue, severity: assessment.severity, category: assessment.category,
                event: event, context: context)
        case .examResultFlagged(let exam):
            if let previous = exam.supersedes { try await withdrawAlerts(about: previous, reason: .superseded, event: event, context: context) }
            let worst = exam.items.max { $0.severity < $1.severity }
            try await raise(
                about: exam.assessmentID, kind: AssessmentKind.examResult.rawValue, severity: exam.severity,
                category: worst?.interpretation.rawValue ?? InterpretationCode.N.rawValue, event: event, context: context)
        case .careTrackingFlagged(let flag):
            try await raise(about: flag.flagID, kind: "careTracking", severity: max(flag.severity, .attention), category: flag.rule.rawValue, event: event, context: context)
        case .assessmentWithdrawn(let withdrawn):
            let reason: AlertWithdrawalReason = withdrawn.reason == .enteredInError ? .enteredInError : .measurementDeleted
            try await withdrawAlerts(about: withdrawn.assessmentID, reason: reason, event: event, context: context)
        case .notConsumed(let type):
            throw UnprocessableEvent("notification-service does not consume \(type.rawValue)")
        }
    }

    private func raise(about: UUID, kind: String, severity: Severity, category: String, event: ValidatedEvent, context: HandlerContext) async throws {
        guard severity >= .attention else { return }
        let alert = AlertRaised(
            alertID: UUID.timeOrdered(), sourceEventID: event.eventID, aboutID: about, kind: kind, severity: severity, category: category,
            messageKey: "alert.\(kind).\(category)", raisedAt: Date())
        let inserted = try await AlertStore(context).insert(alert, patientID: event.patientID)
        if inserted { try await context.publish(context.envelope(for: alert, causedBy: event)) }
    }

    private func withdrawAlerts(about: UUID, reason: AlertWithdrawalReason, event: ValidatedEvent, context: HandlerContext) async throws {
        let withdrawn = try await AlertStore(context).withdraw(about: about, reason: reason)
        for alertID in withdrawn {
            try await context.publish(context.envelope(
                for: AlertWithdrawn(alertID: alertID, sourceEventID: event.eventID, reason: reason, withdrawnAt: Date()), causedBy: event))
        }
    }
}
