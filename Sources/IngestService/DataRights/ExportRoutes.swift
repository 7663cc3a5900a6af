import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import HTTPTypes
import Hummingbird

/// The right of access and to data portability (GDPR Art. 15 and 20):
/// - `POST /v1/patients/{patientId}/exports`: the patient asks for a copy of everything Caretide holds about them;
///   202 with the export, assembled by a job from every service (`ExportJob`)
/// - `GET /v1/patients/{patientId}/exports/{exportId}`: how it stands: assembling, ready (until `expiresAt`) or failed
/// - `GET …/{exportId}/document`: one JSON document, every service's rows about the patient
/// - `GET …/{exportId}/bundle`: the same as a FHIR R4 Bundle (`application/fhir+json`)
/// - `GET …/{exportId}/archive`: one ZIP file holding both and every skin photo as an image file (Art. 20: the
///   patient's photos in a form another service can take)
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
                return try await ExportStore(handler).create(patientID: patientID, at: Date())
            }
            Task { await job.run(exportID: export.exportId, patientID: patientID, authorization: authorization) }
            var response = try jsonResponse(export, status: .accepted)
            response.headers[.location] = "/v1/patients/\(patientID)/exports/\(export.exportId.uuidString.lowercased())"
            return response
        }
        routes.get("\(path)/:exportId", access: .patientData(.export), summary: "How the patient's export stands") { _, requestContext in
            let (patientID, exportID) = try Self.ids(requestContext)
            guard let export = try await ExportStore(context).find(patientID: patientID, exportID: exportID)
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
                let bytes = try await readyFile(file, patientID: patientID, exportID: exportID)
                var response = Response(
                    status: .ok, headers: [.contentType: file == .document ? "application/json" : "application/fhir+json"],
                    body: .init(byteBuffer: bytes))
                response.headers[.contentDisposition] =
                    "attachment; filename=\"caretide-export-\(exportID.uuidString.lowercased())\(file == .document ? ".json" : ".fhir.json")\""
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
        routes.get(
            "\(path)/:exportId/archive", access: .patientData(.export),
            summary: "The export as one ZIP archive: the JSON document, the FHIR R4 Bundle and every skin photo as an image file",
            mediaType: "application/zip"
        ) { _, requestContext in
            let (patientID, exportID) = try Self.ids(requestContext)
            return try await archive(patientID: patientID, exportID: exportID)
        }
    }

    /// A ready export's file, or the answer that says why there is none: still assembling, failed, expired or unknown.
    func readyFile(_ file: ExportStore.File, patientID: String, exportID: UUID) async throws -> ByteBuffer {
        let store = ExportStore(context)
        if let bytes = try await store.file(file, patientID: patientID, exportID: exportID) { return bytes }
        let export = try await store.find(patientID: patientID, exportID: exportID)
        switch export?.status {
        case nil: throw HTTPProblem(status: .notFound, error: "no such export")
        case .assembling?: throw HTTPProblem(status: .conflict, error: "the export is still being assembled")
        case .failed?: throw HTTPProblem(status: .conflict, error: "the export failed: \(export?.failure ?? "ask again")")
        case .ready?: throw HTTPProblem(status: .gone, error: "the export expired; ask for a new one")
        }
    }

    /// The archive: the document, the Bundle and the patient's photos recorded by the time the export was asked for
    /// (one deleted since is left out), each named by when it was taken and where, streamed one photo at a time.
    func archive(patientID: String, exportID: UUID) async throws -> Response {
        let document = try await readyFile(.document, patientID: patientID, exportID: exportID)
        let bundle = try await readyFile(.bundle, patientID: patientID, exportID: exportID)
        guard let export = try await ExportStore(context).find(patientID: patientID, exportID: exportID) else {
            throw HTTPProblem(status: .notFound, error: "no such export")
        }
        let photos = try await PhotoStore(context).archived(patientID: patientID, recordedBy: export.requestedAt)
        let prefix = "caretide-export-\(exportID.uuidString.lowercased())"
        let files =
            [("\(prefix).json", document.readableBytes), ("\(prefix).fhir.json", bundle.readableBytes)] + photos.map { (Self.fileName($0), $0.bytes) }
        // Checked before the answer starts: once the body streams, a refusal could only cut it short.
        guard ZipArchive.size(of: files) <= ZipArchive.maximum, files.count < 65_535 else {
            throw HTTPProblem(
                status: .conflict, error: "the photos are too many for one archive (more than 4 GiB): download them one by one from the photo list")
        }
        let context = context
        let body = ResponseBody { writer in
            var zip = ZipArchive()
            try await writer.write(ByteBuffer(bytes: try zip.append("\(prefix).json", document.readableBytesView, modified: export.requestedAt)))
            try await writer.write(ByteBuffer(bytes: try zip.append("\(prefix).fhir.json", bundle.readableBytesView, modified: export.requestedAt)))
            for photo in photos {
                // One deleted while the archive streams is left out, as if it had been deleted before.
                guard let (image, _) = try await PhotoStore(context).file(photo.photoId, patientID: patientID, thumbnail: false) else { continue }
                try await writer.write(ByteBuffer(bytes: try zip.append(Self.fileName(photo), image.readableBytesView, modified: photo.takenAt)))
            }
            try await writer.write(ByteBuffer(bytes: zip.finish()))
            try await writer.finish(nil)
        }
        var response = Response(status: .ok, headers: [.contentType: "application/zip"], body: body)
        response.headers[.contentDisposition] = "attachment; filename=\"caretide-export-\(exportID.uuidString.lowercased()).zip\""
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `photos/2026-11-20_back_left_<photoId>.jpg`: sorted by when it was taken, then where.
    static func fileName(_ photo: PhotoStore.Photo) -> String {
        let day = Timestamp.format(photo.takenAt).prefix(10)
        let place = [photo.bodySite.rawValue, photo.side?.rawValue].compactMap { $0 }.joined(separator: "_")
        let suffix = photo.mediaType == "image/png" ? "png" : "jpg"
        return "photos/\(day)_\(place)_\(photo.photoId.uuidString.lowercased()).\(suffix)"
    }

    static func ids(_ requestContext: CaretideRequestContext) throws -> (String, UUID) {
        let patientID = try PatientID.fromPath(requestContext)
        guard let text = requestContext.parameters.get("exportId"), let exportID = UUID(uuidString: text) else {
            throw HTTPProblem(status: .notFound, error: "no such export")
        }
        return (patientID, exportID)
    }
}
