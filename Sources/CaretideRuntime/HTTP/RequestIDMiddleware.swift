import HTTPTypes
import Hummingbird
import Logging

/// Takes the request id from the W3C `traceparent` header (its trace id) or `X-Request-ID`, when the caller sent a
/// well-formed one, and answers it in `X-Request-ID`; an id that could be caller text is ignored.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = CaretideRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let id = Self.requestID(traceparent: request.headers[.traceparent], requestID: request.headers[.requestID]) {
            context.requestID = id
        }
        context.logger[metadataKey: LogKey.requestID] = "\(context.requestID)"
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = context.requestID
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[.requestID] = context.requestID
            return response
        }
    }

    /// `traceparent` is `version-traceid-parentid-flags` (W3C Trace Context §3.2): 2, 32, 16 and 2 lowercase hex
    /// digits; the all-zero trace id is invalid.
    static func requestID(traceparent: String?, requestID: String?) -> String? {
        if let traceparent {
            let parts = traceparent.split(separator: "-", omittingEmptySubsequences: false)
            if parts.count >= 4, parts[0].count == 2, parts[1].count == 32, parts[2].count == 16, parts[3].count == 2,
                parts[1].utf8.allSatisfy(\.isLowercaseHexDigit), parts[1].utf8.contains(where: { $0 != UInt8(ascii: "0") })
            {
                return String(parts[1])
            }
        }
        return wellFormed(requestID)
    }

    /// The caller's request id if it is one (up to 64 of `A-Z a-z 0-9 . _ -`): anything else is caller text.
    static func wellFormed(_ header: String?) -> String? {
        guard let header, (1...64).contains(header.utf8.count),
            header.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return nil }
        return header
    }
}

extension CaretideRequestContext {
    /// An id a caller names for itself (a sync device), under the rule of request ids, or nil for anything else.
    public static func callerChosenID(_ text: String?) -> String? { RequestIDMiddleware.wellFormed(text) }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-ID")!
    static let traceparent = HTTPField.Name("traceparent")!
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }

    var isLowercaseHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
    }
}
