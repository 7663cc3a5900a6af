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

    typealias Taken = Webhooks.Taken

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
        try await Webhooks(context).takeDue(limit: Self.batch, lease: Self.lease)
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
        var attempts: [Webhooks.Attempt] = []
        for result in results {
            let status: Webhooks.Attempt.Status
            var delay = 0.0
            switch result.next {
            case .delivered: status = .delivered
            case .retry(let after):
                status = .pending
                delay = after.seconds
            case .deadLetter: status = .dead
            }
            let (answered, problem): (Int, String) =
                switch result.outcome {
                case .answered(let code): (code, (200..<300).contains(code) ? "" : "answered \(code)")
                case .unreachable: (0, "no answer: connection failed or timed out")
                }
            attempts.append(
                Webhooks.Attempt(
                    webhookID: result.taken.webhookID, eventID: result.taken.eventID, status: status, delay: delay, answered: answered,
                    problem: problem))
            context.metrics.webhookAttempt(outcome: status == .pending ? "retry" : status.rawValue)
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
        try await Webhooks(context).record(attempts)
    }
}
