import CaretideIdentity
import CaretideSchemas
public import Foundation
public import Hummingbird

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

    /// The position of the last item of the previous page: its sort key (a time in microseconds, or a name) and its
    /// id, which breaks ties.
    public struct Cursor: Sendable, Equatable {
        public let position: String
        public let id: String

        public init(position: String, id: String) {
            self.position = position
            self.id = id
        }

        public init(date: Date, id: String) {
            // bounded: stored times were parsed from RFC 3339 with four-digit years.
            self.init(position: String(Int64((date.timeIntervalSince1970 * 1_000_000).rounded())), id: id)
        }

        public init(date: Date, id: UUID) {
            self.init(date: date, id: id.uuidString.lowercased())
        }

        /// The position as a time, for lists sorted by time.
        public var date: Date? { Int64(position).map { Date(timeIntervalSince1970: Double($0) / 1_000_000) } }
        public var uuid: UUID? { UUID(uuidString: id) }

        public var encoded: String { Base64URL.encode(Data("\(position)\u{1F}\(id)".utf8)) }

        public init?(encoded: String) {
            guard encoded.utf8.count <= 400, let data = Base64URL.decode(encoded), let text = String(data: data, encoding: .utf8) else { return nil }
            let parts = text.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[1].isEmpty else { return nil }
            self.init(position: String(parts[0]), id: String(parts[1]))
        }
    }

    /// The cursor of a list sorted by time and then a UUID, or a 400 when the cursor is of another form.
    public func timeAndUUID() throws -> (Date, UUID)? {
        guard let after else { return nil }
        guard let date = after.date, let id = after.uuid else { throw Self.badCursor }
        return (date, id)
    }

    public static let badCursor = HTTPProblem(
        status: .badRequest, error: "the query is invalid",
        violations: [SchemaViolation(pointer: JSONPointer(tokens: ["cursor"]), message: "must be a nextCursor from an earlier page")])

    /// Reads `limit` (1 to `maximumLimit`) and `cursor`, or a 400 naming each bad one.
    public static func from(_ request: Request) throws -> PageRequest {
        var violations: [SchemaViolation] = []
        var limit = defaultLimit
        if let text = request.uri.queryParameters.get("limit") {
            if let value = Int(text), (1...maximumLimit).contains(value) {
                limit = value
            } else {
                violations.append(
                    SchemaViolation(pointer: JSONPointer(tokens: ["limit"]), message: "must be a whole number from 1 to \(maximumLimit)"))
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
        self.init(rows: rows, request: request, cursor: cursor, item: { $0 })
    }

    /// Rows that carry their sort position beside the item the caller sees.
    public init<Row>(rows: [Row], request: PageRequest, cursor: (Row) -> PageRequest.Cursor, item: (Row) throws -> Item) rethrows {
        let kept = rows.prefix(request.limit)
        items = try kept.map(item)
        nextCursor = rows.count > request.limit ? kept.last.map { cursor($0).encoded } : nil
    }

    init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The same page with each item made into another (or left out); the cursor is the page's, so paging goes on
    /// where the rows it was read from stopped.
    public func compactMap<Other>(_ transform: (Item) throws -> Other?) rethrows -> Page<Other> {
        Page<Other>(items: try items.compactMap(transform), nextCursor: nextCursor)
    }
}
