import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Crypto
import Foundation
import Hummingbird
import IngestService
import Logging
import NotificationService
import PostgresNIO
import ScoringService
import ServiceLifecycle
import Synchronization
import Testing

/// Webhooks against a real HTTP receiver on loopback: every message to the group arrives signed, failures are tried
/// again with backoff, refusals and the last failed try are kept as dead letters operators can read and retry.
@Suite(.serialized, .stoppingStacks) struct WebhookTests {
    static let operatorCaller = Caller.identity(Identity(subject: "ops-1", role: .operator))
    static let patient = Caller.identity(Identity(subject: "p-hook", role: .patient))

    @Test(
        "a patient's alert reaches the patients' webhooks signed; 503s are retried until delivered, a 400 and an unreachable receiver end as dead letters an operator can retry"
    )
    func deliveries() async throws {
        let receiver = try await WebhookReceiver.start()
        // /flaky answers 503 twice, then 200; /refusing answers 400 until told otherwise.
        receiver.script("flaky", [503, 503])
        receiver.setDefault("refusing", 400)
        let nobody = "http://127.0.0.1:\(try FreePort.find())/gone"
        let stack = try await TestStack.start([
            IngestService.definition, ScoringService.definition,
            NotificationService.definition(
                webhookRetry: WebhookRetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(200), maximumDelay: .milliseconds(400))),
        ])
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let webhooks = notification + "/v1/webhooks"

