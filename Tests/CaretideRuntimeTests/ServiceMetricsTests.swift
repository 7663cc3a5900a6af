import Testing

@testable import CaretideRuntime

/// The series of answered requests (`ServiceMetrics.httpRequest`): one per route pattern, method and status, and
/// none a client can multiply by the words it sends as a method.
@Suite struct ServiceMetricsTests {
    @Test("requests are counted by route, method and status; a method outside HTTP's own counts as other")
    func httpRequests() {
        let metrics = ServiceMetrics()
        metrics.httpRequest(route: "/v1/foods", method: "GET", status: 200, .milliseconds(3))
        metrics.httpRequest(route: "/v1/foods", method: "GET", status: 200, .milliseconds(4))
        metrics.httpRequest(route: "unmatched", method: "BREW", status: 405, .milliseconds(1))
        metrics.httpRequest(route: "unmatched", method: "WHEN", status: 405, .milliseconds(1))
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"caretide_http_requests_total{route="/v1/foods",method="GET",status="200"} 2"#), "\(text)")
        #expect(text.contains(#"caretide_http_requests_total{route="unmatched",method="other",status="405"} 2"#), "\(text)")
        #expect(!text.contains("BREW") && !text.contains("WHEN"))
        #expect(text.contains(#"caretide_http_request_duration_seconds_count{route="/v1/foods",method="GET",status="200"} 2"#), "\(text)")
    }
}
