import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// Webhooks: a receiver's URL that gets every message `caretide.alerts` carries for one group of recipients
/// (patients, consultants, institutions or on-call channels), for operators who connect a paging system, an SMS or
/// e-mail gateway without running a Kafka consumer.
///
/// A message's delivery row is written in the transaction that enqueues the message (`enqueueDeliveries`), so a
/// webhook gets exactly the messages the topic gets; `WebhookSender` sends them outside any transaction.
struct Webhooks: ServiceStore {
    let session: StoreSession

    struct Webhook: Encodable, Sendable {
        let webhookId: UUID
        let recipientRole: String
        let url: String
        let includeText: Bool
        let description: String?
        let createdAt: Date
        let disabledAt: Date?
    }

    /// The answer to a registration: the only time the secret is shown.
    struct Registered: Encodable, Sendable {
        let webhook: Webhook
        let secret: String
    }

    func register(role: RecipientRole, url: String, includeText: Bool, description: String?) async throws -> Registered {
        let id = UUID.timeOrdered()
        let secret = WebhookSignature.newSecret()
        let createdAt = try await session.fetchAll(
            """
            INSERT INTO webhooks (webhook_id, recipient_role, url, secret, include_text, description)
            VALUES (\(id), \(role.rawValue), \(url), \(secret), \(includeText), \(description)) RETURNING created_at
            """, as: Date.self)[0]
        return Registered(
            webhook: Webhook(
                webhookId: id, recipientRole: role.rawValue, url: url, includeText: includeText, description: description, createdAt: createdAt,
                disabledAt: nil),
            secret: secret)
    }

    /// Stops a webhook: nothing new is queued for it and what was waiting is cancelled. Nil when there is no such
    /// webhook.
    func disable(_ id: UUID) async throws -> Webhook? {
        let found = try await session.fetchAll(
            """
            UPDATE webhooks SET disabled_at = coalesce(disabled_at, now()) WHERE webhook_id = \(id)
            RETURNING webhook_id, recipient_role, url, include_text, description, created_at, disabled_at
            """, as: Self.columns
        ).first.map(Self.webhook)
        if found != nil {
            try await session.query(
                "UPDATE webhook_deliveries SET status = 'cancelled', finished_at = now() WHERE webhook_id = \(id) AND status = 'pending'")
        }
        return found
    }

