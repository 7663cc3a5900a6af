import AsyncHTTPClient
import CaretideRuntime
import CaretideSchemas
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Assembles one patient's export: ingest-service's own part read here, every other service's part asked of it with
/// the patient's own token (each service checks it and audits the read as the patient's), then the JSON document and
/// the FHIR Bundle stored for download until they expire. It runs beside the request that asked for it, within the
/// token's life: a service that does not answer fails the export with its name, and the patient asks again.
struct ExportJob: Sendable {
    let context: ServiceContext
    let settings: ExportSettings

    /// The most a service's part may weigh (a patient's years of readings fit many times over).
    static let partLimit = 256 * 1024 * 1024

    func run(exportID: UUID, patientID: String, authorization: String) async {
        let logger = context.logger
        do {
            var parts = [
                try await PatientExportPart.collect(
                    IngestPatientData.patientData, patientID: patientID, service: context.name, database: context.database, logger: logger)
            ]
            for source in settings.sourceURLs {
                parts.append(try await part(from: source, patientID: patientID, authorization: authorization))
            }
            let now = Date()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let document = try encoder.encode(ExportDocument.document(exportID: exportID, patientID: patientID, generatedAt: now, parts: parts))
            let bundle = try encoder.encode(ExportDocument.bundle(exportID: exportID, generatedAt: now, parts: parts))
            try await ExportStore(context).finish(
                exportID, document: Array(document), bundle: Array(bundle),
                expiresAt: now.addingTimeInterval(Double(settings.retention.components.seconds)))
            logger.info("export assembled", metadata: [LogKey.bytes: "\(document.count + bundle.count)"])
        } catch {
            let reason = (error as? ExportSourceFailed)?.description ?? "the export could not be assembled; ask again"
            logger.warning(
                "export failed", metadata: [LogKey.reason: "\(reason)", LogKey.errorType: "\(String(reflecting: type(of: error)))"])
            try? await ExportStore(context).fail(exportID, reason: reason)
        }
    }

    private func part(from source: String, patientID: String, authorization: String) async throws -> JSONValue {
        let escaped = patientID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? patientID
        var request = HTTPClientRequest(url: "\(source)/v1/patients/\(escaped)/export-part")
        request.headers.add(name: "Authorization", value: authorization)
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        } catch {
            throw ExportSourceFailed(source: source, reason: "did not answer")
        }
        guard response.status == .ok else { throw ExportSourceFailed(source: source, reason: "answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: Self.partLimit)
        guard let part = try? CaretideJSON.parse(Array(buffer: body)), part["service"]?.stringValue != nil else {
            throw ExportSourceFailed(source: source, reason: "answered something that is not an export part")
        }
        return part
    }
}

/// A service whose part could not be had: the export fails, naming it.
struct ExportSourceFailed: Error, CustomStringConvertible {
    let source: String
    let reason: String
    var description: String { "\(source) \(reason); ask for the export again" }
}
