import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation

/// The reminders part of notification's handler: what a melanoma risk assessment recommends.
extension NotificationHandler {
    /// A melanoma risk category recommends how often to check one's skin (docs/clinical-rules.md §7): the patient gets
    /// that reminder, replacing the one an earlier category set, from the next day at 09:00 in the patient's time zone
    /// (`PUT /v1/inbox/preferences`; UTC until they set one).
    func recommendSelfCheck(_ assessment: AssessmentRecorded, event: ValidatedEvent, context: HandlerContext) async throws {
        guard let patientID = event.patientID, let months = assessment.values["selfExaminationIntervalMonths"],
            let repeats = ReminderRepeat(months: Int(months))
        else { return }
        let zone = try await PreferenceStore(context).timeZone(of: .init(id: patientID, role: .patient)) ?? TimeZone(identifier: "UTC")!
        let schedule = ReminderSchedule(
            repeats: repeats, startsOn: Self.dayAfter(event.occurredAt, in: zone), at: LocalTime("09:00")!, timeZone: zone)
        try await ReminderStore(context).replace(
            .init(
                id: UUID.timeOrdered(), patientID: patientID, topic: "skinCheck", note: nil, schedule: schedule, origin: "melanomaRisk",
                setBy: assessment.assessmentID),
            now: event.occurredAt)
    }

    /// The calendar day after `instant` in `zone`: not 24 hours on, since a day is 25 hours long the night the clocks
    /// go back.
    static func dayAfter(_ instant: Date, in zone: TimeZone) -> LocalDate { LocalDate(instant, in: zone).addingDays(1) }
}
