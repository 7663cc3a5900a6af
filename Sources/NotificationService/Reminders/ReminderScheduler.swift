import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

/// Fires reminders as they fall due. Every round takes the due reminders in one transaction, locked with
/// `FOR UPDATE SKIP LOCKED` so replicas share them without waiting, and fires each occurrence through its unique
/// occurrence row: two replicas, a retried round or a restart never fire one twice. After downtime every missed
/// occurrence fires once, marked late (`ReminderSchedule.isLate`: fired more than five minutes after it fell due).
enum ReminderScheduler {
    /// Reminders taken per round (each a key lock of the outbox's ordering); a full round runs again at once.
    static let batch = 500
    /// Occurrences of one reminder fired per round (a long outage is caught up over several rounds).
    static let occurrencesPerRound = 50

    static func job(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "reminders", interval: interval, fullBatch: batch, context: context) {
            let fired = try await context.transaction { handler in try await fireDue(now: Date(), context: handler) }
            // How late the oldest occurrence still waiting is: an alert rule sees a scheduler that falls behind.
            context.metrics.schedulerOverdue("reminders", seconds: try await ReminderStore(context).oldestOverdueSeconds())
            return fired
        }
    }

    /// One round: the due reminders' occurrences up to `now`, fired in a few statements whatever their number. `now`
    /// is the instant each fires at: the one its lateness is judged against, recorded as its firing time and sent as
    /// the alert's, so the three never disagree.
    static func fireDue(now: Date, context: HandlerContext) async throws -> Int {
        let store = ReminderStore(context)
        let due = try await store.due(now: now, limit: batch)
        var occurrences: [ReminderStore.Occurrence] = []
        var advanced: [(id: UUID, index: Int, dueAt: Date?)] = []
        var reminders: [UUID: ReminderStore.Reminder] = [:]
        for (reminder, first) in due {
            reminders[reminder.id] = reminder
            let round = dueOccurrences(of: reminder, from: first, now: now)
            occurrences.append(contentsOf: round.due)
            advanced.append((reminder.id, round.next.index, round.next.dueAt))
        }
        let notifications = try await store.fire(occurrences, at: now).compactMap { occurrence -> NotificationStore.Row? in
            guard let reminder = reminders[occurrence.reminderID] else { return nil }
            return NotificationStore.Row(
                .reminder(topic: reminder.topic), severity: .normal, source: occurrence.id, about: reminder.id,
                to: .init(id: reminder.patientID, role: .patient), patientID: reminder.patientID, raisedAt: now, text: reminder.note,
                late: occurrence.late)
        }
        try await store.advance(advanced)
        try await NotificationDelivery.deliver(notifications, traceID: nil, context: context)
        return due.count
    }

    /// One reminder's part of a round, apart from the database so its catch-up rules can be checked alone: its
    /// occurrences from `first` that fell due by `now` (at most `occurrencesPerRound`; the rest wait for the next round),
    /// each named by reminder and number and judged late against `now`, and the occurrence it waits for next (no due
    /// time once its schedule has ended).
    static func dueOccurrences(of reminder: ReminderStore.Reminder, from first: Int, now: Date)
        -> (due: [ReminderStore.Occurrence], next: (index: Int, dueAt: Date?))
    {
        var due: [ReminderStore.Occurrence] = []
        var index = first
        while let at = reminder.schedule.occurrence(index), at <= now, index - first < occurrencesPerRound {
            due.append(
                .init(
                    reminderID: reminder.id, index: index, id: .named("reminder/\(reminder.id.uuidString.lowercased())/\(index)"), dueAt: at,
                    late: ReminderSchedule.isLate(dueAt: at, firedAt: now)))
            index += 1
        }
        return (due: due, next: (index: index, dueAt: reminder.schedule.occurrence(index)))
    }
}
