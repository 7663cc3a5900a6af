import AsyncHTTPClient
import Logging
import NIOCore

/// The HTTP client a delivery job (webhooks, the report e-mail's PDF) holds while it runs: redirects are not followed
/// (a receiver names its address when it is registered), every wait is bounded, and the client is shut down however
/// the job ends.
func withDeliveryHTTPClient(readTimeout: TimeAmount, logger: Logger, _ body: (HTTPClient) async throws -> Void) async throws {
    let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: readTimeout)),
        backgroundActivityLogger: logger)
    do {
        try await body(client)
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
}
