import CaretideDomain
import CaretideRuntime
import CaretideSchemas

/// A batch of events being alerted on (`NotificationHandler.handle(batch:)`): what alerting asks of the database, asked once
/// for the whole batch (the care team of each patient the batch notifies, and which recipients were already alerted
/// today about each subject: alert fatigue), and the notifications raised so far, delivered together. The batch's own
/// alerts count as they are raised, so an event sees the alerts of the events before it.
struct AlertBatch {
    /// What alert fatigue counts one alert a day of: a patient's findings of one kind and category.
    struct Subject: Hashable {
        let patientID: String
        let kind: String
        let category: String
    }

    /// A recipient alerted about a subject.
    struct Alerted: Hashable {
        let recipient: NotificationStore.Recipient
        let subject: Subject
    }

    /// The severities whose standing notification holds back another attention alert the same day.
    static let fatigueSeverities: [Severity] = [.attention, .urgent]

    private let careTeams: [String: [String]]
    private var alertsToday: Set<Alerted>
    /// Raised, in the order of their events, and not delivered yet.
    private var undelivered: [(rows: [NotificationStore.Row], traceID: String?)] = []

    init(careTeams: [String: [String]], alertsToday: Set<Alerted>) {
        self.careTeams = careTeams
        self.alertsToday = alertsToday
    }

    /// The care teams of the intents' patients and today's alerts of the recipients their attention notices would reach.
    static func load(for intents: [(patientID: String, intent: NotificationHandler.Intent)], context: HandlerContext) async throws -> AlertBatch {
        let careTeams = try await CareTeamStore(context).activeConsultants(
            patientIDs: Set(intents.filter { $0.intent.careTeam }.map { $0.patientID }).sorted())
        var asked: Set<Alerted> = []
        for (patientID, intent) in intents where intent.notice.severity == .attention {
            let subject = Subject(patientID: patientID, kind: intent.notice.kind, category: intent.notice.category)
            if intent.patient { asked.insert(Alerted(recipient: .init(id: patientID, role: .patient), subject: subject)) }
            if intent.careTeam {
                for consultant in careTeams[patientID] ?? [] {
                    asked.insert(Alerted(recipient: .init(id: consultant, role: .consultant), subject: subject))
                }
            }
        }
        return AlertBatch(careTeams: careTeams, alertsToday: try await NotificationStore(context).alertedToday(Array(asked)))
    }

    /// The consultants whose grant from the patient is in force.
    func careTeam(of patientID: String) -> [String] { careTeams[patientID] ?? [] }

    /// Those of `recipients` already alerted today about `subject`.
    func alertedToday(_ recipients: [NotificationStore.Recipient], about subject: Subject) -> Set<NotificationStore.Recipient> {
        Set(recipients.filter { alertsToday.contains(Alerted(recipient: $0, subject: subject)) })
    }

    /// Keeps an event's notifications to deliver with the rest of the batch's.
    mutating func deliverLater(_ rows: [NotificationStore.Row], traceID: String?) { undelivered.append((rows, traceID)) }

    /// Delivers what was raised so far, in one pass (`NotificationDelivery.deliver`), in the order it was raised.
    mutating func deliver(context: HandlerContext) async throws {
        guard !undelivered.isEmpty else { return }
        let raised = undelivered
        undelivered = []
        try await NotificationDelivery.deliver(raised, context: context)
    }

    /// Records alerts the batch raised, at a severity alert fatigue counts.
    mutating func alerted(_ recipients: [NotificationStore.Recipient], about subject: Subject, severity: Severity) {
        guard Self.fatigueSeverities.contains(severity) else { return }
        for recipient in recipients { alertsToday.insert(Alerted(recipient: recipient, subject: subject)) }
    }
}