        // Operators alone; the URL must be https, or http to this machine; every failing field named.
        #expect(
            try await HTTP.post(webhooks, json: #"{"recipientRole": "patient", "url": "\#(receiver.url("flaky"))"}"#, as: Self.patient).status == 403)
        let refused = try await HTTP.post(
            webhooks, json: #"{"recipientRole": "patient", "url": "http://paging.example.org/hook"}"#, as: Self.operatorCaller)
        #expect(refused.status == 400 && refused.text.contains("/url"))
        let unknownRole = try await HTTP.post(
            webhooks, json: #"{"recipientRole": "everyone", "url": "https://x.example.org"}"#, as: Self.operatorCaller)
        #expect(unknownRole.status == 400 && unknownRole.text.contains("/recipientRole"))

        var secrets: [String: String] = [:]
        var ids: [String: String] = [:]
        for (name, url) in [("flaky", receiver.url("flaky")), ("refusing", receiver.url("refusing")), ("gone", nobody)] {
            let reply = try await HTTP.post(
                webhooks, json: #"{"recipientRole": "patient", "url": "\#(url)", "description": "\#(name)"}"#, as: Self.operatorCaller)
            #expect(reply.status == 201, "\(reply.text)")
            let body = try #require(try reply.json() as? [String: Any])
            secrets[name] = try #require(body["secret"] as? String)
            ids[name] = try #require((body["webhook"] as? [String: Any])?["webhookId"] as? String)
        }
        // A consultants' webhook gets nothing of a patient's alert.
        #expect(
            try await HTTP.post(
                webhooks, json: #"{"recipientRole": "consultant", "url": "\#(receiver.url("consultants"))"}"#, as: Self.operatorCaller
            ).status == 201)
        let listed = try await HTTP.get(webhooks, as: Self.operatorCaller)
        #expect(listed.status == 200 && !listed.text.contains(secrets["flaky"]!))

        let reading = try await HTTP.post(
            ingest + "/v1/patients/p-hook/measurements/blood-pressure",
            json: #"{"measurementId": "\#(UUID())", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#, as: Self.patient)
        #expect(reading.status == 201)
        let onTopic = try #require(try await alerts.receive(1).first)
        let raised = try #require(try EventCodec().decode(onTopic.value).payload(as: AlertRaised.self))

        try await eventually("the flaky receiver has it on the third try") { receiver.received("flaky").count == 3 }
        let tries = receiver.received("flaky")
        // The same delivery each time, numbered, each signed over its own timestamp and the exact body.
        #expect(Set(tries.map { $0.headers["caretide-delivery-id"] }).count == 1)
        #expect(tries.map { $0.headers["caretide-attempt"] } == ["1", "2", "3"])
        for request in tries {
            #expect(WebhookReceiver.verify(request, secret: secrets["flaky"]!))
            #expect(!WebhookReceiver.verify(request, secret: secrets["refusing"]!))
        }
        let delivered = try #require(try JSONSerialization.jsonObject(with: Data(tries[2].body)) as? [String: Any])
        let message = try #require(delivered["message"] as? [String: Any])
        // The message exactly as the topic carries it, with no text (the webhook did not ask for it).
        #expect(try JSONSerialization.jsonObject(with: Data(onTopic.value)) as? NSDictionary == message as NSDictionary)
        #expect((message["payload"] as? [String: Any])?["alertId"] as? String == raised.alertID.uuidString.lowercased())
        #expect(delivered["webhookId"] as? String == ids["flaky"] && delivered["text"] == nil)

        func deliveries(_ name: String, status: String? = nil) async throws -> [[String: Any]] {
            try await HTTP.get(webhooks + "/\(ids[name]!)/deliveries" + (status.map { "?status=\($0)" } ?? ""), as: Self.operatorCaller).items()
        }
        try await eventually("each delivery has its outcome") {
            let (flaky, refusing, gone) = (
                try await deliveries("flaky", status: "delivered"), try await deliveries("refusing", status: "dead"),
                try await deliveries("gone", status: "dead")
            )
            return flaky.count == 1 && refusing.count == 1 && gone.count == 1
        }
        #expect(try await deliveries("flaky").first?["attempts"] as? Int == 3)
        // A refusal is not retried; an unreachable receiver is, up to the last attempt.
        let refusal = try #require(try await deliveries("refusing").first)
        #expect(refusal["attempts"] as? Int == 1 && refusal["lastStatus"] as? Int == 400)
        #expect(receiver.received("refusing").count == 1)
        let unreachable = try #require(try await deliveries("gone").first)
        #expect(
            unreachable["attempts"] as? Int == 3 && unreachable["lastStatus"] == nil
                && (unreachable["lastError"] as? String)?.contains("no answer") == true)
        #expect(receiver.received("consultants").isEmpty)
        #expect(try await HTTP.get(webhooks + "/\(ids["flaky"]!)/deliveries?status=lost", as: Self.operatorCaller).status == 400)

        // Once the receiver is fixed, the operator sends the dead letter again; a delivered one cannot be.
        receiver.setDefault("refusing", 204)
        let eventID = try #require(refusal["eventId"] as? String)
        #expect(
            try await HTTP.send(method: "POST", webhooks + "/\(ids["refusing"]!)/deliveries/\(eventID)/retry", as: Self.operatorCaller).status == 202)
        try await eventually("the retried dead letter is delivered") { try await deliveries("refusing", status: "delivered").count == 1 }
        #expect(receiver.received("refusing").count == 2)
        #expect(
            try await HTTP.send(method: "POST", webhooks + "/\(ids["refusing"]!)/deliveries/\(eventID)/retry", as: Self.operatorCaller).status == 409)

        // A webhook that asked for text gets a broadcast's words; a stopped webhook gets nothing more.
        let texts = try await HTTP.post(
            webhooks, json: #"{"recipientRole": "patient", "url": "\#(receiver.url("texts"))", "includeText": true}"#, as: Self.operatorCaller)
        #expect(texts.status == 201)
        #expect(try await HTTP.send(method: "DELETE", webhooks + "/\(ids["flaky"]!)", as: Self.operatorCaller).status == 200)
        #expect(try await HTTP.send(method: "DELETE", webhooks + "/\(UUID())", as: Self.operatorCaller).status == 404)
        let broadcast = #"{"kind": "activity", "text": "Guided walk on Saturday.", "audience": {"patientIds": ["p-hook"]}}"#
        #expect(try await HTTP.post(notification + "/v1/broadcasts", json: broadcast, as: Self.operatorCaller).status == 202)
        try await eventually("the text webhook has the broadcast") { !receiver.received("texts").isEmpty }
        let withText = try #require(try JSONSerialization.jsonObject(with: Data(receiver.received("texts")[0].body)) as? [String: Any])
        #expect(withText["text"] as? String == "Guided walk on Saturday.")
        try await eventually("the refusing webhook, still active, has the broadcast too") { receiver.received("refusing").count == 3 }
        #expect(receiver.received("flaky").count == 3)

        await alerts.close()
        try await stack.shutdown()
        try await receiver.stop()

        // Finished deliveries are forgotten after 30 days, dead letters after 90: aged by hand, then the expiry job's
        // first round at the next start.
        let aged = try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.fetchAll(
                "UPDATE webhook_deliveries SET finished_at = now() - interval '31 days' WHERE status IN ('delivered', 'dead') RETURNING status",
                as: String.self, logger: logger)
        }
        #expect(aged.contains("delivered") && aged.contains("dead"))
        let restarted = try await TestStack.start([NotificationService.definition], database: stack.database)
        func left() async throws -> [String] {
            try await restarted.withDatabase(schema: "notification") { database, logger in
                try await database.client.fetchAll(
                    "SELECT status FROM webhook_deliveries WHERE finished_at < now() - interval '1 day'", as: String.self, logger: logger)
            }
        }
        try await eventually("the aged delivered ones are forgotten") { try await !left().contains("delivered") }
        #expect(try await left().contains("dead"))
        try await restarted.shutdown()
    }
}

