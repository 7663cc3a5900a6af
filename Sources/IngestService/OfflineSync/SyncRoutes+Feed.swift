import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// The feed: every change after a cursor, in commit order.
extension SyncRoutes {
    struct FeedPage: Encodable {
        let changes: [FeedEntry]
        let nextCursor: String
        let hasMore: Bool
    }

    struct FeedEntry: Encodable {
        /// `measurement`, `npi` or `melanoma-risk-profile`.
        let type: String
        /// The measurement kind, for measurements.
        let kind: String?
        let id: String
        let revision: Int
        /// The device's time of the change, or the server's for a change made without one.
        let updatedAt: Date
        let deleted: Bool
        let deletedAt: Date?
        /// The record as it was sent; absent for a tombstone.
        let record: JSONValue?
    }

    struct ResyncRequired: Encodable {
        let error = "deletions after this cursor are no longer kept; read the feed again without a cursor and replace the local copy"
        let resyncRequired = true
    }

    func feed(_ request: Request, _ context: CaretideRequestContext) async throws -> Response {
        let patientID = try PatientID.fromPath(context)
        let page = try PageRequest.from(request)
        let after = try Self.changeNumber(page.after)
        let device = try Self.deviceID(request)
        let store = ChangeFeedStore(records.context)
        let (purgedThrough, changes) = try await store.changes(patientID: patientID, after: after, limit: page.limit, kinds: Self.feedKinds)
        // Without a cursor (or from 0) a device takes the current state, which needs no tombstones.
        if after > 0, after < purgedThrough {
            return try jsonResponse(ResyncRequired(), status: .gone)
        }
        if let device {
            try await store.deviceRead(patientID: patientID, deviceID: device, syncedThrough: after)
        }
        let shown = changes.prefix(page.limit)
        return try jsonResponse(
            FeedPage(
                changes: try shown.map(Self.entry), nextCursor: Self.cursor(shown.last?.seq ?? after), hasMore: changes.count > page.limit))
    }

    static func entry(_ change: ChangeFeedStore.Change) throws -> FeedEntry {
        FeedEntry(
            type: change.kind.family, kind: change.kind.measurementKind?.rawValue, id: change.recordID, revision: change.revision,
            updatedAt: change.updatedAt,
            deleted: change.deletedAt != nil, deletedAt: change.deletedAt,
            record: change.deletedAt == nil ? try CaretideJSON.parse(Array(change.body.utf8)) : nil)
    }

    /// The feed's cursors are change numbers, opaque to callers like every page cursor.
    static func cursor(_ changeNumber: Int64) -> String { PageRequest.Cursor(position: String(changeNumber), id: "change").encoded }

    static func changeNumber(_ cursor: PageRequest.Cursor?) throws -> Int64 {
        guard let cursor else { return 0 }
        guard cursor.id == "change", let number = Int64(cursor.position), number >= 0 else { throw PageRequest.badCursor }
        return number
    }

    static func deviceID(_ request: Request) throws -> String? {
        guard let text = request.uri.queryParameters.get("device") else { return nil }
        guard let device = CaretideRequestContext.callerChosenID(text) else {
            throw HTTPProblem(
                status: .badRequest, error: "the query is invalid",
                violations: [SchemaViolation(pointer: JSONPointer(tokens: ["device"]), message: "must be 1 to 64 of A-Z a-z 0-9 . _ -")])
        }
        return device
    }
}
