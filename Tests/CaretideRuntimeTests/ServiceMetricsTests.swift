import HTTPTypes
import Testing

@testable import CaretideRuntime

/// The series of answered requests (`ServiceMetrics.httpRequest`): one per route pattern, method and status, and
/// none a client can multiply by the words it sends as a method (`HTTPRequest.Method.label`).
@Suite struct ServiceMetricsTests {
    @Test("requests are counted by route, method and status; a method outside HTTP's own counts as other")
    func httpRequests() throws {
        let metrics = ServiceMetrics()
        let get = HTTPRequest.Method.get.label
        metrics.httpRequest(route: "/v1/foods", method: get, status: 200, .milliseconds(3))
        metrics.httpRequest(route: "/v1/foods", method: get, status: 200, .milliseconds(4))
        for word in ["BREW", "WHEN"] {
            metrics.httpRequest(route: "unmatched", method: try #require(HTTPRequest.Method(word)).label, status: 405, .milliseconds(1))
        }
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"caretide_http_requests_total{route="/v1/foods",method="GET",status="200"} 2"#), "\(text)")
        #expect(text.contains(#"caretide_http_requests_total{route="unmatched",method="other",status="405"} 2"#), "\(text)")
        #expect(!text.contains("BREW") && !text.contains("WHEN"))
        #expect(text.contains(#"caretide_http_request_duration_seconds_count{route="/v1/foods",method="GET",status="200"} 2"#), "\(text)")
    }

    @Test("HTTP's own methods keep their names", arguments: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func ownMethods(_ name: String) throws {
        #expect(try #require(HTTPRequest.Method(name)).label == name)
    }
}
