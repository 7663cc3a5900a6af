import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// An event that announces a revision of a record: every kind's event carries the revision it announces.
protocol RecordEvent: EventPayload {
    var revision: Int { get set }
}

extension BloodPressureRecorded: RecordEvent {}
extension PulseRecorded: RecordEvent {}
extension BodyMeasurementRecorded: RecordEvent {}
extension GlucoseRecorded: RecordEvent {}
extension HbA1cRecorded: RecordEvent {}
extension LipidPanelRecorded: RecordEvent {}
extension NPIInputsRecorded: RecordEvent {}
extension MelanomaRiskProfileRecorded: RecordEvent {}
extension ExamResultRecorded: RecordEvent {}
extension MealRecorded: RecordEvent {}

/// How one kind of input (a pulse, an NPI, an exam report, a meal, …) is stored and announced. Every kind follows the
/// same rules (see `RecordRoutes`): only the request, the event and the mapping between them differ. It is built from
/// the two Swift types, so a body is decoded once into its typed request, and the event is made from that value: no
/// kind reads a field by its name or merges JSON.
struct RecordDefinition: Sendable {
    /// What it is: its `record_type`.
    let kind: RecordKind
    /// The schema its request body must pass: the request type's.
    let requestSchema: RequestSchema
    /// The body member that names the record (a measurement's `measurementId`), for the kinds whose body names it;
    /// the others take their id from the path.
    let idField: String?
    /// A body that passed its schema, decoded into its request once and made into its event at revision 1 for the
    /// record `recordID` (nil: the id the body names), with what the definition reads of it. Throws an `HTTPProblem`
    /// naming every field it cannot resolve (a meal's food that the table lacks: 422).
    let decode: @Sendable (_ body: JSONValue, _ recordID: String?) throws -> RecordPayload
    /// The request field that `observedAt` reads, if no clinical rule already bounds it: it may not lie in the future
    /// beyond clock skew (`RecordRoutes.clockSkew`).
    let observedAtField: String?
    /// The event announcing a deletion (or an entered-in-error mark), if the kind can be deleted.
    let deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?

    /// A kind whose event a clinical rule assesses: ingest refuses what the rule cannot assess.
    /// - Parameters:
    ///   - event: the event of revision 1 that a request makes for a record id.
    ///   - observedAt: when the recorded fact happened, read from the event.
    ///   - onStored: what else a new revision sets off in its transaction, after its event (an exam report's release).
    init<Request: SchemaBody, Event: RecordEvent & AssessedPayload>(
        kind: RecordKind, request: Request.Type, named: RecordNames<Request> = RecordNames(),
        event: @escaping @Sendable (_ request: Request, _ recordID: String) throws -> Event,
        observedAt: @escaping @Sendable (Event) -> Date, observedAtField: String?,
        deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?,
        onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision, _ event: Event) async throws -> Void)? = nil
    ) {
        self.init(
            kind: kind, request: request, named: named, event: event, observedAt: observedAt, observedAtField: observedAtField,
            deletion: deletion, rule: { event, now throws(DomainValidationError) in try event.assessment(now: now) }, onStored: onStored)
    }

    /// Any kind: `event` may refuse a request its schema let through (a meal naming a food the table lacks), and
    /// `rule` answers the kind's assessment, if it has one, or throws naming every value it refuses.
    init<Request: SchemaBody, Event: RecordEvent>(
        kind: RecordKind, request: Request.Type, named: RecordNames<Request> = RecordNames(),
        event: @escaping @Sendable (_ request: Request, _ recordID: String) throws -> Event,
        observedAt: @escaping @Sendable (Event) -> Date, observedAtField: String?,
        deletion: (@Sendable (_ recordID: String, _ at: Date) -> any EventPayload)?,
        rule: @escaping @Sendable (Event, Date) throws(DomainValidationError) -> Assessment?,
        onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision, _ event: Event) async throws -> Void)? = nil
    ) {
        self.kind = kind
        requestSchema = Request.schema
        idField = named.idField
        self.decode = { body, recordID in
            let request: Request
            do {
                request = try JSONValueDecoder.decode(Request.self, from: body)
            } catch let error as DecodingError {
                throw HTTPProblem.invalidBody([error.violation])
            }
            let namedID = named.id?(request).uuidString.lowercased()
            guard let id = recordID ?? namedID else { throw HTTPProblem.invalidBody([SchemaViolation(pointer: .root, message: "names no record")]) }
            return RecordPayload(
                try event(request, id), recordID: id, namedID: namedID, namedPatient: named.patient?(request), observedAt: observedAt, rule: rule,
                onStored: onStored)
        }
        self.observedAtField = observedAtField
        self.deletion = deletion
    }
}

