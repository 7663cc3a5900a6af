import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
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
struct AlertHandler: BatchEventHandler {
    /// How long an urgent finding waits for a consultant's acknowledgement before it escalates (`Escalation`).
    let escalationDelay: Duration

    /// Shorter than the runtime's 50 ms: every alert's path ends here, after scoring's window. At 1,000 events/s, 20 ms
    /// lowered every alert kind's p99 (the report's and the UV reading's by about a third) with no change in CPU a
    /// reading that the single POST could show (BENCHMARKS.md, "notification-service's own window").
    var batchWindow: Duration? { .milliseconds(20) }

    /// What one notification says, for whichever recipients receive it.
    struct Notice {
        let about: UUID
        let topic: Topic
        let severity: Severity
        var kind: String { topic.kind }
        var category: String { topic.category }
        var messageKey: String { "alert.\(kind).\(category)" }
        var subjectID: String?
        var outOfRangeCount: Int?
        /// The institution that reported the finding (whose on-call channel hears of it if nobody acknowledges it).
        var institutionID: String?
    }

    /// What a notice is about, typed from the rule or flag that raised it; `kind` and `category` are its words in the
    /// inbox and on the alerts topic, and name its message text together.
    enum Topic: Hashable {
        case assessment(AssessmentCategory)
        case careTracking(CareTrackingFlagKind)
        case examResultReady(revised: Bool)

        var kind: String {
            switch self {
            case .assessment(let category): category.kind.rawValue
            case .careTracking: "careTracking"
            case .examResultReady: "examResultReady"
            }
        }

        var category: String {
            switch self {
            case .assessment(let category): category.rawValue
            case .careTracking(let rule): rule.rawValue
            case .examResultReady(let revised): revised ? "revised" : "released"
            }
        }
    }

    /// A notice and whom it is for: the patient, the care team, or both.
    struct Intent {
        let notice: Notice
        let patient: Bool
        let careTeam: Bool
    }

    func handle(_ event: ValidatedEvent, context: HandlerContext) async throws {
        var alertBatch: AlertBatch?
        try await apply(try NotificationInput(event), event: event, context: context, alertBatch: &alertBatch)
    }

