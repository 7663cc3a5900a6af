import CaretideIdentity
import CaretideStore
import Foundation
import Hummingbird

/// `GET /v1/patients/{patientId}/access-log?limit=&cursor=`: who accessed the patient's data held by this service,
/// newest first, for the patient alone. Ids, operations and outcomes only; beside an outside viewer's attempt to open
/// a share, the name they typed and their address.
struct AccessLogRoutes: Sendable {
    let context: ServiceContext
    let outsideViewers: (any OutsideViewerDirectory)?

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/access-log", access: .patientData(.manage),
            summary: "Who accessed the patient's data held by this service, and who was refused, newest first", paged: true
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let page = try PageRequest.from(request)
            return try jsonResponse(
                try await AccessLogStore(context).accessLog(patientID: patientID, page: page, outsideViewers: outsideViewers))
        }
    }
}
