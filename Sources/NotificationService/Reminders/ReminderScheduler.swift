import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation

/// Fires reminders as they fall due. Every round takes the due reminders in one transaction, locked with
/// `FOR UPDATE SKIP LOCKED` so replicas share them without waiting, and fires each occurrence through its unique
/// occurrence row: two replicas, a retried round or a restart never fire one twice. After downtime every missed
/// occurrence fires once, marked late.
enum ReminderScheduler {
    /// An occurrence fired this long after it fell due is late.
    static let lateAfter: TimeInterval = 5 * 60
    /// Reminders taken per round; a full round runs again at once.
    static let batch = 100
    /// Occurrences of one reminder fired per round (a long outage is caught up over several rounds).
    static let occurrencesPerRound = 50

    /// Held notifications whose recipient's quiet hours have ended are announced by the same clock.
    static func releaseJob(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "quiet-hours release", interval: interval, fullBatch: batch, context: context) {
            try await context.transaction { handler in try await NotificationDelivery.releaseDue(limit: batch, context: handler) }
        }
    }

    static func job(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "reminders", interval: interval, fullBatch: batch, context: context) {
            try await context.transaction { handler in
                let store = ReminderStore(handler)
                let now = Date()
                let due = try await store.due(now: now, limit: batch)
                var notifications: [NotificationStore.Row] = []
                for (reminder, first) in due {
                    var index = first
                    while let at = reminder.schedule.occurrence(index), at <= now, index - first < occurrencesPerRound {
                        let occurrenceID = UUID.named("reminder/\(reminder.id.uuidString.lowercased())/\(index)")
                        let late = now.timeIntervalSince(at) > lateAfter
                        if try await store.fire(reminder.id, index: index, occurrenceID: occurrenceID, dueAt: at, late: late) {
                            notifications.append(NotificationStore.Row(
                                alert: AlertRaised(
                                    alertID: UUID.timeOrdered(), sourceEventID: occurrenceID, aboutID: reminder.id, kind: "reminder", severity: .normal,
                                    category: reminder.topic, messageKey: "alert.reminder.\(reminder.topic)", raisedAt: now, recipientID: reminder.patientID,
                                    recipientRole: .patient, late: late),
                                patientID: reminder.patientID, subjectID: nil, text: reminder.note))
                        }
                        index += 1
                    }
                    try await store.advance(reminder.id, to: index, dueAt: reminder.schedule.occurrence(index))
                }
                try await NotificationDelivery.deliver(notifications, traceID: nil, context: handler)
                return due.count
            }
        }
    }
}
