import CaretideIdentity
import CaretideRuntime
import NotificationService

// The reminder interval, the mail relay (`SMTP_*`, `MAIL_*`), the share links' key (`REPORT_SHARE_KEY`) and the
// translations of the inbox's words (`TIP_TRANSLATIONS_DIR`) are notification-service's own, checked with the rest of the configuration.
await ServiceMain.run(name: NotificationService.name, defaultPort: NotificationService.defaultPort) { environment throws(InvalidConfiguration) in
    NotificationService.definition(
        reminderCheck: try NotificationService.reminderCheck(environment), mail: try MailSettings.configured(environment),
        shareKey: try ShareKey.configured(environment["REPORT_SHARE_KEY"]), tips: try TipCatalog.configured(environment))
}
