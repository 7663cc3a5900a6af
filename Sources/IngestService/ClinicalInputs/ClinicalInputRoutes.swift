import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Hummingbird

/// Clinical inputs a patient or clinician enters:
/// - `PUT /v1/patients/{patientId}/npi/{npiId}`: Nottingham Prognostic Index inputs (PUT again to correct), by the
///   patient or a consultant of their care team (a ward round), marked with who entered them
/// - `DELETE /v1/patients/{patientId}/npi/{npiId}`: delete an entry: its assessment is withdrawn everywhere
/// - `PUT /v1/patients/{patientId}/melanoma-risk-profiles/{profileId}`: melanoma risk factors (the newest profile is current)
/// - `DELETE /v1/patients/{patientId}/melanoma-risk-profiles/{profileId}`: withdraw (reset) a profile
struct ClinicalInputRoutes: Sendable {
    let records: RecordRoutes

    /// NPI inputs as the request gives them, with who entered them (`enteredBy`, set by the service).
    struct NPIRequest: SchemaBody {
        static let schema: RequestSchema = .npi
        let tumourSizeCm: Double
        let histologicalGrade: Int
        let lymphNodeStage: Int?
        let positiveNodes: Int?
        let diagnosisDate: Date
        let recordedBy: RecordedBy?
    }

    static let npi = RecordDefinition(
        kind: .npi, request: NPIRequest.self,
        event: { request, id in
            NPIInputsRecorded(
                npiID: try recordUUID(id), tumourSizeCm: request.tumourSizeCm, histologicalGrade: request.histologicalGrade,
                lymphNodeStage: request.lymphNodeStage, positiveNodes: request.positiveNodes, diagnosisDate: request.diagnosisDate,
                recordedBy: request.recordedBy)
        },
        observedAt: \.diagnosisDate,
        // The NPI rule itself refuses a diagnosis date in the future.
        observedAtField: nil,
        deletion: { id, at in NPIInputsDeleted(npiID: UUID(uuidString: id)!, deletedAt: at) })

    /// A risk profile's request is its answers: the factors, answered when they are recorded.
    struct RiskAnswers: SchemaBody {
        static let schema: RequestSchema = .melanomaRiskProfile
        let factors: MelanomaRiskInput
        init(from decoder: any Decoder) throws { factors = try MelanomaRiskInput(from: decoder) }
    }

    static let melanomaRiskProfile = RecordDefinition(
        kind: .melanomaRiskProfile, request: RiskAnswers.self,
        event: { answers, id in MelanomaRiskProfileRecorded(profileID: try recordUUID(id), answeredAt: Date(), factors: answers.factors) },
        observedAt: \.answeredAt,
        observedAtField: "/answeredAt",
        deletion: { id, at in MelanomaRiskProfileWithdrawn(profileID: UUID(uuidString: id)!, withdrawnAt: at) })

    /// The id of an NPI entry or a risk profile, which the route took from its path as a UUID.
    static func recordUUID(_ id: String) throws -> UUID {
        guard let uuid = UUID(uuidString: id) else {
            throw HTTPProblem.invalidBody([SchemaViolation(pointer: .root, message: "the record's id must be a valid uuid")])
        }
        return uuid
    }

    func register(on routes: APIRoutes) {
        for (path, parameter, definition, access, summary) in [
            (
                "npi", "npiId", Self.npi, Access.patientData(.record),
                "Record or correct Nottingham Prognostic Index inputs (the patient, or a consultant of the care team on a ward round); answers the NPI, its group and 5-year survival"
            ),
            (
                "melanoma-risk-profiles", "profileId", Self.melanomaRiskProfile, .patientData(.write),
                "Record a melanoma risk-factor profile (the newest is current); answers its category and self-check interval"
            ),
        ] {
            routes.put(
                "v1/patients/:patientId/\(path)/:\(parameter)", access: access, summary: summary, body: [definition.requestSchema]
            ) { request, context in
                let patientID = try PatientID.fromPath(context)
                let id = try context.uuidParameter(parameter, label: "id").uuidString.lowercased()
                let (body, fromProfile): (JSONValue, [String]?) =
                    definition.kind == .melanomaRiskProfile
                    ? try await riskAnswers(request, context: context, patientID: patientID)
                    : (
                        Self.enteredBy(context.identity, try await records.schemaValidBody(definition, request: request, requestContext: context)),
                        nil
                    )
                let write = try records.checked(definition, mode: .put, patientID: patientID, recordID: id, body: body, origin: context.origin)
                let receipt = try await records.store(write, origin: context.origin)
                return try jsonResponse(
                    RecordedWithRules(
                        id: receipt.id, revision: receipt.revision, eventId: receipt.eventId, status: receipt.status,
                        assessment: try Self.answer(write.record?.assessment, body: body, fromProfile: fromProfile)),
                    status: receipt.httpStatus)
            }
        }
        for (path, parameter, definition, access, summary) in [
            (
                "npi", "npiId", Self.npi, Access.patientData(.record),
                "Delete a Nottingham Prognostic Index entry: its assessment is withdrawn from the history, series and report, and its alerts withdrawn"
            ),
            (
                "melanoma-risk-profiles", "profileId", Self.melanomaRiskProfile, .patientData(.write),
                "Withdraw (reset) a melanoma risk profile: its assessment and alert are withdrawn and the self-check reminder it set is cancelled"
            ),
        ] {
            routes.delete("v1/patients/:patientId/\(path)/:\(parameter)", access: access, summary: summary) { _, context in
                let patientID = try PatientID.fromPath(context)
                let id = try context.uuidParameter(parameter, label: "id").uuidString.lowercased()
                return try jsonResponse(try await records.delete(definition, patientID: patientID, recordID: id, origin: context.origin))
            }
        }
        // The apps' "Calculate" buttons: the same rules on the same body, nothing stored, nobody's data read.
        for (path, definition, summary) in [
            ("v1/npi/calculate", Self.npi, "Calculate a Nottingham Prognostic Index, its group and survival without storing anything"),
            ("v1/melanoma-risk/calculate", Self.melanomaRiskProfile, "Calculate a melanoma risk category without storing anything"),
        ] {
            routes.post(path, access: .calculators, summary: summary, body: [definition.requestSchema]) { request, context in
                let body =
                    definition.kind == .melanomaRiskProfile
                    ? try await riskAnswers(request, context: context, patientID: nil).0
                    : try await records.schemaValidBody(definition, request: request, requestContext: context)
                let payload = try definition.decode(body, UUID().uuidString.lowercased())
                return try jsonResponse(try Self.answer(try records.assessed(definition, payload: payload), body: body))
            }
        }
    }

