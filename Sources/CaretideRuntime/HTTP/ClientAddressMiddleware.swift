import HTTPTypes
import Hummingbird

/// Behind trusted proxies, takes the client's address from `X-Forwarded-For` (`TrustedProxies`); added only where a
/// deployment names its proxies, so a service reached directly never reads the header.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = CaretideRequestContext

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.remoteAddress = proxies.clientAddress(peer: context.remoteAddress, forwardedFor: request.headers[values: Self.forwardedFor])
        return try await next(request, context)
    }
}
