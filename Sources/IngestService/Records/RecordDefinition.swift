import CaretideRuntime
import CaretideSchemas
import Foundation

/// How one kind of input (a pulse, an NPI, an exam report, …) is stored and announced. Every kind follows the same
/// rules (see `RecordRoutes`): only the request schema, the event and the mapping between them differ.
struct RecordDefinition: Sendable {
    /// The `record_type` column, e.g. "measurement:pulse".
    let recordType: String
    /// `Schemas/api/<requestSchema>.schema.json` validates the request body.
    let requestSchema: String
    let eventType: EventType
    /// The event payload as JSON: the validated request body completed with the record id and revision.
    let payload: @Sendable (_ body: JSONValue, _ recordID: String, _ revision: Int) -> JSONValue
    /// When the recorded fact happened, read from the decoded payload.
    let observedAt: @Sendable (any EventPayload) -> Date
    /// The request field that `observedAt` reads, if no clinical rule already bounds it: it may not lie in the future
    /// beyond clock skew (`RecordRoutes.clockSkew`).
    let observedAtField: String?
    /// The event announcing a deletion (or an entered-in-error mark), if the kind can be deleted.
    let deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?
    /// What else a new revision sets off in its transaction, after its event (an exam report's release).
    var onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision) async throws -> Void)? = nil
}

/// A revision just stored, for `RecordDefinition.onStored`.
struct StoredRevision: Sendable {
    let payload: any EventPayload
    let patientID: String
    let recordID: String
    let revision: Int
    let traceID: String
}

extension JSONValue {
    /// This object with `members` added (replacing same-named ones).
    func merging(_ members: [String: JSONValue]) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object.merge(members) { _, new in new }
        return .object(object)
    }
}
