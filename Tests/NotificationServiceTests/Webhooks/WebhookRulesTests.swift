import Foundation
import Testing

@testable import NotificationService

@Suite("Webhook retries")
struct WebhookRetryPolicyTests {
    let policy = WebhookRetryPolicy(maximumAttempts: 5, initialDelay: .seconds(30), maximumDelay: .seconds(200))

    @Test("every 2xx delivers, on any attempt")
    func delivered() {
        for status in [200, 201, 202, 204, 299] {
            #expect(policy.next(after: .answered(status: status), attempt: 1) == .delivered)
            #expect(policy.next(after: .answered(status: status), attempt: 5) == .delivered)
        }
    }

    @Test("no answer, 408, 425, 429 and 5xx are tried again after a delay doubling from the first, up to the ceiling")
    func retried() {
        for outcome in [
            WebhookRetryPolicy.Outcome.unreachable, .answered(status: 408), .answered(status: 425), .answered(status: 429),
            .answered(status: 500), .answered(status: 503), .answered(status: 599),
        ] {
            #expect(policy.next(after: outcome, attempt: 1) == .retry(after: .seconds(30)))
            #expect(policy.next(after: outcome, attempt: 2) == .retry(after: .seconds(60)))
            #expect(policy.next(after: outcome, attempt: 3) == .retry(after: .seconds(120)))
            #expect(policy.next(after: outcome, attempt: 4) == .retry(after: .seconds(200)))
        }
    }

    @Test("the last attempt's failure is a dead letter")
    func lastAttempt() {
        #expect(policy.next(after: .unreachable, attempt: 5) == .deadLetter)
        #expect(policy.next(after: .answered(status: 503), attempt: 6) == .deadLetter)
    }

    @Test("a refusal (other 4xx) or a redirect is a dead letter at once: the same body would be refused again")
    func refused() {
        for status in [301, 302, 307, 400, 401, 403, 404, 410, 413, 422] {
            #expect(policy.next(after: .answered(status: status), attempt: 1) == .deadLetter)
        }
    }

    @Test("delays never decrease and never pass the ceiling, however many attempts")
    func delaysAreMonotonic() {
        let standard = WebhookRetryPolicy.standard
        var previous = Duration.zero
        for attempt in 1...64 {
            let delay = standard.delay(after: attempt)
            #expect(delay >= previous)
            #expect(delay <= .seconds(3600))
            previous = delay
        }
        #expect(standard.delay(after: 1) == .seconds(30))
        // Ten attempts span about three hours.
        let total = (1..<standard.maximumAttempts).reduce(Duration.zero) { $0 + standard.delay(after: $1) }
        let expected: [Int64] = [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]
        #expect(total == .seconds(expected.reduce(0, +)))
    }

    @Test("a policy makes at least one attempt")
    func atLeastOne() {
        let policy = WebhookRetryPolicy(maximumAttempts: 0, initialDelay: .seconds(1), maximumDelay: .seconds(1))
        #expect(policy.next(after: .unreachable, attempt: 1) == .deadLetter)
    }
}

@Suite("Webhook signatures")
struct WebhookSignatureTests {
    @Test("HMAC-SHA256 of the timestamp, a full stop and the body, in hex (reference computed with Python's hmac module)")
    func reference() {
        let body = Array(#"{"webhookId":"w","message":{}}"#.utf8)
        let signature = WebhookSignature(secret: "whsec-test", timestamp: 1_700_000_000, body: body)
        #expect(signature.digest == "ceef82e44a2ff4e9af18955c0b77622176ff3ceead44dcd5fc68fd3d41e60dd9")
        #expect(signature.headerValue == "t=1700000000,v1=ceef82e44a2ff4e9af18955c0b77622176ff3ceead44dcd5fc68fd3d41e60dd9")
    }

    @Test("another secret, timestamp or body gives another signature")
    func binds() {
        let body = Array("{}".utf8)
        let base = WebhookSignature(secret: "a", timestamp: 1, body: body)
        #expect(base != WebhookSignature(secret: "b", timestamp: 1, body: body))
        #expect(base != WebhookSignature(secret: "a", timestamp: 2, body: body))
        #expect(base != WebhookSignature(secret: "a", timestamp: 1, body: Array("{ }".utf8)))
    }

    @Test("new secrets are 43 base64url characters and differ")
    func secrets() {
        let secrets = (0..<50).map { _ in WebhookSignature.newSecret() }
        #expect(Set(secrets).count == 50)
        for secret in secrets {
            #expect(secret.count == 43)
            #expect(secret.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }
}

@Suite("Webhook receivers")
struct WebhookURLTests {
    @Test("https anywhere, http to this machine only, never credentials in the URL")
    func urls() {
        #expect(WebhookRoutes.urlProblem("https://paging.example.org/hook") == nil)
        #expect(WebhookRoutes.urlProblem("http://127.0.0.1:8099/hook") == nil)
        #expect(WebhookRoutes.urlProblem("http://localhost/hook") == nil)
        #expect(WebhookRoutes.urlProblem("http://[::1]:80/hook") == nil)
        #expect(WebhookRoutes.urlProblem("http://paging.example.org/hook") != nil)
        #expect(WebhookRoutes.urlProblem("https://user:pw@paging.example.org/hook") != nil)
        #expect(WebhookRoutes.urlProblem("ftp://example.org/") != nil)
        #expect(WebhookRoutes.urlProblem("paging.example.org/hook") != nil)
        #expect(WebhookRoutes.urlProblem("") != nil)
    }

    @Test("the body wraps the topic's message unchanged, with the text only when given")
    func body() throws {
        let taken = WebhookSender.Taken(
            webhookID: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, eventID: UUID(), eventType: "alert.raised", attempt: 1,
            message: #"{"eventType":"alert.raised","payload":{"alertId":"x"}}"#, url: "http://localhost/", secret: "s", text: nil)
        let plain = try JSONSerialization.jsonObject(with: Data(WebhookSender.body(of: taken))) as? [String: Any]
        #expect(plain?["webhookId"] as? String == "00000000-0000-0000-0000-000000000001")
        #expect((plain?["message"] as? [String: Any])?["eventType"] as? String == "alert.raised")
        #expect(plain?["text"] == nil)
        let withText = WebhookSender.Taken(
            webhookID: taken.webhookID, eventID: taken.eventID, eventType: taken.eventType, attempt: 1, message: taken.message, url: taken.url,
            secret: "s", text: "Take \"two\" tablets\nat night")
        let decoded = try JSONSerialization.jsonObject(with: Data(WebhookSender.body(of: withText))) as? [String: Any]
        #expect(decoded?["text"] as? String == "Take \"two\" tablets\nat night")
    }
}
