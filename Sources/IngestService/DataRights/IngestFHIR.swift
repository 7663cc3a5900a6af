import CaretideRuntime
import CaretideSchemas

/// ingest-service's rows as FHIR R4 resources for a patient's export: the Patient (from the newest profile revision),
/// an Observation per measurement (LOINC codes and UCUM units) and a DiagnosticReport per released-or-not exam report
/// with an Observation per item. Deleted records are left out (their rows stay in the JSON document).
enum IngestFHIR {
    static func resources(patientID: String, rows: [String: [JSONValue]]) -> [JSONValue] {
        let profile = (rows["patient_profile_revisions"] ?? []).max { ($0["revision"]?.numberValue ?? 0) < ($1["revision"]?.numberValue ?? 0) }
        var resources = [patient(patientID, profile: profile?["profile"])]
        for record in rows["records"] ?? [] where record["deleted_at"] == nil || record["deleted_at"] == .null {
            guard let type = record["record_type"]?.stringValue, let id = record["record_id"]?.stringValue, let body = record["body"] else {
                continue
            }
            if type.hasPrefix("measurement:") {
                resources += measurement(String(type.dropFirst("measurement:".count)), id: id, body: body, patientID: patientID)
            } else if type == "exam-result" {
                resources += examReport(id: id, body: body, patientID: patientID)
            }
        }
        return resources
    }

    static func patient(_ patientID: String, profile: JSONValue?) -> JSONValue {
        var patient: [String: JSONValue] = [
            "resourceType": "Patient", "id": .string(FHIRExport.patientResourceID(patientID)),
            "identifier": [["system": .string(FHIRExport.patientIdentifierSystem), "value": .string(patientID)]],
        ]
        if let name = profile?["name"] {
            var humanName: [String: JSONValue] = [:]
            if let family = name["family"] { humanName["family"] = family }
            if let given = name["given"] { humanName["given"] = given }
            patient["name"] = [.object(humanName)]
        }
        if let sex = profile?["sex"] { patient["gender"] = sex }
        if let birthDate = profile?["birthDate"] { patient["birthDate"] = birthDate }
        if let language = profile?["language"]?.stringValue {
            patient["communication"] = [["language": ["coding": [["system": "urn:ietf:bcp:47", "code": .string(language)]]]]]
        }
        return .object(patient)
    }

    /// A measurement as Observations, coded as `MeasurementCodes` says (LOINC, UCUM).
    static func measurement(_ kind: String, id: String, body: JSONValue, patientID: String) -> [JSONValue] {
        guard let kind = MeasurementKind(rawValue: kind) else { return [] }
        let codes = MeasurementCodes.kind(kind)
        let values: [(String, String, JSONValue)] = codes.values.compactMap { coded in
            guard let value = body[coded.field]?.numberValue else { return nil }
            // Glucose and lipids come in the unit the request named (`mgPerDL` or `mmolPerL`).
            let unit = coded.unit ?? MeasurementCodes.concentrationUnit(body["unit"]?.stringValue)
            return (
                coded.code, coded.display,
                ["value": .number(value), "unit": .string(unit), "system": "http://unitsofmeasure.org", "code": .string(unit)]
            )
        }
        let panel = codes.panel
        guard !values.isEmpty else { return [] }
        var observation = base(id: id, patientID: patientID, effective: body["takenAt"])
        observation["category"] = [category("vital-signs", "Vital Signs")]
        if let panel {
            observation["code"] = FHIRExport.concept(system: loinc, code: panel.code, display: panel.display)
            observation["component"] = .array(
                values.map { ["code": FHIRExport.concept(system: loinc, code: $0.0, display: $0.1), "valueQuantity": $0.2] })
            return [.object(observation)]
        }
        // One value per Observation; a second one (a height beside a weight) gets an id of its own.
        return values.enumerated().map { index, value in
            var single = observation
            if index > 0 { single["id"] = .string(FHIRExport.nameBasedID("caretide.measurement:\(id)/\(value.0)")) }
            single["code"] = FHIRExport.concept(system: loinc, code: value.0, display: value.1)
            single["valueQuantity"] = value.2
            return .object(single)
        }
    }

    /// A DiagnosticReport and an Observation per item (its code as the institution sent it, its value and range).
    static func examReport(id: String, body: JSONValue, patientID: String) -> [JSONValue] {
        let reportID = FHIRExport.resourceID(id, kind: "exam-report")
        var items: [JSONValue] = []
        for (index, item) in body["items"].map(\.elements)?.enumerated() ?? [].enumerated() {
            var observation = base(
                id: FHIRExport.nameBasedID("caretide.exam-item:\(reportID)/\(index + 1)"), patientID: patientID, effective: body["reportedAt"])
            observation["category"] = [category("laboratory", "Laboratory")]
            let code = item["code"]?.stringValue ?? "unknown"
            observation["code"] = [
                "coding": [["system": "urn:caretide:exam-code", "code": .string(code)]], "text": item["name"] ?? .string(code),
            ]
            if let value = item["value"]?.numberValue {
                // FHIR forbids empty strings: a value without a unit leaves the unit out.
                var quantity: [String: JSONValue] = ["value": .number(value)]
                if let unit = item["unit"]?.stringValue, !unit.isEmpty { quantity["unit"] = .string(unit) }
                observation["valueQuantity"] = .object(quantity)
            } else if let text = item["value"]?.stringValue {
                observation["valueString"] = .string(text)
            }
            if let low = item["referenceLow"]?.numberValue, let high = item["referenceHigh"]?.numberValue {
                observation["referenceRange"] = [["low": ["value": .number(low)], "high": ["value": .number(high)]]]
            }
            items.append(.object(observation))
        }
        var report = base(id: reportID, patientID: patientID, effective: body["reportedAt"])
        report["resourceType"] = "DiagnosticReport"
        report["category"] = [category("LAB", "Laboratory", system: "http://terminology.hl7.org/CodeSystem/v2-0074")]
        report["code"] = ["text": "Exam report"]
        report["status"] = body["status"]?.stringValue == "preliminary" ? "preliminary" : "final"
        report["result"] = .array(items.compactMap { $0["id"]?.stringValue }.map { ["reference": .string("urn:uuid:\($0)")] })
        return [.object(report)] + items
    }

    static let loinc = "http://loinc.org"

    /// An Observation's common fields.
    private static func base(id: String, patientID: String, effective: JSONValue?) -> [String: JSONValue] {
        var resource: [String: JSONValue] = [
            "resourceType": "Observation", "id": .string(FHIRExport.resourceID(id, kind: "record")), "status": "final",
            "subject": FHIRExport.patientReference(patientID),
        ]
        if let effective { resource["effectiveDateTime"] = effective }
        return resource
    }

    private static func category(_ code: String, _ display: String, system: String = "http://terminology.hl7.org/CodeSystem/observation-category")
        -> JSONValue
    {
        FHIRExport.concept(system: system, code: code, display: display)
    }
}
