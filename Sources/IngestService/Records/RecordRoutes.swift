import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The rules every input follows, whatever its kind:
/// - **create** (POST): stored once per id; re-sending the same id (an offline app syncing again) answers the original
///   receipt without a second event.
/// - **put** (PUT): creates, or corrects: a changed body becomes the next revision and a new event (downstream, the new
///   assessment supersedes the old one); an identical body changes nothing.
/// - **delete**: marks the record deleted and announces it, so downstream withdraws what it derived.
/// An id belongs to one patient: using it for another is a 409. Values the clinical rules cannot assess are a 422
/// naming every failing field, before anything is stored.
struct RecordRoutes: Sendable {
    let context: ServiceContext
    /// Concurrent single writes share a transaction (`RecordWriter`).
    let writer: GroupCommit<RecordWrite, Receipt>

    init(context: ServiceContext) {
        self.context = context
        writer = RecordWriter.groupCommit(context: context)
    }

    struct Receipt: Encodable, Sendable {
        let id: String
        let revision: Int
        let eventId: UUID?
        /// recorded, duplicate, corrected, unchanged or deleted.
        let status: WriteOutcome

        var httpStatus: HTTPResponse.Status { status == .recorded ? .created : .ok }

        init(id: String, outcome: RecordWriter.Outcome) {
            self.id = id
            revision = outcome.revision ?? 0
            eventId = outcome.eventID
            status = outcome.status
        }
    }

    enum Mode { case create, put }

    /// How far ahead of the server clock a device's clock may run: a reading "taken" later than this is refused.
    static let clockSkew: TimeInterval = 300

    /// The request's body if it passes the request schema (else a 400 naming every failing field); the clinical rules
    /// come next, in `checked`, once the route knows the record's id.
    func schemaValidBody(_ definition: RecordDefinition, request: Request, requestContext: some RequestContext) async throws -> JSONValue {
        try await request.validatedJSON(schema: definition.requestSchema, context: requestContext)
    }

    /// A body that passed its schema, decoded once and checked against the clinical rules and the clock (else a 422
    /// naming every failing field): ready for `store`.
    /// - Parameters:
    ///   - patientID: the patient it is for; nil: the patient its body names (an institution's report).
    ///   - recordID: the record it is for; nil: the id its body names (a POSTed measurement or meal).
    func checked(
        _ definition: RecordDefinition, mode: Mode, patientID: String?, recordID: String?, body: JSONValue, origin: WriteOrigin, now: Date = Date()
    ) throws -> RecordWrite {
        let record = try checkedRecord(definition, recordID: recordID, body: body, now: now)
        return RecordWrite(
            definition: definition, change: mode == .create ? .create(record) : .put(record),
            patientID: patientID ?? record.first.namedPatient ?? "", recordID: record.first.recordID, traceID: origin.traceID)
    }

    /// A body that passed its schema, decoded once and checked against the clinical rules and the clock (else a 422
    /// naming every failing field).
    func checkedRecord(_ definition: RecordDefinition, recordID: String?, body: JSONValue, now: Date = Date()) throws -> CheckedRecord {
        let payload = try definition.decode(body, recordID)
        let assessment = try assessed(definition, payload: payload, now: now)
        return CheckedRecord(body: body, bodyText: try CaretideJSON.encodeToString(body), first: payload, assessment: assessment)
    }

    /// A body from inside another document (a batch, an HL7 v2 or FHIR message), checked as its own request would be:
    /// its schema first, then, when its form is right, the clinical rules and the clock; when nothing is refused,
    /// decoded once and ready for `store`: a message checks every report before it stores any.
    enum Check {
        case refused([SchemaViolation])
        case ready(RecordWrite)
    }

    func check(
        _ definition: RecordDefinition, mode: Mode, patientID: String?, recordID: String, body: JSONValue, origin: WriteOrigin, now: Date = Date()
    ) throws -> Check {
        let schemaViolations = SchemaCatalog.bundled.validateRequest(definition.requestSchema, body)
        guard schemaViolations.isEmpty else { return .refused(schemaViolations) }
        do {
            return .ready(try checked(definition, mode: mode, patientID: patientID, recordID: recordID, body: body, origin: origin, now: now))
        } catch let problem as HTTPProblem where problem.status == .unprocessableContent {
            return .refused(problem.violations)
        }
    }

