public import CaretideIdentity
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
        var generator = SystemRandomNumberGenerator()
        var digits = [UInt8]()
        digits.reserveCapacity(32)
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 60, through: 0, by: -4) { digits.append(hexDigits[Int((word >> UInt64(shift)) & 0xF)]) }
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
