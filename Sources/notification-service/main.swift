import CaretideRuntime
import Foundation
import NotificationService

// The reminder interval is notification-service's own; a bad value stops it as any configuration error does (exit 78).
let reminderCheck: Duration
do {
    reminderCheck = try NotificationService.reminderCheck(ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("\(NotificationService.name): \(error.description)\n".utf8))
    exit(78)
}
await ServiceMain.run(NotificationService.definition(reminderCheck: reminderCheck), defaultPort: NotificationService.defaultPort)
