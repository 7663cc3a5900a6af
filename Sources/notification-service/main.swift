import CaretideRuntime
import NotificationService

await ServiceMain.run(NotificationService.definition, defaultPort: NotificationService.defaultPort)
