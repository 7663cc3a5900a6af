import HTTPTypes
import Hummingbird
import Logging

/// Every answered request, counted and logged: `caretide_http_requests_total` and
/// `caretide_http_request_duration_seconds` by route pattern, method and status, and one log line with the request
/// id, the route pattern (never the path with its ids), the status and the duration. Who called is in the audit
/// trail, not here. A path that matches no route is `unmatched`, so scanners cannot create a series per path.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CaretideRequestContext
    let metrics: ServiceMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, since: start)
            return response
        } catch {
            record(request, context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        // Hummingbird names the not-found responder's endpoint "NotFound"; route patterns start with a slash.
        let route = context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "unmatched"
        let duration = ContinuousClock.now - start
        let method = request.method.label
        metrics.httpRequest(route: route, method: method, status: status, duration)
        // Probes and scrapes every few seconds would drown the rest.
        switch route {
        case "/healthz", "/readyz", "/metrics": return
        default: break
        }
        logger.info(
            "request answered",
            metadata: [
                LogKey.requestID: .string(context.requestID), LogKey.method: .string(method), LogKey.route: .string(route),
                LogKey.status: .stringConvertible(status),
                // bounded: the request's own duration.
                LogKey.milliseconds: .stringConvertible(Int(duration.seconds * 1000)),
            ])
    }
}

extension HTTPRequest.Method {
    /// The method as metrics and logs name it: one of HTTP's own, or `other`, so that a client can neither make a series
    /// per word it sends as a method nor write its words into the log.
    var label: String {
        switch self {
        case .get, .head, .post, .put, .patch, .delete, .options: rawValue
        default: "other"
        }
    }
}
