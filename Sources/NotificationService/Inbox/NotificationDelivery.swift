import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Puts notifications in their recipients' inboxes and on `caretide.alerts`, in the caller's transaction.
///
/// The contract of the topic: every message is keyed by its recipient; an alert's id is the same whenever the same
/// source notifies the same recipient (`NotificationStore.Row`), so consumers de-duplicate on it; and every message
/// to a recipient, raised or withdrawn, carries the recipient's next number, 1, 2, 3… without gaps. Numbers are taken
/// from the recipient's counter row, locked until the transaction commits, at the moment a message is enqueued, so
/// they follow the order the recipient's messages leave in. Each message is queued for the webhooks of its
/// recipient's group in the same statement sequence (`Webhooks`), so a webhook gets exactly what the topic gets.
///
/// Every notification reaches the inbox at once; its message waits while the recipient's quiet hours last, unless it
/// is urgent, and leaves (numbered then) when they end (`releaseDue`). A notification withdrawn while it waits is
/// never published, nor is its withdrawal.
struct NotificationDelivery: ServiceStore {
    let session: StoreSession

    /// Stores the notifications not stored before and publishes (or holds) the message of each; returns those stored.
    @discardableResult
    static func deliver(_ rows: [NotificationStore.Row], traceID: String?, context: HandlerContext) async throws -> [NotificationStore.Row] {
        try await deliver([(rows, traceID)], context: context)
    }

    /// `deliver(_:traceID:context:)` for the notifications of several events at once (a batch's alerts): one insert,
    /// one look-up of quiet hours and one enqueue for them all, in order, each message with its own event's trace.
    @discardableResult
    static func deliver(_ raised: [(rows: [NotificationStore.Row], traceID: String?)], context: HandlerContext) async throws
        -> [NotificationStore.Row]
    {
        var traceIDs: [UUID: String] = [:]
        for (rows, traceID) in raised { for row in rows { traceIDs[row.alert.alertID] = traceID } }
        let stored = try await NotificationStore(context).insert(raised.flatMap(\.rows))
        let quiet = try await PreferenceStore(context).quietHours(of: Set(stored.map(\.recipient)))
        let now = Date()
        var leaving: [Message] = []
        for row in stored {
            let envelope = EventEnvelope(
                producer: context.producer, patientID: row.patientID, traceID: traceIDs[row.alert.alertID], payload: row.alert)
            if let deliverAt = quiet[row.recipient]?.delivery(of: row.alert.severity, arrivingAt: now), deliverAt > now {
                try await NotificationDelivery(context).hold(envelope, until: deliverAt, codec: context.codec)
                continue
            }
            leaving.append(.raised(envelope))
        }
        try await publish(leaving, context: context)
        return stored
    }

    /// Withdraws the standing notifications about `about` or `subjectID` and tells their recipients, unless a
    /// notification's message was still held: then neither it nor its withdrawal is ever published.
    static func withdraw(
        about: UUID? = nil, subjectID: String? = nil, reason: AlertWithdrawalReason, cause: ValidatedEvent, context: HandlerContext
    ) async throws {
        let withdrawn = try await NotificationStore(context).withdraw(about: about, subjectID: subjectID, reason: reason)
        try await announce(withdrawn, reason: reason, cause: cause, context: context)
    }

    /// Withdraws every standing notification of the patient and every one about them (their consultants'), and tells
    /// their recipients: the patient's erasure (`NotificationPatientData`).
    static func withdrawEverything(of patientID: String, cause: ValidatedEvent, context: HandlerContext) async throws {
        let withdrawn = try await NotificationStore(context).withdrawEverything(of: patientID, reason: .patientErased)
        try await announce(withdrawn, reason: .patientErased, cause: cause, context: context)
    }