/// An HTTP server on loopback that records what it is sent, per path, and answers scripted statuses.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        let headers: [String: String]
        let body: [UInt8]
    }

    struct State {
        var received: [String: [Received]] = [:]
        var scripted: [String: [Int]] = [:]
        var defaults: [String: Int] = [:]
    }

    let port: Int
    private let log: Log
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// What the server records and answers, shared with its route.
    final class Log: Sendable {
        let state = Mutex(State())
        let boundPort = Mutex<Int?>(nil)
    }

    private init(port: Int, log: Log, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.log = log
        self.group = group
        self.task = task
    }

    /// Listens on a port the kernel picks (never one that may be taken meanwhile).
    static func start() async throws -> WebhookReceiver {
        let log = Log()
        let router = Router()
        router.post("hook/:name") { request, context -> Response in
            let name = context.parameters.get("name") ?? ""
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            return Response(status: .init(code: Self.record(name, Received(headers: headers, body: Array(buffer: body)), in: log)))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in log.boundPort.withLock { $0 = channel.localAddress?.port } },
            logger: Logger(label: "webhook-receiver"))
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "webhook-receiver")))
        let task = Task { try await group.run() }
        try await eventually("the receiver listens", timeout: .seconds(60)) { log.boundPort.withLock { $0 } != nil }
        return WebhookReceiver(port: log.boundPort.withLock { $0 }!, log: log, group: group, task: task)
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/hook/\(name)" }

    func script(_ name: String, _ statuses: [Int]) { log.state.withLock { $0.scripted[name] = statuses } }
    func setDefault(_ name: String, _ status: Int) { log.state.withLock { $0.defaults[name] = status } }
    func received(_ name: String) -> [Received] { log.state.withLock { $0.received[name] ?? [] } }

    private static func record(_ name: String, _ request: Received, in log: Log) -> Int {
        log.state.withLock { state in
            state.received[name, default: []].append(request)
            if var scripted = state.scripted[name], !scripted.isEmpty {
                let status = scripted.removeFirst()
                state.scripted[name] = scripted
                return status
            }
            return state.defaults[name] ?? 200
        }
    }

    /// Checks `Caretide-Signature` as a receiver would: HMAC-SHA256 of "<t>.<body>" under the secret, in constant time.
    static func verify(_ request: Received, secret: String) -> Bool {
        guard let header = request.headers["caretide-signature"] else { return false }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let timestamp = fields["t"], let given = fields["v1"] else { return false }
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: request.body)
        guard let givenBytes = Hex.bytes(given) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(givenBytes, authenticating: message, using: SymmetricKey(data: Array(secret.utf8)))
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
