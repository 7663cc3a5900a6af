public import CaretideIdentity
import CaretideSchemas
import Foundation
public import Hummingbird
import NIOCore

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
    /// Bodies are read as `SchemaBody` values: validated against their schema and decoded in one step.
    public var requestDecoder: CaretideRequestDecoder { CaretideRequestDecoder() }
    /// The address the client called from: the connection's peer, or behind a trusted proxy the address the proxy
    /// forwarded (`ClientAddressMiddleware`). What an outside viewer's failed codes are counted against, and what the
    /// patient's list of openings shows.
    public var remoteAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        identity = nil
        requestID = Self.newRequestID()
        maxUploadSize = 2 * 1024 * 1024
        audit = nil
    }
}

extension CaretideRequestContext {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// 32 random lowercase hex digits, the form of a W3C trace id, written directly: every request makes one, and
    /// Foundation's string replacing cost as much as the rest of the request's own work.
    public static func newRequestID() -> String {
        let (high, low) = SystemRandom.twoWords()
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for index in 0..<32 {
                let word = index < 16 ? high : low
                buffer[index] = hexDigits[Int(truncatingIfNeeded: (word >> UInt64(60 - 4 * (index % 16))) & 0xF)]
            }
            return 32
        }
    }
}