/// What a kind's request names besides its values: the record's id (a measurement's `measurementId`, in the
/// body member `idField`), or the patient (an institution's report); kinds that name neither take both from the path.
struct RecordNames<Request>: Sendable {
    var idField: String?
    var id: (@Sendable (Request) -> UUID)?
    var patient: (@Sendable (Request) -> String)?

    init() {}

    static func id(in field: String, _ id: @escaping @Sendable (Request) -> UUID) -> RecordNames {
        var names = RecordNames()
        names.idField = field
        names.id = id
        return names
    }

    static func patient(_ patient: @escaping @Sendable (Request) -> String) -> RecordNames {
        var names = RecordNames()
        names.patient = patient
        return names
    }
}

/// A record's event made from its request, and what its definition reads of it.
struct RecordPayload: Sendable {
    let event: any RecordEvent
    /// The record it is for: the id given, else the id its body names.
    let recordID: String
    /// The id its body names (lowercased), for a kind whose body names one.
    let namedID: String?
    /// The patient its body names, for a kind whose body names one (an institution's report).
    let namedPatient: String?
    /// When the recorded fact happened.
    let observedAt: Date
    /// The kind's rule applied to the event (`now` bounds dates): its assessment, nil for a kind no rule assesses, or
    /// the error naming every value it refuses.
    let rule: @Sendable (_ now: Date) throws(DomainValidationError) -> Assessment?
    /// What storing it sets off in the same transaction, after its event, if anything.
    let onStored: (@Sendable (_ handler: HandlerContext, _ stored: StoredRevision) async throws -> Void)?

    /// Whatever revision it becomes (`revised`), made from the event of that revision.
    private let reviser: @Sendable (_ revision: Int) -> RecordPayload

    init<Event: RecordEvent>(
        _ event: Event, recordID: String, namedID: String?, namedPatient: String?, observedAt: @escaping @Sendable (Event) -> Date,
        rule: @escaping @Sendable (Event, Date) throws(DomainValidationError) -> Assessment?,
        onStored: (@Sendable (HandlerContext, StoredRevision, Event) async throws -> Void)?
    ) {
        self.event = event
        self.recordID = recordID
        self.namedID = namedID
        self.namedPatient = namedPatient
        self.observedAt = observedAt(event)
        self.rule = { now throws(DomainValidationError) in try rule(event, now) }
        if let onStored { self.onStored = { handler, stored in try await onStored(handler, stored, event) } } else { self.onStored = nil }
        reviser = { revision in
            var revised = event
            revised.revision = revision
            return RecordPayload(
                revised, recordID: recordID, namedID: namedID, namedPatient: namedPatient, observedAt: observedAt, rule: rule, onStored: onStored)
        }
    }

    /// The same record as revision `revision`: only the event's revision differs, so nothing is decoded again.
    func revised(_ revision: Int) -> RecordPayload { reviser(revision) }
}

/// A revision just stored, for `RecordDefinition`'s `onStored`.
struct StoredRevision: Sendable {
    let patientID: String
    let recordID: String
    let revision: Int
    let traceID: String
}
