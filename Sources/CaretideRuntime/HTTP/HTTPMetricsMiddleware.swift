import Hummingbird

/// Counts every answered request and its duration by route pattern, method and status
/// (`caretide_http_requests_total`, `caretide_http_request_duration_seconds`). A path that matches no route is
/// counted as `unmatched`, so scanners cannot create a series per path.
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = CaretideRequestContext
    let metrics: ServiceMetrics

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
        metrics.httpRequest(route: route, method: request.method.rawValue, status: status, ContinuousClock.now - start)
    }
}
