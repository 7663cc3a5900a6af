import CaretideRuntime
import CaretideSchemas
import Foundation

/// notification-service's consumer: each event goes to the capability it is for, and the notice it raises, if any,
/// to its recipients. Notifications are decided from what scoring-service finds and what ingest-service releases:
/// - an assessment of severity attention or urgent, or a care-tracking flag, notifies the patient and every
///   consultant whose grant from the patient is in force (care tracking; urgent findings stay urgent);
/// - a flagged exam report notifies the care team at once; the patient hears of a report when it is released to them
///   (`exam-result.released`: results ready, or revised, with how many items are out of range and no values);
/// - an assessment that supersedes another withdraws the notifications of the one it replaces, a withdrawn assessment
///   its own, a report entered in error its results-ready notices;
/// - a UV index or air-quality reading alerts the patients subscribed to its area (`EnvironmentAlerting`).
struct NotificationHandler: EventHandler {
    /// How long an urgent finding waits for a consultant's acknowledgement before it escalates (`Escalation`).
    let escalationDelay: Duration
    /// The time skin-photo follow-ups open at (`LesionFollowUps`).
    let clock: WallClock

    /// Shorter than the runtime's: every alert's path ends here, after scoring's window, so a shorter wait here lowers
    /// every alert kind's latency without a change in CPU the single POST could show (BENCHMARKS.md,
    /// "notification-service's own window").
    var batchWindow: Duration? { .milliseconds(20) }

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

    /// An event `apply` would do nothing with, so its consumer claims nothing and opens no transaction for it: most
    /// assessments (a normal reading's), a report's flags when all is in range, a report recorded but not yet released.
    /// A refused event is needed, so that its refusal is reported.
    func needsNothing(_ event: ValidatedEvent) -> Bool {
        guard let input = try? NotificationInput(event) else { return false }
        return Self.needsNothing(input, event: event)
    }

    /// What raises no notice (`intent`) and withdraws, recommends, opens and closes nothing. `apply` returns at once
    /// for it, so an effect added there for such an input cannot run until this says the input needs it.
    static func needsNothing(_ input: NotificationInput, event: ValidatedEvent) -> Bool {
        switch input {
        case .nothingToDo:
            return true
        case .assessmentRecorded(let assessment):
            if case .lesionPhoto = assessment.category { return false }
            return assessment.supersedes == nil && assessment.kind != .melanomaRisk && intent(input, event: event) == nil
        case .examResultFlagged(let exam):
            return exam.supersedes == nil && intent(input, event: event) == nil
        case .careTrackingFlagged, .assessmentWithdrawn, .examResultReleased, .examResultEnteredInError, .areaRegistered, .uvIndexRecorded,
            .airQualityRecorded, .notConsumed:
            return false
        }
    }

    private func apply(_ input: NotificationInput, event: ValidatedEvent, context: HandlerContext, alertBatch: inout AlertBatch?) async throws {
        if Self.needsNothing(input, event: event) { return }
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
                case .npiDeleted: .npiDeleted
                }
            try await withdraw(about: withdrawn.assessmentID, reason: reason, event: event, context: context)
            try await closeFollowUp(withdrawn, event: event, context: context)
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
        // After the answer's own notice: the follow-up it opens is told second.
        if case .assessmentRecorded(let assessment) = input {
            try await followUp(assessment, event: event, context: context, alertBatch: &alertBatch)
        }
    }

}