    /// Tells the recipients of withdrawn notifications, unless a notification's message was still held.
    private static func announce(
        _ withdrawn: [NotificationStore.Withdrawn], reason: AlertWithdrawalReason,
        cause: ValidatedEvent, context: HandlerContext
    ) async throws {
        let neverPublished = try await NotificationDelivery(context).forgetHeld(withdrawn.map(\.id))
        let now = Date()
        try await publish(
            withdrawn.filter { !neverPublished.contains($0.id) }.map { notification in
                .withdrawn(
                    EventEnvelope(
                        producer: context.producer, patientID: notification.patientID, traceID: cause.traceID,
                        payload: AlertWithdrawn(
                            alertID: notification.id, sourceEventID: cause.eventID, reason: reason, withdrawnAt: now,
                            recipientID: notification.recipient.id,
                            recipientRole: notification.recipient.role)))
            }, context: context)
    }

    /// A message for `caretide.alerts`, numbered as it is enqueued.
    enum Message: Sendable {
        case raised(EventEnvelope<AlertRaised>)
        case withdrawn(EventEnvelope<AlertWithdrawn>)

        func entry(_ codec: EventCodec) throws -> Outbox.Entry {
            switch self {
            case .raised(let envelope): try Outbox.Entry(envelope, codec: codec)
            case .withdrawn(let envelope): try Outbox.Entry(envelope, codec: codec)
            }
        }

        var alertID: UUID {
            switch self {
            case .raised(let envelope): envelope.payload.alertID
            case .withdrawn(let envelope): envelope.payload.alertID
            }
        }

        var recipient: NotificationStore.Recipient {
            switch self {
            case .raised(let envelope): NotificationStore.Row.recipient(of: envelope.payload, patientID: envelope.patientID)
            case .withdrawn(let envelope):
                .init(id: envelope.payload.recipientID ?? envelope.patientID ?? "", role: envelope.payload.recipientRole ?? .patient)
            }
        }
    }

    /// Numbers each message in its recipient's sequence and enqueues them, in order.
    static func publish(_ messages: [Message], context: HandlerContext) async throws {
        guard !messages.isEmpty else { return }
        var counts: [NotificationStore.Recipient: Int] = [:]
        for message in messages { counts[message.recipient, default: 0] += 1 }
        // One statement for every recipient, in a fixed order, so concurrent transactions lock counters alike.
        let recipients = counts.keys.sorted { ($0.role.rawValue, $0.id) < ($1.role.rawValue, $1.id) }
        let last = try await context.connection.fetchAll(
            """
            INSERT INTO recipient_sequences (recipient_role, recipient_id, last_sequence)
            SELECT role, id, n FROM unnest(\(recipients.map(\.role.rawValue)), \(recipients.map(\.id)), \(recipients.map { Int64(counts[$0]!) }))
                AS t(role, id, n)
            ORDER BY role, id
            ON CONFLICT (recipient_role, recipient_id) DO UPDATE SET last_sequence = recipient_sequences.last_sequence + excluded.last_sequence
            RETURNING recipient_role, recipient_id, last_sequence
            """, as: (String, String, Int64).self, logger: context.logger)
        var counters: [NotificationStore.Recipient: Int] = [:]
        for (role, id, lastSequence) in last {
            guard let role = RecipientRole(rawValue: role) else { continue }
            counters[NotificationStore.Recipient(id: id, role: role)] = Int(lastSequence)
        }
        let numbered = Self.numbered(messages, counts: counts, last: counters)
        // In statements of a bounded size (a reading of an area may notify a hundred thousand subscribers), each
        // chunk encoded while the one before is written: encoding and PostgreSQL then use both cores.
        let codec = context.codec
        let webhookRoles = try await Webhooks.activeRoles(context: context)
        let chunks = stride(from: 0, to: numbered.count, by: publishChunk).map { Array(numbered[$0..<min($0 + publishChunk, numbered.count)]) }
        var encoding = Task { try chunks[0].map { try $0.entry(codec) } }
        for index in chunks.indices {
            let entries = try await encoding.value
            if index + 1 < chunks.count {
                let chunk = chunks[index + 1]
                encoding = Task { try chunk.map { try $0.entry(codec) } }
            }
            try await context.publish(entries)
            if !webhookRoles.isEmpty {
                try await Webhooks.enqueueDeliveries(
                    zip(chunks[index], entries).compactMap { message, entry in
                        let recipient = message.recipient
                        guard webhookRoles.contains(recipient.role) else { return nil }
                        return Webhooks.Outgoing(role: recipient.role, recipientID: recipient.id, alertID: message.alertID, entry: entry)
                    }, context: context)
            }
        }
    }

