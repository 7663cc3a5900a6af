public import CaretideDomain
public import Foundation

/// What an alert (`alert.raised`, and the inbox's notification) is about. Its `kind`, `category` and `messageKey` are
/// derived here and nowhere else, so every alert of a topic spells them alike, and `AlertTopic.kinds` is what the
/// alert schema's `kind` enumerates (a contract test keeps the two equal).
public enum AlertTopic: Hashable, Sendable {
    /// A clinical rule's finding: the assessment's kind, the rule's word as category.
    case assessment(AssessmentCategory)
    /// A trend over several assessments.
    case careTracking(CareTrackingFlagKind)
    /// An exam report released to its patient, or a later revision of one.
    case examResultReady(revised: Bool)
    /// A followed area's UV index reached its band (nil: it fell back below the patient's threshold, all clear).
    case uvIndex(UVIndexCategory?)
    /// A followed area's air quality reached its band (nil: all clear).
    case airQuality(AirQualityCategory?)
    /// A patient's reminder firing, by its topic (skinCheck, medication, appointment, …).
    case reminder(topic: String)
    /// An operator's broadcast, by its kind.
    case broadcast(kind: String)
    /// An urgent finding nobody acknowledged in time, told to the institution's on-call channel: the finding's kind
    /// and category.
    case escalation(kind: String, category: String)
    /// A message in a consultant's thread with a patient, told to the other side.
    case message(fromConsultant: Bool)
    /// An appointment booked or cancelled.
    case appointment(AppointmentChange)
    /// A consultant's advice to a patient.
    case advice
    /// A patient's report shared with a consultant.
    case reportShared
    /// The follow-up of a suspicious or uncertain skin photo: a stage opened, a reminder, or a stage run out.
    case lesionFollowUp(LesionFollowUpNotice)
    /// A patient said an exam report sent to them is not theirs: told to the institution that sent it.
    case examResultDisputed

    public enum LesionFollowUpNotice: String, Sendable, CaseIterable {
        case checkUpOpened, checkUpReminder, checkUpOverdue, treatmentOpened, treatmentReminder, treatmentOverdue
    }

    public enum AppointmentChange: String, Sendable, CaseIterable {
        case booked, cancelled
    }

    /// Every kind an alert can have: the assessments' kinds, then the others.
    public static let kinds: [String] =
        AssessmentKind.allCases.map(\.rawValue) + [
            "careTracking", "examResultReady", "uvIndex", "airQuality", "reminder", "broadcast", "escalation", "message", "appointment", "advice",
            "reportShared", "lesionFollowUp", "examResultDisputed",
        ]

    /// What the alert is about, in the words of the inbox and the alerts topic.
    public var kind: String {
        switch self {
        case .assessment(let category): category.kind.rawValue
        case .careTracking: "careTracking"
        case .examResultReady: "examResultReady"
        case .uvIndex: "uvIndex"
        case .airQuality: "airQuality"
        case .reminder: "reminder"
        case .broadcast: "broadcast"
        case .escalation: "escalation"
        case .message: "message"
        case .appointment: "appointment"
        case .advice: "advice"
        case .reportShared: "reportShared"
        case .lesionFollowUp: "lesionFollowUp"
        case .examResultDisputed: "examResultDisputed"
        }
    }

    /// Which one of its kind: the rule's word, the flag, the band, the reminder's topic, …
    public var category: String {
        switch self {
        case .assessment(let category): category.rawValue
        case .careTracking(let rule): rule.rawValue
        case .examResultReady(let revised): revised ? "revised" : "released"
        case .uvIndex(let band): band?.rawValue ?? "allClear"
        case .airQuality(let band): band?.rawValue ?? "allClear"
        case .reminder(let topic): topic
        case .broadcast(let kind): kind
        case .escalation(_, let category): category
        case .message(let fromConsultant): fromConsultant ? "fromConsultant" : "fromPatient"
        case .appointment(let change): change.rawValue
        case .advice: "fromConsultant"
        case .reportShared: "report"
        case .lesionFollowUp(let notice): notice.rawValue
        case .examResultDisputed: "notMine"
        }
    }

    /// The key of the alert's message text: `alert.<kind>.<category>`, except where one text serves every category
    /// (an escalation is worded by the finding's kind, a message and a shared report by the kind alone).
    public var messageKey: String {
        switch self {
        case .escalation(let kind, _): "alert.escalation.\(kind)"
        case .message: "alert.message.received"
        case .reportShared: "alert.reportShared"
        case .assessment, .careTracking, .examResultReady, .uvIndex, .airQuality, .reminder, .broadcast, .appointment, .advice, .lesionFollowUp,
            .examResultDisputed:
            "alert.\(kind).\(category)"
        }
    }
}

extension AlertRaised {
    /// An alert about `topic`: its kind, category and message key are the topic's.
    public init(
        alertID: UUID, topic: AlertTopic, severity: Severity, sourceEventID: UUID, aboutID: UUID, raisedAt: Date, recipientID: String,
        recipientRole: RecipientRole
    ) {
        self.init(
            alertID: alertID, sourceEventID: sourceEventID, aboutID: aboutID, kind: topic.kind, severity: severity, category: topic.category,
            messageKey: topic.messageKey, raisedAt: raisedAt, recipientID: recipientID, recipientRole: recipientRole)
    }
}
