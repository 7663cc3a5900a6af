public import Foundation

/// The follow-up a skin photo's suspicious or uncertain answer opens (docs/clinical-rules.md §15): a dermatologist's
/// check-up within two weeks and, if the check-up finds it positive, treatment within another 30 days. Sources: NICE
/// NG12 *Suspected cancer: recognition and referral* (2015, rev. 2023), 1.7.1–1.7.3, the suspected-cancer pathway
/// referral for a suspicious pigmented lesion ("an appointment within 2 weeks"); NHS England's cancer waiting-time
/// standard of 31 days from the decision to treat to the first treatment, rounded down to the 30 days of the
/// melanoma app's dermatologist.
///
/// Each stage is a clock: the patient is reminded half-way and two days before it runs out; the care team is told
/// when it starts; when it runs out with neither an appointment booked by its date nor a consultant's finding, the
/// care team is alerted as urgent (the deployment's on-call channel if the patient has no care team).
public enum LesionFollowUp {
    public enum Stage: String, Sendable, Codable, CaseIterable {
        /// A dermatologist is to see the mole.
        case checkUp
        /// The check-up found it positive: treatment is to start.
        case treatment

        /// How long the stage may take.
        public var window: TimeInterval {
            switch self {
            case .checkUp: 14 * LesionFollowUp.day
            case .treatment: 30 * LesionFollowUp.day
            }
        }

        /// When the patient is reminded, from the stage's start: half-way, and two days before it runs out.
        public var reminders: [TimeInterval] { [window / 2, window - 2 * LesionFollowUp.day] }
    }

    /// What a consultant records about the follow-up.
    public enum Finding: String, Sendable, Codable, CaseIterable {
        /// The check-up (or the treatment's histology) found nothing to treat: the follow-up ends.
        case benign
        /// The check-up found it needs treatment: the treatment stage starts.
        case positive
        /// Treatment started: the follow-up ends.
        case treated
    }

    /// What a finding does to a follow-up in `stage`.
    public enum Transition: Equatable, Sendable {
        case close
        case start(Stage)
        /// The finding does not follow from the stage (treatment recorded before any check-up found it positive, or a
        /// positive finding again during treatment): refused with the reason.
        case refused(String)
    }

    public static func transition(from stage: Stage, on finding: Finding) -> Transition {
        switch (stage, finding) {
        case (.checkUp, .benign), (.treatment, .benign), (.treatment, .treated): .close
        case (.checkUp, .positive): .start(.treatment)
        case (.checkUp, .treated): .refused("a check-up comes before treatment: record its finding (benign or positive) first")
        case (.treatment, .positive): .refused("the follow-up is already waiting for treatment; record treated or benign")
        }
    }

    /// What happens next on a stage that started at `start` and has sent `remindersSent` reminders: the next reminder,
    /// or, once every reminder went, the alert when the stage runs out.
    public enum Step: Equatable, Sendable {
        case remind(at: Date)
        case escalate(at: Date)

        public var at: Date {
            switch self {
            case .remind(let at), .escalate(let at): at
            }
        }
    }

    public static func next(_ stage: Stage, startedAt start: Date, remindersSent: Int) -> Step {
        let reminders = stage.reminders
        guard remindersSent >= 0, remindersSent < reminders.count else { return .escalate(at: start.addingTimeInterval(stage.window)) }
        return .remind(at: start.addingTimeInterval(reminders[remindersSent]))
    }

    /// Whether a classifier's answer opens a follow-up: the same answers that advise a dermatologist.
    public static func opens(_ category: LesionPhotoCategory) -> Bool {
        category != .notSuspicious
    }

    static let day: TimeInterval = 24 * 3600
}