    static let publishChunk = 2_000

    /// The messages in order, each with its number in its recipient's sequence, apart from the database so the
    /// numbering can be checked alone: `last` is each recipient's counter after `counts` (this batch's messages per
    /// recipient) were added to it, so the batch takes the numbers that end there, in the order the messages leave.
    static func numbered(
        _ messages: [Message], counts: [NotificationStore.Recipient: Int], last: [NotificationStore.Recipient: Int]
    ) -> [Message] {
        var next: [NotificationStore.Recipient: Int] = [:]
        for (recipient, lastSequence) in last {
            next[recipient] = lastSequence - (counts[recipient] ?? 0) + 1
        }
        var numbered: [Message] = []
        numbered.reserveCapacity(messages.count)
        for message in messages {
            let recipient = message.recipient
            let sequence = next[recipient, default: 1]
            next[recipient] = sequence + 1
            switch message {
            case .raised(var envelope):
                envelope.payload.sequence = sequence
                numbered.append(.raised(envelope))
            case .withdrawn(var envelope):
                envelope.payload.sequence = sequence
                numbered.append(.withdrawn(envelope))
            }
        }
        return numbered
    }

    func hold(_ envelope: EventEnvelope<AlertRaised>, until deliverAt: Date, codec: EventCodec) async throws {
        let body = String(decoding: try codec.encode(envelope), as: UTF8.self)
        try await session.query(
            """
            INSERT INTO held_alerts (alert_id, patient_id, deliver_at, envelope) VALUES
                (\(envelope.payload.alertID), \(envelope.patientID), \(deliverAt), \(body)::jsonb)
            ON CONFLICT (alert_id) DO NOTHING
            """)
    }

    /// Forgets held messages of withdrawn notifications; returns the ids that were never published.
    func forgetHeld(_ alertIDs: [UUID]) async throws -> Set<UUID> {
        guard !alertIDs.isEmpty else { return [] }
        return Set(
            try await session.fetchAll(
                "DELETE FROM held_alerts WHERE alert_id = ANY(\(alertIDs)) RETURNING alert_id", as: UUID.self))
    }

    /// Announces held messages whose recipients' quiet hours have ended, every `interval`.
    static func releaseJob(interval: Duration, context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "quiet-hours release", interval: interval, fullBatch: releaseBatch, context: context) {
            try await context.transaction { handler in try await releaseDue(limit: releaseBatch, context: handler) }
        }
    }

    static let releaseBatch = 500

    /// Publishes held messages whose quiet hours have ended (locked, so replicas share them); returns how many.
    static func releaseDue(limit: Int, context: HandlerContext) async throws -> Int {
        let due = try await context.connection.fetchAll(
            """
            DELETE FROM held_alerts WHERE alert_id IN (
                SELECT alert_id FROM held_alerts WHERE deliver_at <= now() ORDER BY deliver_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING envelope::text
            """, as: String.self, logger: context.logger)
        let messages: [Message] = try due.compactMap { text in
            let event = try context.codec.decode(Array(text.utf8))
            return event.payload(as: AlertRaised.self).map {
                .raised(
                    EventEnvelope(
                        eventID: event.eventID, occurredAt: event.occurredAt, producer: event.producer, patientID: event.patientID,
                        traceID: event.traceID,
                        payload: $0))
            }
        }
        try await publish(messages, context: context)
        return due.count
    }
}
