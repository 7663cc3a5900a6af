import AsyncHTTPClient
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle

/// Sends queued webhook deliveries: takes the due ones with a lease (so replicas share them and a replica that dies
/// mid-send leaves its deliveries to be sent again once the lease ends), posts each signed body outside any
/// transaction, and records what followed (`WebhookRetryPolicy`). Delivery is at least once: a receiver de-duplicates
/// on `Caretide-Delivery-Id` (the same on every attempt) or on the message's `alertId`.
struct WebhookSender: Service {
    let context: ServiceContext
    let interval: Duration
    let policy: WebhookRetryPolicy

    /// Deliveries taken per round, and sent at once at most.
    static let batch = 100
    static let concurrency = 8
    /// How long a taken delivery is left to its sender before another may take it: longer than a whole round's sends.
    static let lease: Duration = .seconds(300)
    /// Receivers' answers are read up to this size, then dropped: only the status counts.
    static let answerLimit = 64 * 1024

    func run() async throws {
        try await withDeliveryHTTPClient(readTimeout: .seconds(10), logger: context.logger) { client in
            try await PeriodicJob(name: "webhook delivery", interval: interval, fullBatch: Self.batch, context: context) {
                try await round(client: client)
            }.run()
        }
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

    /// What followed one attempt.
    struct Result: Sendable {
        let taken: Taken
        let outcome: WebhookRetryPolicy.Outcome
        let next: WebhookRetryPolicy.Next
    }

    /// Takes the due deliveries, sends them and records the outcomes; returns how many were taken.
    func round(client: HTTPClient) async throws -> Int {
        let taken = try await take()
        guard !taken.isEmpty else { return 0 }
        let results = await withTaskGroup(of: Result.self) { group in
            var results: [Result] = []
            var waiting = taken[...]
            for _ in 0..<Self.concurrency {
                guard let next = waiting.popFirst() else { break }
                group.addTask { await send(next, client: client) }
            }
            for await result in group {
                results.append(result)
                if let next = waiting.popFirst() { group.addTask { await send(next, client: client) } }
            }
            return results
        }
        try await record(results)
        return taken.count
    }

    func take() async throws -> [Taken] {
        try await context.session.fetchAll(
            """
            UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => \(Self.lease.seconds))
            FROM webhooks w
            WHERE (d.webhook_id, d.event_id) IN (
                    SELECT webhook_id, event_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT \(Self.batch) FOR UPDATE SKIP LOCKED)
              AND w.webhook_id = d.webhook_id
            RETURNING d.webhook_id, d.event_id, d.event_type, d.attempts, d.body, w.url, w.secret,
                      CASE WHEN w.include_text THEN (SELECT n.text FROM notifications n WHERE n.notification_id = d.alert_id) END
            """, as: (UUID, UUID, String, Int, String, String, String, String?).self
        ).map { Taken(webhookID: $0.0, eventID: $0.1, eventType: $0.2, attempt: $0.3, message: $0.4, url: $0.5, secret: $0.6, text: $0.7) }
    }

    func send(_ taken: Taken, client: HTTPClient) async -> Result {
        let body = Self.body(of: taken)
        var request = HTTPClientRequest(url: taken.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Caretide-Webhooks/1")
        request.headers.add(
            name: WebhookSignature.header,
            // bounded: the clock's own time.
            value: WebhookSignature(
                secret: taken.secret, timestamp: Int(Date().timeIntervalSince1970), body: body
            ).headerValue)
        request.headers.add(name: "Caretide-Webhook-Id", value: taken.webhookID.uuidString.lowercased())
        request.headers.add(name: "Caretide-Delivery-Id", value: taken.eventID.uuidString.lowercased())
        request.headers.add(name: "Caretide-Event-Type", value: taken.eventType)
        request.headers.add(name: "Caretide-Attempt", value: String(taken.attempt))
        request.body = .bytes(ByteBuffer(bytes: body))
        let outcome: WebhookRetryPolicy.Outcome
        do {
            let response = try await client.execute(request, timeout: .seconds(15), logger: context.logger)
            _ = try? await response.body.collect(upTo: Self.answerLimit)
            outcome = .answered(status: Int(response.status.code))
        } catch {
            outcome = .unreachable
        }
        return Result(taken: taken, outcome: outcome, next: policy.next(after: outcome, attempt: taken.attempt))
    }

    /// `{"webhookId": …, "message": <the message exactly as on caretide.alerts>, "text": …}`; `text` (advice, a
    /// broadcast's words) only for webhooks registered to carry it, since it may hold clinical detail.
    static func body(of taken: Taken) -> [UInt8] {
        var body = Array("{\"webhookId\":\"\(taken.webhookID.uuidString.lowercased())\",\"message\":".utf8)
        body.append(contentsOf: taken.message.utf8)
        if let text = taken.text, let encoded = try? JSONEncoder().encode(text) {
            body.append(contentsOf: ",\"text\":".utf8)
            body.append(contentsOf: encoded)
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    func record(_ results: [Result]) async throws {
        var status: [String] = []
        var delay: [Double] = []
        var answered: [Int] = []
        var problem: [String] = []
        for result in results {
            switch result.next {
            case .delivered:
                status.append("delivered")
                delay.append(0)
            case .retry(let after):
                status.append("pending")
                delay.append(after.seconds)
            case .deadLetter:
                status.append("dead")
                delay.append(0)
            }
            switch result.outcome {
            case .answered(let code):
                answered.append(code)
                problem.append((200..<300).contains(code) ? "" : "answered \(code)")
            case .unreachable:
                answered.append(0)
                problem.append("no answer: connection failed or timed out")
            }
            context.metrics.webhookAttempt(outcome: status.last == "pending" ? "retry" : status.last!)
            if case .deadLetter = result.next {
                // Ids only: the body is a patient's message.
                context.logger.warning(
                    "webhook delivery given up; kept as a dead letter",
                    metadata: [
                        LogKey.webhookID: "\(result.taken.webhookID)", LogKey.eventID: "\(result.taken.eventID)",
                        LogKey.attempts: "\(result.taken.attempt)",
                    ])
            }
        }
        try await context.session.query(
            """
            UPDATE webhook_deliveries d SET status = r.status, next_attempt_at = now() + make_interval(secs => r.delay),
                   last_status = NULLIF(r.answered, 0), last_error = NULLIF(r.problem, ''),
                   finished_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END
            FROM unnest(\(results.map(\.taken.webhookID)), \(results.map(\.taken.eventID)), \(status), \(delay), \(answered), \(problem))
                AS r(webhook_id, event_id, status, delay, answered, problem)
            WHERE d.webhook_id = r.webhook_id AND d.event_id = r.event_id AND d.status = 'pending'
            """)
        // A withdrawal an erasure announced names the erased patient: once delivered it is forgotten at once rather
        // than kept for 30 days. Undelivered, it stays (dead, for an operator to retry) until it reaches the consumer
        // that holds the patient's alerts, or expires.
        try await context.session.query(
            """
            DELETE FROM webhook_deliveries d USING unnest(\(results.map(\.taken.webhookID)), \(results.map(\.taken.eventID))) AS r(webhook_id, event_id)
            WHERE d.webhook_id = r.webhook_id AND d.event_id = r.event_id AND d.status = 'delivered'
              AND d.event_type = \(EventType.alertWithdrawn.rawValue) AND strpos(d.body, '"patientErased"') > 0
            """)
    }
}
