import CaretideStore
import HTTPTypes
import Hummingbird
import Logging

/// Every answer of 500 or above is logged at error level with the request id (`RequestIDMiddleware`), the route and
/// the error's type, never the body: an operator can find the failure a caller reports. An event too large to publish becomes a 413 naming the sizes; a database that is unreachable or
/// did not answer in time, a 503.
struct ServerErrorMiddleware: RouterMiddleware {
    typealias Context = CaretideRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            // `/readyz` answers 503 by design while the service is not ready; that is no failed request.
            if response.status.code >= 500, context.endpointPath != "/readyz" {
                log(request, context: context, status: response.status.code, error: nil)
            }
            return response
        } catch let error as EventTooLarge {
            throw HTTPProblem(status: .contentTooLarge, error: "the request is too large: \(error.description)")
        } catch let error as any HTTPResponseError {
            if error.status.code >= 500 { log(request, context: context, status: error.status.code, error: error) }
            throw error
        } catch  where TransientError.isTransient(error) {
            // The database is down, restarting or too slow: nothing was stored, and the same request may succeed.
            log(request, context: context, status: 503, error: error)
            throw HTTPProblem(status: .serviceUnavailable, error: "the database is unavailable or did not answer in time; send the request again")
        } catch {
            log(request, context: context, status: 500, error: error)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, error: (any Error)?) {
        var metadata: Logger.Metadata = [
            LogKey.requestID: "\(context.requestID)",
            LogKey.method: "\(request.method.rawValue)", LogKey.status: "\(status)",
            // The matched route pattern (e.g. /v1/patients/{patientId}/...), not the path with its ids.
            LogKey.route: "\(context.endpointPath ?? "unmatched")",
        ]
        if let error { metadata.merge(error.logMetadata) { $1 } }
        logger.error("request failed", metadata: metadata)
    }
}
