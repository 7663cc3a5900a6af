import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Hummingbird

/// The right of access and to data portability (issue 26 §2; GDPR Art. 15 and 20):
/// - `POST /v1/patients/{patientId}/exports`: the patient asks for a copy of everything Caretide holds about them;
///   202 with the export, assembled by a job from every service (`ExportJob`)
/// - `GET /v1/patients/{patientId}/exports/{exportId}`: how it stands: assembling, ready (until `expiresAt`) or failed
/// - `GET …/{exportId}/document`: one JSON document, every service's rows about the patient
/// - `GET …/{exportId}/bundle`: the same as a FHIR R4 Bundle (`application/fhir+json`)
/// The patient alone; an expired export answers 410.
struct ExportRoutes: Sendable {
    let context: ServiceContext
    let settings: ExportSettings

    func register(on routes: APIRoutes) {
        let path = "v1/patients/:patientId/exports"
        let job = ExportJob(context: context, settings: settings)
        routes.post(
            path, access: .patientData(.export),
            summary: "Ask for a copy of everything Caretide holds about the patient, as one JSON document and a FHIR R4 Bundle",
            body: [], bodyLimit: APIRoutes.noBody
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let authorization = request.headers[.authorization] else {
                throw HTTPProblem(status: .unauthorized, error: "an export is asked for with the patient's own token")
            }
            let export = try await context.transaction(auditing: requestContext.origin, status: { _ in 202 }) { handler in
                // Nothing is left to copy, and the request itself would be a new row about the patient.
                try await ErasureStore(handler).refuseIfErased(patientID: patientID)
                return try await ExportStore.create(patientID: patientID, at: Date(), handler: handler)
            }
            Task { await job.run(exportID: export.exportId, patientID: patientID, authorization: authorization) }
            var response = try jsonResponse(export, status: .accepted)
            response.headers[.location] = "/v1/patients/\(patientID)/exports/\(export.exportId.uuidString.lowercased())"
            return response
        }
        routes.get("\(path)/:exportId", access: .patientData(.export), summary: "How the patient's export stands") { _, requestContext in
            let (patientID, exportID) = try Self.ids(requestContext)
            guard
                let export = try await ExportStore.find(patientID: patientID, exportID: exportID, database: context.database, logger: context.logger)
            else { throw HTTPProblem(status: .notFound, error: "no such export") }
            var response = try jsonResponse(export)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        for file in [ExportStore.File.document, .bundle] {
            routes.get(
                "\(path)/:exportId/\(file.rawValue)", access: .patientData(.export),
                summary: file == .document
                    ? "The export as one JSON document: every service's rows about the patient"
                    : "The export as a FHIR R4 Bundle (collection): Patient, Observations, DiagnosticReports, RiskAssessments, Communications",
                mediaType: file == .document ? "application/json" : "application/fhir+json"
            ) { _, requestContext in
                let (patientID, exportID) = try Self.ids(requestContext)
                guard
                    let bytes = try await ExportStore.file(
                        file, patientID: patientID, exportID: exportID, database: context.database, logger: context.logger)
                else {
                    let export = try await ExportStore.find(
                        patientID: patientID, exportID: exportID, database: context.database, logger: context.logger)
                    switch export?.status {
                    case nil: throw HTTPProblem(status: .notFound, error: "no such export")
                    case .assembling?: throw HTTPProblem(status: .conflict, error: "the export is still being assembled")
                    case .failed?: throw HTTPProblem(status: .conflict, error: "the export failed: \(export?.failure ?? "ask again")")
                    case .ready?: throw HTTPProblem(status: .gone, error: "the export expired; ask for a new one")
                    }
                }
                var response = Response(
                    status: .ok, headers: [.contentType: file == .document ? "application/json" : "application/fhir+json"],
                    body: .init(byteBuffer: bytes))
                response.headers[.contentDisposition] =
                    "attachment; filename=\"caretide-export-\(exportID.uuidString.lowercased())\(file == .document ? ".json" : ".fhir.json")\""
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
    }

    static func ids(_ requestContext: CaretideRequestContext) throws -> (String, UUID) {
        let patientID = try PatientID.fromPath(requestContext)
        guard let text = requestContext.parameters.get("exportId"), let exportID = UUID(uuidString: text) else {
            throw HTTPProblem(status: .notFound, error: "no such export")
        }
        return (patientID, exportID)
    }
}
