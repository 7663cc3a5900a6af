public import CaretideDomain
public import Foundation

/// An alert was raised for a patient (notification-service → `caretide.alerts`, read by downstream consumers).
public struct AlertRaised: EventPayload {
    public static let eventType = EventType.alertRaised

    public var alertID: UUID
    /// The event that caused the alert.
    public var sourceEventID: UUID
    /// The assessment or care-tracking flag the alert is about.
    public var aboutID: UUID
    /// What the alert is about: an assessment kind (bloodPressure, glucose, …), examResult, careTracking,
    /// examResultReady or advice.
    public var kind: String
    /// normal for information (results ready, advice); attention or urgent for findings.
    public var severity: Severity
    /// The assessed category or care-tracking rule, e.g. stage2Hypertension.
    public var category: String
    /// Key of the message text shown to the patient.
    public var messageKey: String
    public var raisedAt: Date
    /// Who is notified; nil for the patient (what every alert was before consultants were notified).
    public var recipientID: String?
    public var recipientRole: RecipientRole?
    /// For examResultReady: how many items are outside their reference range.
    public var outOfRangeCount: Int?
    /// For uvIndex and airQuality: the area, the reading's UV index or AQI, and (UV) when the sun is highest.
    public var areaCode: String?
    public var value: Double?
    public var peakAt: Date?
    /// For reminder: true when the occurrence fires more than five minutes after it fell due (the service was down).
    public var late: Bool?
    /// The recipient's message number on `caretide.alerts`: 1, 2, 3… with no gap, raised and withdrawn alike, so a
    /// consumer sees when it missed one.
    public var sequence: Int?

    /// Keyed by recipient: one recipient's messages stay in order in one partition.
    public var partitionKey: String? { recipientID }

    public init(
        alertID: UUID, sourceEventID: UUID, aboutID: UUID, kind: String, severity: Severity, category: String, messageKey: String, raisedAt: Date,
        recipientID: String? = nil, recipientRole: RecipientRole? = nil, outOfRangeCount: Int? = nil, areaCode: String? = nil, value: Double? = nil,
        peakAt: Date? = nil, late: Bool? = nil, sequence: Int? = nil
    ) {
        self.alertID = alertID
        self.sourceEventID = sourceEventID
        self.aboutID = aboutID
        self.kind = kind
        self.severity = severity
        self.category = category
        self.messageKey = messageKey
        self.raisedAt = raisedAt
        self.recipientID = recipientID
        self.recipientRole = recipientRole
        self.outOfRangeCount = outOfRangeCount
        self.areaCode = areaCode
        self.value = value
        self.peakAt = peakAt
        self.late = late
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case alertID = "alertId"
        case sourceEventID = "sourceEventId"
        case aboutID = "aboutId"
        case kind, severity, category, messageKey, raisedAt
        case recipientID = "recipientId"
        case recipientRole, outOfRangeCount, areaCode, value, peakAt, late, sequence
    }
}

/// Who a notification is for.
public enum RecipientRole: String, Codable, Sendable, CaseIterable {
    case patient, consultant
    /// An institution's staff (its inbox: bookings and cancellations of its appointments).
    case institution
    /// An institution's on-call channel: an urgent finding no consultant acknowledged in time escalates there.
    case onCall
}

/// Why an alert no longer stands.
public enum AlertWithdrawalReason: String, Codable, Sendable, CaseIterable {
    /// The assessment was replaced after its source was corrected.
    case superseded
    case measurementDeleted
    case enteredInError
    /// The patient withdrew (reset) the melanoma risk profile the alert was about.
    case profileWithdrawn
    /// The skin photo the alert was about was deleted.
    case photoDeleted
    /// The Nottingham Prognostic Index entry the alert was about was deleted.
    case npiDeleted
    /// The patient the alert was about had their data erased at their request.
    case patientErased
}

/// An alert was withdrawn because what it was about was retracted (`caretide.alerts`): downstream consumers must
/// stop acting on it.
public struct AlertWithdrawn: EventPayload {
    public static let eventType = EventType.alertWithdrawn
    public var alertID: UUID
    public var sourceEventID: UUID
    public var reason: AlertWithdrawalReason
    public var withdrawnAt: Date
    /// The withdrawn alert's recipient, and this message's number in the recipient's sequence (see `AlertRaised`).
    public var recipientID: String?
    public var recipientRole: RecipientRole?
    public var sequence: Int?

    /// Keyed like the alert it withdraws.
    public var partitionKey: String? { recipientID }

    public init(
        alertID: UUID, sourceEventID: UUID, reason: AlertWithdrawalReason, withdrawnAt: Date, recipientID: String? = nil,
        recipientRole: RecipientRole? = nil, sequence: Int? = nil
    ) {
        self.alertID = alertID
        self.sourceEventID = sourceEventID
        self.reason = reason
        self.withdrawnAt = withdrawnAt
        self.recipientID = recipientID
        self.recipientRole = recipientRole
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case alertID = "alertId"
        case sourceEventID = "sourceEventId"
        case reason, withdrawnAt
        case recipientID = "recipientId"
        case recipientRole, sequence
    }
}
