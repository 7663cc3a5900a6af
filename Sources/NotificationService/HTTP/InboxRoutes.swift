import CaretideIdentity
import CaretideRuntime
import CaretideStore
import Foundation
import Hummingbird

/// `GET /v1/patients/{patientId}/alerts`: the patient's alert inbox, newest first; withdrawn alerts are left out unless
/// `?withdrawn=true`.
struct InboxRoutes: Sendable {
    let context: ServiceContext

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/alerts", access: .patientData(.read), summary: "The patient's alert inbox, newest first",
            query: [.init("withdrawn", "true: include alerts withdrawn because what they were about was retracted")], paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let includeWithdrawn = request.uri.queryParameters.get("withdrawn") == "true"
            let page = try PageRequest.from(request)
            return try jsonResponse(try await AlertStore.inbox(
                patientID: patientID, includeWithdrawn: includeWithdrawn, page: page, on: context.database.client, logger: context.logger))
        }
    }
}