    /// A risk profile's answers as sent, completed from the patient's profile when recorded for one
    /// (`completedFromProfile`). When its schema refuses it, the 400 names age and sex as well wherever neither the
    /// body nor the profile gives them: one answer names every field the rule will need, whatever its source.
    func riskAnswers(_ request: Request, context: CaretideRequestContext, patientID: String?) async throws -> (JSONValue, [String]?) {
        let (document, violations) = try await request.checkedJSON(schema: .melanomaRiskProfile, context: context)
        let (completed, fromProfile) =
            if let patientID { try await Self.completedFromProfile(document, patientID: patientID, records: records) } else { (document, nil) }
        guard violations.isEmpty else {
            let unanswered = ["age", "sex"].filter { completed[$0] == nil }.map {
                SchemaViolation(
                    pointer: JSONPointer(tokens: [$0]),
                    message: patientID == nil ? "is required" : "is required (the patient's profile does not give it)")
            }
            throw HTTPProblem.invalidBody(violations + unanswered)
        }
        return (completed, fromProfile)
    }

    /// NPI inputs with who entered them, so the patient's history shows a ward round's entry as such.
    static func enteredBy(_ identity: Identity?, _ body: JSONValue) -> JSONValue {
        guard let identity else { return body }
        return body.merging(["recordedBy": .object(["role": .string(identity.role.rawValue), "id": .string(identity.subject)])])
    }

    /// The NPI and the melanoma profile are assessed kinds: their rule answers whenever it refuses nothing. A melanoma
    /// answer names the optional factors the body left out, which carried no weight.
    static func answer(_ assessment: Assessment?, body: JSONValue, fromProfile: [String]? = nil) throws -> RuleAnswer {
        guard let assessment else { throw HTTPError(.internalServerError) }
        let unanswered =
            assessment.kind == .melanomaRisk ? MelanomaRiskFactor.optional.map(\.rawValue).filter { body[$0] == nil } : nil
        return RuleAnswer(assessment, unansweredFactors: unanswered, fromProfile: fromProfile)
    }

    /// A melanoma risk profile without an age or a sex takes them from the patient's profile (the age today in the
    /// profile's time zone; a sex of unknown gives none), so the app need not ask again what the patient told it once.
    /// What neither gives is refused by the rule as missing. Answers the body and the factors it took.
    static func completedFromProfile(_ body: JSONValue, patientID: String, records: RecordRoutes) async throws -> (JSONValue, [String]?) {
        guard lacksProfileFactors(body) else { return (body, nil) }
        return completed(body, from: try await ProfileStore(records.context).current(patientID: patientID)?.profile)
    }

    static func lacksProfileFactors(_ body: JSONValue) -> Bool { body["age"] == nil || body["sex"] == nil }

    /// `completedFromProfile` with the profile read; the age is the one at `instant` (now, unless a test fixes it).
    static func completed(_ body: JSONValue, from profile: PatientProfile?, at instant: Date = Date()) -> (JSONValue, [String]?) {
        guard let profile, lacksProfileFactors(body) else { return (body, nil) }
        var completed: [String: JSONValue] = [:]
        if body["age"] == nil, let age = profile.age(at: instant) { completed["age"] = .number(Double(age)) }
        if body["sex"] == nil, let sex = profile.sex?.administrativeSex { completed["sex"] = .string(sex.rawValue) }
        guard !completed.isEmpty else { return (body, nil) }
        return (body.merging(completed), completed.keys.sorted())
    }
}
