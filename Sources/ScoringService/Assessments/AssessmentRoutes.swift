import CaretideDomain
import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// `GET /v1/patients/{patientId}/assessments`: the patient's assessments, oldest observation first, each with what was
/// assessed (`inputs`) and whether it still stands (`superseded_by` and `withdrawn` say why not). `?standing=true`
/// lists only those that stand; `?kind=bloodPressure` (repeatable) only those kinds: a measurement history with each
/// assessment.
///
/// A patient reads exam reports only once the institution releases them, from ingest-service
/// (`GET /v1/patients/{id}/exam-results`); scoring does not know about releases, so it lists exam-report assessments
/// to the patient's care team and the institution, never to the patient.
struct AssessmentRoutes: Sendable {
    let context: ServiceContext
    /// The languages tips and labels are answered in.
    let tips: TipCatalog

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/assessments", access: .patientData(.read),
            summary: "The patient's assessments with their provenance, oldest observation first",
            query: [
                .init("standing", "true: only assessments neither superseded nor withdrawn"),
                .init(
                    "kind",
                    "only this kind (bloodPressure, pulse, bodyMassIndex, glucose, hba1c, lipids, nottinghamPrognosticIndex, melanomaRisk, examResult, lesionPhoto); repeatable"
                ),
            ] + Period.queryParameters, paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            var query = AssessmentStore.HistoryQuery(
                standingOnly: request.uri.queryParameters.get("standing") == "true", period: try Period.from(request))
            var unknown: [SchemaViolation] = []
            for text in request.uri.queryParameters.getAll("kind") {
                if let kind = AssessmentKind(rawValue: String(text)) {
                    query.kinds.append(kind)
                } else {
                    unknown.append(SchemaViolation(pointer: JSONPointer(tokens: ["kind"]), message: "is not a kind of assessment"))
                }
            }
            if requestContext.identity?.role == .patient { query.excludedKinds = [.examResult] }
            let page = try PageRequest.from(request)
            guard unknown.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: unknown) }
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            var response = try jsonResponse(
                try await AssessmentStore(context).history(
                    patientID: patientID, query: query, page: page, texts: texts))
            response.headers[.contentLanguage] = texts.language
            return response
        }
    }
}
