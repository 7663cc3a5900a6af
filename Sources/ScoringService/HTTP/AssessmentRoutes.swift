import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// `GET /v1/patients/{patientId}/assessments`: the patient's assessments, oldest observation first, each with whether
/// it still stands (`superseded_by` and `withdrawn` say why not). `?standing=true` lists only those that stand.
struct AssessmentRoutes: Sendable {
    let context: ServiceContext

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/assessments", access: .patientData(.read),
            summary: "The patient's assessments with their provenance, oldest observation first",
            query: [.init("standing", "true: only assessments neither superseded nor withdrawn")], paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let standingOnly = request.uri.queryParameters.get("standing") == "true"
            let page = try PageRequest.from(request)
            let texts = context.tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            var response = try jsonResponse(try await AssessmentStore.history(
                patientID: patientID, standingOnly: standingOnly, page: page, texts: texts, on: context.database.client, logger: context.logger))
            response.headers[.contentLanguage] = texts.language
            return response
        }
    }
}
