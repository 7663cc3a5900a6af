import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// The patient's clinical inputs as the patient reads them, each with what the rules made of it:
/// - `GET /v1/patients/{patientId}/npi`: the NPI history (oldest diagnosis first), each with its prognostic group,
///   the group's 5-year survival, the tip, and the survival curve points to plot; `…/npi/{npiId}` one of them
///   (its page is `…/npi/{npiId}/report`);
/// - `GET /v1/patients/{patientId}/melanoma-risk`: the melanoma risk profiles, newest first (the first is the current
///   one), each with its factors, category, score and self-examination interval.
/// Corrections replace what they correct: only standing assessments are listed (the full trail is `…/assessments`).
struct ClinicalHistoryRoutes: Sendable {
    let context: ServiceContext
    /// The languages tips and labels are answered in.
    let tips: TipCatalog

    /// One NPI with its group and the curve of its group (`NottinghamPrognosticIndex.survivalCurve`).
    struct NPIEntry: Encodable, Sendable {
        let npiId: String
        let revision: Int
        let diagnosisDate: Date
        /// The inputs as recorded: tumour size, histological grade, lymph nodes.
        let inputs: JSONValue
        /// Who entered them: the patient, or a consultant of their care team (a ward round); absent for entries from
        /// before it was recorded.
        let recordedBy: JSONValue?
        let npi: Double?
        let lymphNodeStage: Int?
        let group: String
        let fiveYearSurvivalPercent: Int?
        let tip: String
        let tipText: String?
        let ruleSetVersion: String
        /// Every 6 months from diagnosis to 5 years; illustrative between the published 0 and 5-year points (an
        /// exponential fitted to the group's 5-year survival, see docs/clinical-rules.md §6).
        let survivalCurve: [SurvivalCurvePoint]
    }

    /// One melanoma risk profile with its category.
    struct MelanomaRiskEntry: Encodable, Sendable {
        let profileId: String
        let revision: Int
        let answeredAt: Date
        let factors: JSONValue
        let category: String
        let score: Int?
        let selfExaminationIntervalMonths: Int?
        let severity: String
        let tip: String
        let tipText: String?
        let ruleSetVersion: String
    }

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/npi", access: .patientData(.read),
            summary: "The patient's Nottingham Prognostic Index history with prognostic groups and survival curve points, oldest diagnosis first",
            query: Period.queryParameters, paged: true
        ) { request, requestContext in
            try await page(request, requestContext, kind: .nottinghamPrognosticIndex, newestFirst: false, item: Self.npiEntry)
        }
        routes.get(
            "v1/patients/:patientId/npi/:npiId", access: .patientData(.read),
            summary: "One NPI entry with its prognostic group, survival and curve points (404 once deleted)"
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let npiID = try requestContext.uuidParameter("npiId", label: "NPI id").uuidString.lowercased()
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            let found = try await AssessmentStore(context).history(
                patientID: patientID, query: .init(kinds: [.nottinghamPrognosticIndex], standingOnly: true, subjectID: npiID),
                page: PageRequest(limit: 1), texts: texts)
            guard let entry = found.items.first.flatMap(Self.npiEntry) else { throw HTTPProblem(status: .notFound, error: "no such NPI entry") }
            var response = try jsonResponse(entry)
            response.headers[.contentLanguage] = texts.language
            return response
        }
        routes.get(
            "v1/patients/:patientId/melanoma-risk", access: .patientData(.read),
            summary: "The patient's melanoma risk profiles with their categories, newest first (the first is current)",
            query: Period.queryParameters, paged: true
        ) { request, requestContext in
            try await page(request, requestContext, kind: .melanomaRisk, newestFirst: true) { Self.melanomaRiskEntry($0) }
        }
    }

    /// One melanoma risk profile: the factors as answered, with the category, score and self-examination interval the
    /// rules gave it.
    static func melanomaRiskEntry(_ entry: AssessmentStore.HistoryEntry) -> MelanomaRiskEntry {
        MelanomaRiskEntry(
            profileId: entry.subjectId, revision: entry.subjectRevision, answeredAt: entry.observedAt,
            factors: entry.inputs["factors"] ?? .object([:]), category: entry.category,
            score: entry.values["score"]?.numberValue.map { Int($0) },
            selfExaminationIntervalMonths: entry.values["selfExaminationIntervalMonths"]?.numberValue.map { Int($0) },
            severity: entry.severity, tip: entry.tip, tipText: entry.tipText, ruleSetVersion: entry.ruleSetVersion)
    }

    static func npiEntry(_ entry: AssessmentStore.HistoryEntry) -> NPIEntry? {
        guard let group = NPIPrognosticGroup(rawValue: entry.category) else { return nil }
        return NPIEntry(
            npiId: entry.subjectId, revision: entry.subjectRevision, diagnosisDate: entry.observedAt,
            inputs: Self.without(["npiId", "revision", "recordedBy"], entry.inputs), recordedBy: entry.inputs["recordedBy"],
            npi: entry.values["npi"]?.numberValue,
            lymphNodeStage: entry.values["lymphNodeStage"]?.numberValue.map { Int($0) }, group: entry.category,
            fiveYearSurvivalPercent: entry.values["fiveYearSurvivalPercent"]?.numberValue.map { Int($0) }, tip: entry.tip,
            tipText: entry.tipText, ruleSetVersion: entry.ruleSetVersion,
            survivalCurve: (try? NottinghamPrognosticIndex.survivalCurve(for: group)) ?? [])
    }

    private func page<Item: Encodable & Sendable>(
        _ request: Request, _ requestContext: CaretideRequestContext, kind: AssessmentKind, newestFirst: Bool,
        item: (AssessmentStore.HistoryEntry) -> Item?
    ) async throws -> Response {
        let patientID = try PatientID.fromPath(requestContext)
        let page = try PageRequest.from(request)
        let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
        let history = try await AssessmentStore(context).history(
            patientID: patientID, query: .init(kinds: [kind], standingOnly: true, newestFirst: newestFirst, period: try Period.from(request)),
            page: page, texts: texts)
        var response = try jsonResponse(history.compactMap(item))
        response.headers[.contentLanguage] = texts.language
        return response
    }

    static func without(_ keys: Set<String>, _ object: JSONValue) -> JSONValue {
        guard case .object(let members) = object else { return object }
        return .object(members.filter { !keys.contains($0.key) })
    }
}
