import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// How one kind of input (a pulse, an NPI, an exam report, a meal, …) is stored and announced. Every kind follows the
/// same rules (see `RecordRoutes`): only the request schema, the event and the mapping between them differ. It is built
/// from its event's Swift type, so what it reads of a payload is typed: no kind casts a payload back.
struct RecordDefinition: Sendable {
    /// What it is: its `record_type` and the schema of its request body.
    let kind: RecordKind
    /// The event payload as JSON: the validated request body completed with the record id and revision (and, for a
    /// meal, what the food table says of it). Throws an `HTTPProblem` (422) naming every field it cannot resolve.
    let payload: @Sendable (_ body: JSONValue, _ recordID: String, _ revision: Int) throws -> JSONValue
    /// The payload decoded from that JSON, with what the definition reads of it.
    let decode: @Sendable (_ payload: JSONValue) throws -> RecordPayload
    /// The request field that `observedAt` reads, if no clinical rule already bounds it: it may not lie in the future
    /// beyond clock skew (`RecordRoutes.clockSkew`).
    let observedAtField: String?
    /// The event announcing a deletion (or an entered-in-error mark), if the kind can be deleted.
    let deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?

    /// A kind whose event a clinical rule assesses: ingest refuses what the rule cannot assess.
    /// - Parameters:
    ///   - observedAt: when the recorded fact happened, read from the payload.
    ///   - onStored: what else a new revision sets off in its transaction, after its event (an exam report's release).
    init<Event: AssessedPayload>(
        kind: RecordKind, event: Event.Type, payload: @escaping @Sendable (_ body: JSONValue, _ recordID: String, _ revision: Int) -> JSONValue,
        observedAt: @escaping @Sendable (Event) -> Date, observedAtField: String?,
        deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?,
        onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision, _ event: Event) async throws -> Void)? = nil
    ) {
        self.init(
            kind: kind, event: event, resolvedPayload: payload, observedAt: observedAt, observedAtField: observedAtField, deletion: deletion,
            rule: { event, now throws(DomainValidationError) in try event.assessment(now: now) }, onStored: onStored)
    }

    /// Any kind: `resolvedPayload` may refuse a body its schema let through (a meal naming a food the table lacks), and
    /// `rule` answers the kind's assessment, if it has one, or throws naming every value it refuses.
    init<Event: EventPayload>(
        kind: RecordKind, event: Event.Type,
        resolvedPayload: @escaping @Sendable (_ body: JSONValue, _ recordID: String, _ revision: Int) throws -> JSONValue,
        observedAt: @escaping @Sendable (Event) -> Date, observedAtField: String?,
        deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?,
        rule: @escaping @Sendable (Event, Date) throws(DomainValidationError) -> Assessment?,
        onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision, _ event: Event) async throws -> Void)? = nil
    ) {
        self.kind = kind
        self.payload = resolvedPayload
        self.decode = { document in
            let event = try JSONValueDecoder.decode(Event.self, from: document)
            var stored: (@Sendable (HandlerContext, StoredRevision) async throws -> Void)?
            if let onStored { stored = { handler, revision in try await onStored(handler, revision, event) } }
            return RecordPayload(
                event: event, observedAt: observedAt(event), rule: { now throws(DomainValidationError) in try rule(event, now) }, onStored: stored)
        }
        self.observedAtField = observedAtField
        self.deletion = deletion
    }
}

/// A record's event decoded from its body, and what its definition reads of it.
struct RecordPayload: Sendable {
    let event: any EventPayload
    /// When the recorded fact happened.
    let observedAt: Date
    /// The kind's rule applied to the event (`now` bounds dates): its assessment, nil for a kind no rule assesses, or
    /// the error naming every value it refuses.
    let rule: @Sendable (_ now: Date) throws(DomainValidationError) -> Assessment?
    /// What storing it sets off in the same transaction, after its event, if anything.
    let onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision) async throws -> Void)?
}

/// A revision just stored, for `RecordDefinition`'s `onStored`.
struct StoredRevision: Sendable {
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
