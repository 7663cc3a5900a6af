import CaretideRuntime
import CaretideSchemas
import Foundation

/// A patient's export from the services' parts (`PatientExportPart`): one JSON document with every service's rows,
/// and one FHIR R4 `Bundle` of type `collection` with every service's resources, each entry's `fullUrl` its
/// `urn:uuid:` (the services refer to the patient that way, `FHIRExport`).
enum ExportDocument {
    static let format = "caretide.patient-export.v1"

    static func document(exportID: UUID, patientID: String, generatedAt: Date, parts: [JSONValue]) -> JSONValue {
        var services: [String: JSONValue] = [:]
        for part in parts {
            guard let service = part["service"]?.stringValue else { continue }
            services[service] = part["tables"] ?? [:]
        }
        return [
            "format": .string(format), "exportId": .string(exportID.uuidString.lowercased()), "patientId": .string(patientID),
            "generatedAt": .string(Timestamp.format(generatedAt)), "services": .object(services),
        ]
    }

    static func bundle(exportID: UUID, generatedAt: Date, parts: [JSONValue]) -> JSONValue {
        var seen: Set<String> = []
        var entries: [JSONValue] = []
        for resource in parts.flatMap({ $0["resources"]?.elements ?? [] }) {
            guard let type = resource["resourceType"]?.stringValue, let id = resource["id"]?.stringValue,
                seen.insert("\(type)/\(id)").inserted
            else { continue }
            entries.append(["fullUrl": .string("urn:uuid:\(id)"), "resource": resource])
        }
        return [
            "resourceType": "Bundle", "id": .string(exportID.uuidString.lowercased()), "type": "collection",
            "timestamp": .string(Timestamp.format(generatedAt)), "entry": .array(entries),
        ]
    }
}
