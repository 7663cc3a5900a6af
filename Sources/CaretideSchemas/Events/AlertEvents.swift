import Foundation

/// An alert was raised for a patient (notification-service → `caretide.alerts`, read by downstream consumers).
public struct AlertRaised: EventPayload {
    public static let eventType = EventType.alertRaised

    public var alertID: UUID
    /// The assessment event that caused the alert.
    public var sourceEventID: UUID
    /// What the alert is about, e.g. "blood-pressure".
    public var kind: String
    /// attention or urgent.
    public var severity: String
    /// The assessed category, e.g. stage2Hypertension.
    public var category: String
    /// Key of the message text shown to the patient.
    public var messageKey: String
    public var raisedAt: Date

    public init(alertID: UUID, sourceEventID: UUID, kind: String, severity: String, category: String, messageKey: String, raisedAt: Date) {
        self.alertID = alertID
        self.sourceEventID = sourceEventID
        self.kind = kind
        self.severity = severity
        self.category = category
        self.messageKey = messageKey
        self.raisedAt = raisedAt
    }

    enum CodingKeys: String, CodingKey {
        case alertID = "alertId", sourceEventID = "sourceEventId", kind, severity, category, messageKey, raisedAt
    }
}
