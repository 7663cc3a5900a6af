import CaretideIdentity
public import CaretideSchemas
public import CaretideStore
import Crypto
public import Foundation
import Hummingbird
public import Logging
import PostgresNIO

/// A service's part of a patient's copy of their data (GDPR Art. 15 and 20): the rows of its tables about
/// the patient, as PostgreSQL holds them, and the FHIR R4 resources they make. ingest-service gathers every service's
/// part into one document and one FHIR `Bundle` (`GET /v1/patients/{patientId}/export-part`, the patient alone).
public enum PatientExportPart {
    /// `{"service", "tables": {name: [row]}, "resources": [FHIR resource]}`, read in one transaction so the part is
    /// one moment's state.
    public static func collect(_ data: PatientData, patientID: String, service: String, database: Database, logger: Logger) async throws
        -> JSONValue
    {
        let texts = try await database.transaction(timeout: .seconds(60)) { connection in
            var texts: [(String, String)] = []
            // The patient's access log is theirs to read too; it is kept after an erasure (ids only), so it is not
            // one of the tables the service erases.
            for table in data.tables + [PatientTable("access_audit")] {
                var bindings = PostgresBindings(capacity: 1)
                bindings.append(patientID)
                let text = try await connection.fetchAll(PostgresQuery(unsafeSQL: table.selection, binds: bindings), as: String.self, logger: logger)
                texts.append((table.name, text.first ?? "[]"))
            }
            return texts
        }
        var rows: [String: [JSONValue]] = [:]
        for (table, text) in texts { rows[table] = try CaretideJSON.parse(Array(text.utf8)).elements }
        return .object([
            "service": .string(service),
            "tables": .object(rows.mapValues(JSONValue.array)),
            "resources": .array(data.resources(patientID, rows)),
        ])
    }
}

/// `GET /v1/patients/{patientId}/export-part`: the service's part of the patient's export, for the patient alone
/// (ingest-service asks for it with the patient's own token while it assembles their export).
struct PatientExportPartRoutes: Sendable {
    let context: ServiceContext
    let data: PatientData

    func register(on routes: APIRoutes) {
        routes.get(
            "v1/patients/:patientId/export-part", access: .patientData(.export),
            summary: "This service's part of the patient's copy of their data: its rows about the patient and their FHIR R4 resources"
        ) { _, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let part = try await PatientExportPart.collect(
                data, patientID: patientID, service: context.name, database: context.database, logger: context.logger)
            var response = try jsonResponse(part)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }
}

/// How the services' FHIR resources refer to one another in an export's `Bundle` (type `collection`): every entry's
/// `fullUrl` is `urn:uuid:` and its id, and the patient's id is turned into a UUID the same way in every service, so a
/// resource's `subject` resolves to the Patient entry without the services knowing each other's ids.
public enum FHIRExport {
    /// The identifier system of Caretide's patient ids.
    public static let patientIdentifierSystem = "urn:caretide:patient-id"

    /// The Patient resource's id: a name-based UUID of the patient's id.
    public static func patientResourceID(_ patientID: String) -> String { nameBasedID("caretide.patient:\(patientID)") }

    /// A UUID for a resource whose own id is not one (an exam report's id, an item of it): SHA-256 of `name`,
    /// truncated and marked as version 8 (RFC 9562 §5.8), so every export names it alike.
    public static func nameBasedID(_ name: String) -> String {
        var bytes = Array(SHA256.hash(data: Array(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12],
                bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }

    /// `id` when it is a UUID, else a name-based UUID of `kind` and `id`.
    public static func resourceID(_ id: String, kind: String) -> String {
        UUID(uuidString: id) != nil ? id.lowercased() : nameBasedID("caretide.\(kind):\(id)")
    }

    /// `{"reference": "urn:uuid:…"}` for the patient.
    public static func patientReference(_ patientID: String) -> JSONValue {
        .object(["reference": .string("urn:uuid:\(patientResourceID(patientID))")])
    }

    /// A CodeableConcept of one coding, with its text.
    public static func concept(system: String, code: String, display: String) -> JSONValue {
        .object([
            "coding": .array([.object(["system": .string(system), "code": .string(code), "display": .string(display)])]),
            "text": .string(display),
        ])
    }
}
