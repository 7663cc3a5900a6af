import CaretideDomain
import Foundation

/// An alert was raised for a patient (notification-service → `caretide.alerts`, read by downstream consumers).
public struct AlertRaised: EventPayload {
    public static let eventType = EventType.alertRaised

    public var alertID: UUID
    /// The event that caused the alert.
    public var sourceEventID: UUID
    /// The assessment or care-tracking flag the alert is about.
    public var aboutID: UUID
    /// What the alert is about: an assessment kind (bloodPressure, glucose, …), examResult or careTracking.
    public var kind: String
    /// attention or urgent.
    public var severity: Severity
    /// The assessed category or care-tracking rule, e.g. stage2Hypertension.
    public var category: String
    /// Key of the message text shown to the patient.
    public var messageKey: String
    public var raisedAt: Date

    public init(
        alertID: UUID, sourceEventID: UUID, aboutID: UUID, kind: String, severity: Severity, category: String, messageKey: String, raisedAt: Date
    ) {
        self.alertID = alertID
        self.sourceEventID = sourceEventID
        self.aboutID = aboutID
        self.kind = kind
        self.severity = severity
        self.category = category
        self.messageKey = messageKey
        self.raisedAt = raisedAt
    }

    enum CodingKeys: String, CodingKey {
        case alertID = "alertId", sourceEventID = "sourceEventId", aboutID = "aboutId", kind, severity, category, messageKey, raisedAt
    }
}

/// Why an alert no longer stands.
public enum AlertWithdrawalReason: String, Codable, Sendable, CaseIterable {
    /// The assessment was replaced after its source was corrected.
    case superseded
    case measurementDeleted
    case enteredInError
}

/// An alert was withdrawn because what it was about was retracted (`caretide.alerts`): downstream consumers must
/// stop acting on it.
public struct AlertWithdrawn: EventPayload {
    public static let eventType = EventType.alertWithdrawn
    public var alertID: UUID
    public var sourceEventID: UUID
    public var reason: AlertWithdrawalReason
    public var withdrawnAt: Date

    public init(alertID: UUID, sourceEventID: UUID, reason: AlertWithdrawalReason, withdrawnAt: Date) {
        self.alertID = alertID
        self.sourceEventID = sourceEventID
        self.reason = reason
        self.withdrawnAt = withdrawnAt
    }

    enum CodingKeys: String, CodingKey { case alertID = "alertId", sourceEventID = "sourceEventId", reason, withdrawnAt }
}