    /// The batch's events in order, with the care teams and today's alerts of every patient they notify looked up in
    /// two statements for the whole batch rather than two for each alert. A batch that withdraws notifications is
    /// applied event by event instead: a withdrawal changes what "alerted today" means for the events after it.
    /// (Care-team events are applied before the batch reaches here: `CareTeamProjectingHandler`.)
    func handle(batch: [ValidatedEvent], context: HandlerContext) async throws {
        let inputs = try batch.map(NotificationInput.init)
        var alertBatch: AlertBatch?
        if !inputs.contains(where: \.withdraws) {
            let intents = zip(batch, inputs).compactMap { event, input in
                event.patientID.flatMap { patientID in Self.intent(input, event: event).map { (patientID, $0) } }
            }
            alertBatch = try await AlertBatch.load(for: intents, context: context)
        }
        for (event, input) in zip(batch, inputs) {
            // An environmental reading delivers its own alerts: the ones raised before it leave first, so each
            // recipient's messages are numbered in the order of their events.
            if input.isEnvironmentalReading { try await alertBatch?.deliver(context: context) }
            try await apply(input, event: event, context: context, alertBatch: &alertBatch)
        }
        try await alertBatch?.deliver(context: context)
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
        case .assessmentWithdrawn, .examResultEnteredInError, .areaRegistered, .uvIndexRecorded, .airQualityRecorded, .nothingToDo, .notConsumed:
            return nil
        }
    }

    private func apply(_ input: NotificationInput, event: ValidatedEvent, context: HandlerContext, alertBatch: inout AlertBatch?) async throws {
        switch input {
        case .assessmentRecorded(let assessment):
            if let previous = assessment.supersedes { try await withdraw(about: previous, reason: .superseded, event: event, context: context) }
            if assessment.kind == .melanomaRisk { try await recommendSelfCheck(assessment, event: event, context: context) }
        case .examResultFlagged(let exam):
            if let previous = exam.supersedes { try await withdraw(about: previous, reason: .superseded, event: event, context: context) }
        case .careTrackingFlagged, .examResultReleased, .nothingToDo:
            break
        case .assessmentWithdrawn(let withdrawn):
            let reason: AlertWithdrawalReason =
                switch withdrawn.reason {
                case .measurementDeleted: .measurementDeleted
                case .enteredInError: .enteredInError
                case .profileWithdrawn: .profileWithdrawn
                case .photoDeleted: .photoDeleted
                }
            try await withdraw(about: withdrawn.assessmentID, reason: reason, event: event, context: context)
            if withdrawn.kind == .melanomaRisk {
                guard let patientID = event.patientID else { throw UnprocessableEvent("the event names no patient") }
                try await ReminderStore(context).cancel(setBy: withdrawn.assessmentID, patientID: patientID)
            }
        case .examResultEnteredInError(let retraction):
            let subject = ExamKey(institutionID: retraction.institutionID, examID: retraction.examID).subjectID
            try await withdraw(subjectID: subject, reason: .enteredInError, event: event, context: context)
        case .areaRegistered(let area):
            try await EnvironmentStore(context).apply(area)
        case .uvIndexRecorded(let reading):
            try await EnvironmentAlerting(context: context, event: event).uvIndex(reading)
        case .airQualityRecorded(let reading):
            try await EnvironmentAlerting(context: context, event: event).airQuality(reading)
        case .notConsumed(let type):
            throw UnprocessableEvent("notification-service does not consume \(type.rawValue)")
        }
        if let intent = Self.intent(input, event: event) { try await notify(intent, event: event, context: context, alertBatch: &alertBatch) }
    }

    /// Stores the notice for the patient and/or the consultants of the patient's care team, and publishes each new one.
    /// - Parameter alertBatch: the batch's care teams and alerts of today, else nil to ask the database.
    private func notify(_ intent: Intent, event: ValidatedEvent, context: HandlerContext, alertBatch: inout AlertBatch?) async throws {
        guard let patientID = event.patientID else { throw UnprocessableEvent("the event names no patient to notify") }
        let notice = intent.notice
        var recipients: [NotificationStore.Recipient] = intent.patient ? [.init(id: patientID, role: .patient)] : []
        if intent.careTeam {
            let consultants =
                if let alertBatch { alertBatch.careTeam(of: patientID) } else {
                    try await CareTeamStore.activeConsultants(patientID: patientID, on: context.connection, logger: context.logger)
                }
            recipients += consultants.map { .init(id: $0, role: .consultant) }
        }
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
                alert: AlertRaised(
                    alertID: UUID.timeOrdered(), sourceEventID: event.eventID, aboutID: notice.about, kind: notice.kind, severity: notice.severity,
                    category: notice.category, messageKey: notice.messageKey, raisedAt: now, recipientID: recipient.id,
                    recipientRole: recipient.role, outOfRangeCount: notice.outOfRangeCount),
                patientID: patientID, subjectID: notice.subjectID, text: nil)
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

    /// A melanoma risk category recommends how often to check one's skin (docs/clinical-rules.md §7): the patient gets
    /// that reminder, replacing the one an earlier category set, from the next day at 09:00 in the patient's time zone
    /// (`PUT /v1/inbox/preferences`; UTC until they set one).
    private func recommendSelfCheck(_ assessment: AssessmentRecorded, event: ValidatedEvent, context: HandlerContext) async throws {
        guard let patientID = event.patientID, let months = assessment.values["selfExaminationIntervalMonths"],
            let repeats = ReminderRepeat(months: Int(months))
        else { return }
        let zone = try await PreferenceStore(context).timeZone(of: .init(id: patientID, role: .patient)) ?? TimeZone(identifier: "UTC")!
        let tomorrow = LocalDate(event.occurredAt.addingTimeInterval(86_400), in: zone)
        let schedule = ReminderSchedule(repeats: repeats, startsOn: tomorrow, at: LocalTime("09:00")!, timeZone: zone)
        try await ReminderStore(context).replace(
            .init(
                id: UUID.timeOrdered(), patientID: patientID, topic: "skinCheck", note: nil, schedule: schedule, origin: "melanomaRisk",
                setBy: assessment.assessmentID),
            now: event.occurredAt)
    }

    private func withdraw(
        about: UUID? = nil, subjectID: String? = nil, reason: AlertWithdrawalReason, event: ValidatedEvent, context: HandlerContext
    ) async throws {
        if let about { try await Escalation(context).cancel(about: about) }
        try await NotificationDelivery.withdraw(about: about, subjectID: subjectID, reason: reason, cause: event, context: context)
    }

}
