public import CaretideIdentity
public import CaretideRuntime
import CaretideSchemas
import CaretideStore

/// notification-service: turns what scoring finds and what ingest releases into notifications in each recipient's
/// inbox (the patient's, and the consultants' of the patient's care team) and on `caretide.alerts`, and withdraws
/// those whose source was superseded, deleted or entered in error, so that no downstream consumer keeps acting on a
/// retracted value.
public enum NotificationService {
    public static let name = "notification-service"
    public static let defaultPort = 8082

    public static var definition: ServiceDefinition { definition() }

    /// - Parameters:
    ///   - reminderCheck: how often due reminders, held announcements and escalations are looked for
    ///     (`REMINDER_CHECK_INTERVAL_SECONDS`).
    ///   - escalationDelay: how long an urgent finding waits for a consultant's acknowledgement (30 minutes).
    ///   - webhookRetry: when webhook deliveries are tried again, and how often at most.
    ///   - mail: the operator's SMTP relay for report e-mails (`SMTP_*`, `MAIL_*`); none sends no e-mail.
    ///   - shareKey: the key shared reports' links are signed with (`REPORT_SHARE_KEY`); none refuses sharing.
    ///   - tips: the languages notifications' titles and sentences are answered in (`TIP_TRANSLATIONS_DIR`).
    ///   - clock: the time skin-photo follow-ups open at and fall due by (a test's own, to move by weeks).
    public static func definition(
        reminderCheck: Duration = .seconds(30), escalationDelay: Duration = .seconds(30 * 60), webhookRetry: WebhookRetryPolicy = .standard,
        mail: MailSettings? = nil, shareKey: ShareKey? = nil, tips: TipCatalog = TipCatalog(), clock: WallClock = .system
    ) -> ServiceDefinition {
        ServiceDefinition(
            name: name, schema: "notification", migrations: NotificationMigrations.track, consumedTopics: [.scores, .examResults, .environment],
            handler: NotificationHandler(escalationDelay: escalationDelay, clock: clock), careTeam: .projection,
            patientData: NotificationPatientData.patientData,
            routes: { routes, context in
                InboxRoutes(context: context, tips: tips).register(on: routes)
                AdviceRoutes(context: context).register(on: routes)
                ThreadRoutes(context: context).register(on: routes)
                ArticleRoutes(context: context).register(on: routes)
                SubscriptionRoutes(context: context).register(on: routes)
                ReminderRoutes(context: context).register(on: routes)
                BroadcastRoutes(context: context).register(on: routes)
                AppointmentRoutes(context: context).register(on: routes)
                WebhookRoutes(context: context).register(on: routes)
                ReportShareRoutes(context: context, shareKey: shareKey).register(on: routes)
                ReportMailRoutes(context: context, settings: mail).register(on: routes)
                LesionFollowUpRoutes(context: context, clock: clock).register(on: routes)
            },
            backgroundServices: { context in
                [
                    ReminderScheduler.job(interval: reminderCheck, context: context),
                    NotificationDelivery.releaseJob(interval: reminderCheck, context: context),
                    Escalation.job(interval: reminderCheck, context: context), Broadcasts.job(interval: reminderCheck, context: context),
                    LesionFollowUps.job(interval: reminderCheck, clock: clock, context: context),
                    // Due deliveries are looked for every second: a webhook is a delivery channel, not a reminder.
                    WebhookSender(context: context, interval: .seconds(1), policy: webhookRetry), Webhooks.expiryJob(context: context),
                ] + (mail.map { [ReportMailer(context: context, settings: $0, interval: .seconds(1))] } ?? [])
            })
    }
}

extension NotificationService {
    /// `REMINDER_CHECK_INTERVAL_SECONDS` (1–3600, default 30): how often due reminders and announcements held for quiet
    /// hours are looked for, so how late either may go at most; or an error naming the variable.
    public static func reminderCheck(_ environment: [String: String]) throws(InvalidConfiguration) -> Duration {
        guard let text = environment["REMINDER_CHECK_INTERVAL_SECONDS"] else { return .seconds(30) }
        guard let seconds = Int(text), (1...3600).contains(seconds) else {
            throw InvalidConfiguration(problems: ["REMINDER_CHECK_INTERVAL_SECONDS must be a whole number of seconds from 1 to 3600"])
        }
        return .seconds(seconds)
    }
}