    /// What the clinical rules and the clock say of a payload decoded from a body that passed its schema: each value
    /// they cannot assess, and a time of observation in the future; and, when the rule could assess it, its
    /// assessment, which the answer shows where the caller waits for it (an NPI, a melanoma risk profile).
    func rules(_ definition: RecordDefinition, payload: RecordPayload, now: Date = Date()) -> (violations: [SchemaViolation], assessment: Assessment?)
    {
        var violations: [SchemaViolation] = []
        var assessment: Assessment?
        do {
            // The kind's own rule, not the engine's look-up: the definition knows its event.
            assessment = try payload.rule(now)
        } catch {
            violations = error.issues.map {
                SchemaViolation(pointer: JSONPointer(parsing: $0.field), message: $0.message + ($0.allowedRange.map { " (allowed: \($0))" } ?? ""))
            }
        }
        if let field = definition.observedAtField, payload.observedAt > now.addingTimeInterval(Self.clockSkew) {
            violations.append(SchemaViolation(pointer: JSONPointer(parsing: field), message: Self.futureMessage))
        }
        return (violations, assessment)
    }

    /// What the rules make of a payload (nil for a kind no rule assesses), or a 422 naming every field they refuse
    /// (`rules`).
    func assessed(_ definition: RecordDefinition, payload: RecordPayload, now: Date = Date()) throws -> Assessment? {
        let ruling = rules(definition, payload: payload, now: now)
        guard ruling.violations.isEmpty else {
            throw HTTPProblem(status: .unprocessableContent, error: "the values cannot be assessed", violations: ruling.violations)
        }
        return ruling.assessment
    }

    static let futureMessage = "must not be in the future (allowed: up to 5 minutes ahead of the server clock)"

    /// Stores a checked write in the next group commit; answers once it is committed.
    /// - Parameter origin: whose audit entry is recorded in the same transaction (its trace id is the write's).
    func store(_ write: RecordWrite, origin: WriteOrigin) async throws -> Receipt {
        try await writer.submit(write, origin: origin)
    }

    /// What a route adds to a body that passed its schema before it is checked, from what the service knows of the
    /// patient (a meal without its time zone takes the profile's): it is stored as completed, so the body stays JSON.
    typealias Completion = @Sendable (_ body: JSONValue, _ patientID: String) async throws -> JSONValue

    /// A POST of one record, which its body names (`RecordDefinition.idField`); re-sending it answers `duplicate`.
    func create(
        _ definition: RecordDefinition, request: Request, context: CaretideRequestContext, completing: Completion? = nil
    ) async throws -> Response {
        let patientID = try PatientID.fromPath(context)
        var body = try await schemaValidBody(definition, request: request, requestContext: context)
        if let completing { body = try await completing(body, patientID) }
        let write = try checked(definition, mode: .create, patientID: patientID, recordID: nil, body: body, origin: context.origin)
        let receipt = try await store(write, origin: context.origin)
        return try jsonResponse(receipt, status: receipt.httpStatus)
    }

    /// A PUT of one record at `id`, the id in the path, which the id its body names must equal.
    func put(
        _ definition: RecordDefinition, id: String, request: Request, context: CaretideRequestContext, completing: Completion? = nil
    ) async throws -> Response {
        let patientID = try PatientID.fromPath(context)
        var body = try await schemaValidBody(definition, request: request, requestContext: context)
        if let completing { body = try await completing(body, patientID) }
        let write = try checked(definition, mode: .put, patientID: patientID, recordID: id, body: body, origin: context.origin)
        if let field = definition.idField, write.record?.first.namedID != id {
            throw HTTPProblem.invalidBody([SchemaViolation(pointer: JSONPointer(tokens: [field]), message: "must equal the id in the path")])
        }
        let receipt = try await store(write, origin: context.origin)
        return try jsonResponse(receipt, status: receipt.httpStatus)
    }

    /// Deletes a record of the patient (a 404 if the patient has none of that id); deleting it again answers the same.
    func delete(_ definition: RecordDefinition, patientID: String, recordID: String, origin: WriteOrigin) async throws -> Receipt {
        guard definition.deletion != nil else { throw HTTPError(.methodNotAllowed) }
        return try await store(
            RecordWrite(definition: definition, change: .delete(), patientID: patientID, recordID: recordID, traceID: origin.traceID), origin: origin)
    }

    /// The patient a record belongs to, or a 404.
    func patientOwning(_ definition: RecordDefinition, recordID: String) async throws -> String {
        guard
            let patientID = try await RecordStore(context).patient(
                kind: definition.kind, id: recordID)
        else { throw HTTPProblem(status: .notFound, error: "no such record") }
        return patientID
    }

    /// One page of the patient's current (not deleted) records of `kinds` observed in `period`, oldest observation first.
    func list(patientID: String, kinds: [RecordKind], period: Period, page: PageRequest) async throws -> Page<JSONValue> {
        try await RecordStore(context).current(
            patientID: patientID, kinds: kinds, period: period, page: page)
    }

    static let idTaken = HTTPProblem(
        status: .conflict, error: "this id is already used",
        violations: [SchemaViolation(pointer: .root, message: "the id belongs to another record")])

}

extension JSONValue {
    /// This object with `members` added (replacing same-named ones): a completion's additions.
    func merging(_ members: [String: JSONValue]) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object.merge(members) { _, new in new }
        return .object(object)
    }
}
