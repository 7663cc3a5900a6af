/// The words of inbox notifications: a title and a sentence for each kind, and a sentence of its own for a category
/// that needs one (a revised report, an urgent reading). Keyed like the tips (`inbox.<kind>.title`,
/// `inbox.<kind>.body`, `inbox.<kind>.<category>.body`), so a translation (`TIP_TRANSLATIONS_DIR`) gives them too and an
/// app need not ship a string for each message key. The topic keeps carrying keys only.
///
/// A sentence never holds a value, a name or free text: those are in the notification's own fields (the advice a
/// consultant wrote, the thread of a message) and in what it leads to.
public enum InboxWords {
    /// Every kind a notification has, each with a title and a sentence in `english`.
    public static let kinds: [String] = [
        "bloodPressure", "pulse", "bodyMassIndex", "glucose", "hba1c", "lipids", "nottinghamPrognosticIndex", "melanomaRisk", "examResult",
        "lesionPhoto", "careTracking", "examResultReady", "advice", "message", "uvIndex", "airQuality", "reminder", "escalation", "broadcast",
        "appointment", "reportShared", "lesionFollowUp", "examResultDisputed",
    ]

    public static let english: [String: String] = [
        "inbox.bloodPressure.title": "Blood pressure reading",
        "inbox.bloodPressure.body": "A blood pressure reading needs attention. Open it to see the reading and what to do.",
        "inbox.bloodPressure.hypertensiveCrisis.body":
            "A blood pressure reading is in the crisis range. If you have chest pain, shortness of breath or trouble speaking, call your emergency number now.",
        "inbox.pulse.title": "Pulse reading",
        "inbox.pulse.body": "A pulse reading is outside the usual range. Open it to see the reading and what to do.",
        "inbox.bodyMassIndex.title": "Body-mass index",
        "inbox.bodyMassIndex.body": "A weight and height give a body-mass index worth a look. Open it to see what it means.",
        "inbox.glucose.title": "Blood sugar reading",
        "inbox.glucose.body": "A blood sugar reading needs attention. Open it to see the reading and what to do.",
        "inbox.hba1c.title": "HbA1c result",
        "inbox.hba1c.body": "An HbA1c result needs attention. Open it to see the result and what it means.",
        "inbox.lipids.title": "Cholesterol result",
        "inbox.lipids.body": "A cholesterol result needs attention. Open it to see the result and what it means.",
        "inbox.nottinghamPrognosticIndex.title": "Nottingham Prognostic Index",
        "inbox.nottinghamPrognosticIndex.body": "A Nottingham Prognostic Index was calculated. Open it to see the group and what it means.",
        "inbox.melanomaRisk.title": "Melanoma risk",
        "inbox.melanomaRisk.body": "Your melanoma risk profile was assessed. Open it to see the result and how often to check your skin.",
        "inbox.examResult.title": "Exam result finding",
        "inbox.examResult.body": "An exam report has results outside their range. Open it to see which.",
        "inbox.lesionPhoto.title": "Skin photo result",
        "inbox.lesionPhoto.body":
            "A skin photo was assessed. The result can be wrong: see a dermatologist about any mole that worries you or changes.",
        "inbox.careTracking.title": "Care tracking",
        "inbox.careTracking.body": "A pattern in recent readings needs the care team's attention. Open it to see which.",
        "inbox.examResultReady.title": "Results ready",
        "inbox.examResultReady.body": "Your exam results are ready to read.",
        "inbox.examResultReady.revised.body": "Your exam results were revised. Read the new version.",
        "inbox.advice.title": "Advice from your care team",
        "inbox.advice.body": "Your care team sent you advice.",
        "inbox.message.title": "New message",
        "inbox.message.body": "You have a new message in a conversation with your care team.",
        "inbox.uvIndex.title": "UV index",
        "inbox.uvIndex.body": "The UV index where you follow it has changed. Open it for the level and how to protect your skin.",
        "inbox.airQuality.title": "Air quality",
        "inbox.airQuality.body": "The air quality where you follow it has changed. Open it for the level and what to do.",
        "inbox.reminder.title": "Reminder",
        "inbox.reminder.body": "It is time for something you asked to be reminded of.",
        "inbox.escalation.title": "Unacknowledged urgent finding",
        "inbox.escalation.body": "An urgent finding has not been acknowledged by the care team. Open it and act on it.",
        "inbox.broadcast.title": "Health information",
        "inbox.broadcast.body": "There is new health information for you.",
        "inbox.broadcast.activity.title": "Activity",
        "inbox.broadcast.activity.body": "There is a new activity you can take part in.",
        "inbox.appointment.title": "Appointment",
        "inbox.appointment.body": "An appointment changed. Open it to see when and where.",
        "inbox.reportShared.title": "Report shared with you",
        "inbox.reportShared.body": "A patient shared a report with you. Open the link to read it.",
        "inbox.examResultDisputed.title": "A patient says a report is not theirs",
        "inbox.examResultDisputed.body":
            "A patient said an exam report you sent them is not theirs. It was withdrawn from them: check whose it is and send it again under a new exam id.",
        "inbox.lesionFollowUp.title": "Skin photo follow-up",
        "inbox.lesionFollowUp.body": "A skin photo's follow-up needs attention. Open it to see what is due and by when.",
        "inbox.lesionFollowUp.checkUpOpened.body":
            "A skin photo's result means a dermatologist should see the mole within two weeks. Book an appointment; you will be reminded.",
        "inbox.lesionFollowUp.checkUpReminder.body":
            "A dermatologist should still see the mole from your skin photo. Book an appointment before the two weeks are up.",
        "inbox.lesionFollowUp.checkUpOverdue.body":
            "A patient's suspicious or uncertain skin photo has had no check-up booked or recorded within two weeks. Open it and act on it.",
        "inbox.lesionFollowUp.treatmentOpened.body":
            "The check-up found the mole needs treatment, which should start within 30 days. Open it to see the date.",
        "inbox.lesionFollowUp.treatmentReminder.body":
            "Treatment for the mole found at your check-up should start soon. Book it if you have not.",
        "inbox.lesionFollowUp.treatmentOverdue.body":
            "A patient's mole found positive at check-up has had no treatment booked or recorded within 30 days. Open it and act on it.",
    ]
}
