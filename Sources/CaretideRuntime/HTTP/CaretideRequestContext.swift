import CaretideIdentity
import Foundation
import Hummingbird

/// The context every Caretide route sees: Hummingbird's core, the caller's verified identity (set by
/// `AuthenticationMiddleware`; nil on the open operational routes and when authentication is disabled), the request
/// id, and the body limit of the matched route.
public struct CaretideRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: Identity?
    /// The caller's trace id (from `traceparent` or `X-Request-ID`) or one of our own; logged with every failure and
    /// carried as the trace id of the events the request causes.
    public var requestID: String
    /// Set per route by `APIRoutes` to what the route accepts; Hummingbird's default until then.
    public var maxUploadSize: Int
    /// On routes that touch patient data: the request's audit entry, which a write records in its own transaction
    /// (`ServiceContext.transaction(auditing:status:_:)`).
    public var audit: RequestAudit?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        requestID = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        maxUploadSize = 2 * 1024 * 1024
        audit = nil
    }
}
