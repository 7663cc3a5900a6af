import CaretideSchemas
import Foundation
import Hummingbird

/// Cursor pagination for list endpoints: `?limit=&cursor=`. A page answers `{"items": [...], "nextCursor": "…"}`;
/// `nextCursor` is absent on the last page. The cursor is opaque to callers: the sort position of the last item
/// (a time in microseconds and an id), so pages stay stable while new items arrive.
public struct PageRequest: Sendable, Equatable {
    public static let defaultLimit = 50
    public static let maximumLimit = 500

    public let limit: Int
    public let after: Cursor?

    public init(limit: Int = PageRequest.defaultLimit, after: Cursor? = nil) {
        self.limit = limit
        self.after = after
    }

    /// The position of the last item of the previous page.
    public struct Cursor: Sendable, Equatable {
        public let microseconds: Int64
        public let id: String

        public init(microseconds: Int64, id: String) {
            self.microseconds = microseconds
            self.id = id
        }

        public init(date: Date, id: String) {
            self.init(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()), id: id)
        }

        public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

        public var encoded: String {
            Data("\(microseconds)~\(id)".utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }

        public init?(encoded: String) {
            var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard encoded.utf8.count <= 200, let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
            let parts = text.split(separator: "~", maxSplits: 1)
            guard parts.count == 2, let microseconds = Int64(parts[0]), !parts[1].isEmpty else { return nil }
            self.init(microseconds: microseconds, id: String(parts[1]))
        }
    }

    /// Reads `limit` (1 to `maximumLimit`) and `cursor`, or a 400 naming each bad one.
    public static func from(_ request: Request) throws -> PageRequest {
        var violations: [SchemaViolation] = []
        var limit = defaultLimit
        if let text = request.uri.queryParameters.get("limit") {
            if let value = Int(text), (1...maximumLimit).contains(value) { limit = value } else {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["limit"]), message: "must be a whole number from 1 to \(maximumLimit)"))
            }
        }
        var after: Cursor?
        if let text = request.uri.queryParameters.get("cursor") {
            after = Cursor(encoded: text)
            if after == nil {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["cursor"]), message: "must be a nextCursor from an earlier page"))
            }
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return PageRequest(limit: limit, after: after)
    }
}

/// One page of a list.
public struct Page<Item: Encodable & Sendable>: Encodable, Sendable {
    public let items: [Item]
    public let nextCursor: String?

    /// `rows` fetched with `LIMIT limit + 1`: the extra row only says there is a next page.
    public init(rows: [Item], request: PageRequest, cursor: (Item) -> PageRequest.Cursor) {
        items = Array(rows.prefix(request.limit))
        nextCursor = rows.count > request.limit ? items.last.map { cursor($0).encoded } : nil
    }
}
