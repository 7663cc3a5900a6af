import CaretideRuntime
import NotificationService

// The reminder interval is notification-service's own, checked with the rest of the configuration.
await ServiceMain.run(name: NotificationService.name, defaultPort: NotificationService.defaultPort) { environment throws(InvalidConfiguration) in
    NotificationService.definition(reminderCheck: try NotificationService.reminderCheck(environment))
}