    /// Drops every delivery to or about a patient, sent or not: an erasure leaves no copy of what their alerts said.
    /// A delivery's body names the patient as a JSON string wherever the alert does.
    func dropDeliveries(about patientID: String) async throws {
        try await session.query("DELETE FROM webhook_deliveries WHERE recipient_id = \(patientID) OR strpos(body, \("\"\(patientID)\"")) > 0")
    }

    func list() async throws -> [Webhook] {
        try await session.fetchAll(
            "SELECT webhook_id, recipient_role, url, include_text, description, created_at, disabled_at FROM webhooks ORDER BY created_at",
            as: Self.columns
        ).map(Self.webhook)
    }

    private static let columns = (UUID, String, String, Bool, String?, Date, Date?).self

    private static func webhook(_ row: (UUID, String, String, Bool, String?, Date, Date?)) -> Webhook {
        Webhook(webhookId: row.0, recipientRole: row.1, url: row.2, includeText: row.3, description: row.4, createdAt: row.5, disabledAt: row.6)
    }

    // MARK: Deliveries

    /// A message leaving on `caretide.alerts`, as its webhooks get it.
    struct Outgoing: Sendable {
        let role: RecipientRole
        let recipientID: String
        let alertID: UUID
        let entry: Outbox.Entry
    }

    /// The active webhooks' groups, read once per transaction that publishes (a small table, usually empty).
    static func activeRoles(context: HandlerContext) async throws -> Set<RecipientRole> {
        Set(
            try await context.connection.fetchAll(
                "SELECT DISTINCT recipient_role FROM webhooks WHERE disabled_at IS NULL", as: String.self, logger: context.logger
            ).compactMap(RecipientRole.init(rawValue:)))
    }

    /// Queues each message for every active webhook of its recipient's group, in the caller's transaction.
    static func enqueueDeliveries(_ messages: [Outgoing], context: HandlerContext) async throws {
        guard !messages.isEmpty else { return }
        try await context.connection.query(
            """
            INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, alert_id, recipient_id, body)
            SELECT w.webhook_id, m.event_id, m.event_type, m.alert_id, m.recipient_id, m.body
            FROM unnest(\(messages.map(\.role.rawValue)), \(messages.map(\.entry.eventID)), \(messages.map(\.entry.eventType)),
                        \(messages.map(\.alertID)), \(messages.map(\.recipientID)), \(messages.map { String(decoding: $0.entry.body, as: UTF8.self) }))
                AS m(role, event_id, event_type, alert_id, recipient_id, body)
            JOIN webhooks w ON w.recipient_role = m.role AND w.disabled_at IS NULL
            ON CONFLICT DO NOTHING
            """, logger: context.logger)
    }

    /// One delivery's state as operators read it (no body: it is the message on the topic).
    struct Delivery: Encodable, Sendable {
        let eventId: UUID
        let eventType: String
        let alertId: UUID
        let recipientId: String
        let status: String
        let attempts: Int
        let nextAttemptAt: Date?
        let lastStatus: Int?
        let lastError: String?
        let createdAt: Date
        let finishedAt: Date?
    }

    static let statuses = ["pending", "delivered", "dead", "cancelled"]

    func deliveries(
        of webhook: UUID, status: String?, page: PageRequest
    ) async throws -> Page<Delivery> {
        let after = try page.timeAndUUID()
        let rows = try await session.fetchAll(
            """
            SELECT event_id, event_type, alert_id, recipient_id, status, attempts, next_attempt_at, last_status, last_error, created_at, finished_at
            FROM webhook_deliveries
            WHERE webhook_id = \(webhook) AND (\(status == nil) OR status = \(status ?? ""))
              AND (\(after == nil) OR (created_at, event_id) < (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY created_at DESC, event_id DESC LIMIT \(page.limit + 1)
            """, as: (UUID, String, UUID, String, String, Int, Date, Int?, String?, Date, Date?).self)
        return Page(
            rows: rows.map {
                Delivery(
                    eventId: $0.0, eventType: $0.1, alertId: $0.2, recipientId: $0.3, status: $0.4, attempts: $0.5,
                    nextAttemptAt: $0.4 == "pending" ? $0.6 : nil,
                    lastStatus: $0.7, lastError: $0.8, createdAt: $0.9, finishedAt: $0.10)
            }, request: page
        ) { .init(date: $0.createdAt, id: $0.eventId) }
    }

    /// Forgets finished deliveries, hourly: delivered and cancelled ones after 30 days, dead letters after 90 (an
    /// operator has had a quarter to retry them), a batch at a time.
    static func expiryJob(context: ServiceContext) -> PeriodicJob {
        PeriodicJob(name: "webhook delivery expiry", interval: .seconds(3600), fullBatch: expiryBatch, context: context) {
            try await context.session.fetchAll(
                """
                WITH gone AS (
                    DELETE FROM webhook_deliveries WHERE ctid IN (
                        SELECT ctid FROM webhook_deliveries
                        WHERE (status IN ('delivered', 'cancelled') AND finished_at < now() - interval '30 days')
                           OR (status = 'dead' AND finished_at < now() - interval '90 days')
                        LIMIT \(expiryBatch))
                    RETURNING 1)
                SELECT count(*)::int FROM gone
                """, as: Int.self
            ).first ?? 0
        }
    }

    static let expiryBatch = 5_000

    /// Queues a dead (or cancelled) delivery again for a new round of attempts, once its cause is fixed; false when
    /// there is no such delivery, it is still pending or was delivered, or its webhook is disabled.
    func retry(webhook: UUID, event: UUID) async throws -> Bool {
        try await !session.fetchAll(
            """
            UPDATE webhook_deliveries d SET status = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL
            FROM webhooks w
            WHERE d.webhook_id = \(webhook) AND d.event_id = \(event) AND d.status IN ('dead', 'cancelled')
              AND w.webhook_id = d.webhook_id AND w.disabled_at IS NULL
            RETURNING 1
            """, as: Int.self
        ).isEmpty
    }

    /// A delivery taken for sending.
    struct Taken: Sendable {
        let webhookID: UUID
        let eventID: UUID
        let eventType: String
        let attempt: Int
        let message: String
        let url: String
        let secret: String
        let text: String?
    }

    /// Takes up to `limit` due deliveries for `lease` (`WebhookSender`): each counts an attempt and waits out the
    /// lease before another round (or replica) may take it again.
    func takeDue(limit: Int, lease: Duration) async throws -> [Taken] {
        try await session.fetchAll(
            """
            UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => \(lease.seconds))
            FROM webhooks w
            WHERE (d.webhook_id, d.event_id) IN (
                    SELECT webhook_id, event_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
              AND w.webhook_id = d.webhook_id
            RETURNING d.webhook_id, d.event_id, d.event_type, d.attempts, d.body, w.url, w.secret,
                      CASE WHEN w.include_text THEN (SELECT n.text FROM notifications n WHERE n.notification_id = d.alert_id) END
            """, as: (UUID, UUID, String, Int, String, String, String, String?).self
        ).map { Taken(webhookID: $0.0, eventID: $0.1, eventType: $0.2, attempt: $0.3, message: $0.4, url: $0.5, secret: $0.6, text: $0.7) }
    }

    /// What one attempt left: the delivery's status next, when to try again, the receiver's answer.
    struct Attempt: Sendable {
        enum Status: String, Sendable {
            case pending, delivered, dead
        }

        let webhookID: UUID
        let eventID: UUID
        let status: Status
        /// Seconds until the next attempt (pending only).
        let delay: Double
        /// The HTTP status answered, 0 for none.
        let answered: Int
        /// Why it failed, empty when it did not.
        let problem: String
    }

    /// Records a round's attempts in one statement.
    func record(_ attempts: [Attempt]) async throws {
        try await session.query(
            """
            UPDATE webhook_deliveries d SET status = r.status, next_attempt_at = now() + make_interval(secs => r.delay),
                   last_status = NULLIF(r.answered, 0), last_error = NULLIF(r.problem, ''),
                   finished_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END
            FROM unnest(\(attempts.map(\.webhookID)), \(attempts.map(\.eventID)), \(attempts.map(\.status.rawValue)), \(attempts.map(\.delay)),
                        \(attempts.map(\.answered)), \(attempts.map(\.problem)))
                AS r(webhook_id, event_id, status, delay, answered, problem)
            WHERE d.webhook_id = r.webhook_id AND d.event_id = r.event_id AND d.status = 'pending'
            """)
        // A withdrawal an erasure announced names the erased patient: once delivered it is forgotten at once rather
        // than kept for 30 days. Undelivered, it stays (dead, for an operator to retry) until it reaches the consumer
        // that holds the patient's alerts, or expires.
        try await session.query(
            """
            DELETE FROM webhook_deliveries d USING unnest(\(attempts.map(\.webhookID)), \(attempts.map(\.eventID))) AS r(webhook_id, event_id)
            WHERE d.webhook_id = r.webhook_id AND d.event_id = r.event_id AND d.status = 'delivered'
              AND d.event_type = \(EventType.alertWithdrawn.rawValue) AND strpos(d.body, '"patientErased"') > 0
            """)
    }
}
