import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// An export's assembly from the services' parts, and ingest-service's own FHIR resources: LOINC codes and UCUM units
/// per measurement kind, the Patient from the newest profile, references to the patient alike from every service.
@Suite struct ExportDocumentTests {
    static let patientID = "p-1"

    @Test("a blood pressure is one Observation with a systolic and a diastolic component; a body measurement two Observations")
    func measurements() throws {
        let pressure = IngestFHIR.measurement(
            "blood-pressure", id: "0194a3c2-7d1e-7b6a-9c1f-2d3e4f5a6b7c",
            body: ["systolic": .number(150), "diastolic": .number(95), "takenAt": "2026-11-20T08:00:00Z"], patientID: Self.patientID)
        #expect(pressure.count == 1)
        let components = pressure[0]["component"]?.elements ?? []
        #expect(components.compactMap { $0["code"]?["coding"]?.elements.first?["code"]?.stringValue } == ["8480-6", "8462-4"])
        #expect(components.compactMap { $0["valueQuantity"]?["code"]?.stringValue } == ["mm[Hg]", "mm[Hg]"])
        #expect(pressure[0]["subject"] == FHIRExport.patientReference(Self.patientID))

        let body = IngestFHIR.measurement(
            "body-measurement", id: "0194a3c2-7d1e-7b6a-9c1f-2d3e4f5a6b7d", body: ["weightKg": .number(70.5), "heightCm": .number(172)],
            patientID: Self.patientID)
        #expect(body.compactMap { $0["code"]?["coding"]?.elements.first?["code"]?.stringValue } == ["29463-7", "8302-2"])
        // Two resources, two ids, each a UUID.
        let ids = Set(body.compactMap { $0["id"]?.stringValue })
        #expect(ids.count == 2 && ids.allSatisfy { UUID(uuidString: $0) != nil })
        // A glucose in mmol/L keeps its unit.
        let glucose = IngestFHIR.measurement(
            "glucose", id: "0194a3c2-7d1e-7b6a-9c1f-2d3e4f5a6b7e", body: ["value": .number(5.4), "unit": "mmolPerL"], patientID: Self.patientID)
        #expect(glucose.first?["valueQuantity"]?["unit"] == "mmol/L")
        #expect(IngestFHIR.measurement("weather", id: "x", body: [:], patientID: Self.patientID).isEmpty)
    }

    @Test("the Patient comes from the newest profile revision; deleted records make no resource")
    func patientAndTombstones() {
        let rows: [String: [JSONValue]] = [
            "patient_profile_revisions": [
                ["revision": .number(1), "profile": ["name": ["family": "Old"], "sex": "male"]],
                ["revision": .number(2), "profile": ["name": ["family": "New", "given": ["Ada"]], "sex": "female", "birthDate": "1970-01-02"]],
            ],
            "records": [
                [
                    "record_type": "measurement:pulse", "record_id": "0194a3c2-7d1e-7b6a-9c1f-2d3e4f5a6b7f",
                    "body": ["beatsPerMinute": .number(72)], "deleted_at": .null,
                ],
                [
                    "record_type": "measurement:pulse", "record_id": "0194a3c2-7d1e-7b6a-9c1f-2d3e4f5a6b70",
                    "body": ["beatsPerMinute": .number(80)], "deleted_at": "2026-11-21T08:00:00Z",
                ],
            ],
        ]
        let resources = IngestFHIR.resources(patientID: Self.patientID, rows: rows)
        #expect(resources.count == 2)
        let patient = resources[0]
        #expect(patient["resourceType"] == "Patient" && patient["gender"] == "female" && patient["birthDate"] == "1970-01-02")
        #expect(patient["name"]?.elements.first?["family"] == "New")
        #expect(patient["id"]?.stringValue == FHIRExport.patientResourceID(Self.patientID))
        #expect(resources[1]["id"] == "0194a3c2-7d1e-7b6a-9c1f-2d3e4f5a6b7f")
    }

    @Test("the Bundle has one entry per resource, its fullUrl the resource's urn:uuid; the document one part per service")
    func assembly() {
        let resource: JSONValue = ["resourceType": "Patient", "id": .string(FHIRExport.patientResourceID(Self.patientID))]
        let parts: [JSONValue] = [
            ["service": "ingest-service", "tables": ["records": []], "resources": [resource]],
            // A resource two services both describe is kept once.
            ["service": "scoring-service", "tables": ["assessments": []], "resources": [resource]],
        ]
        let id = UUID()
        let bundle = ExportDocument.bundle(exportID: id, generatedAt: Date(), parts: parts)
        #expect(bundle["type"] == "collection" && bundle["entry"]?.elements.count == 1)
        #expect(bundle["entry"]?.elements.first?["fullUrl"]?.stringValue == "urn:uuid:\(FHIRExport.patientResourceID(Self.patientID))")
        let document = ExportDocument.document(exportID: id, patientID: Self.patientID, generatedAt: Date(), parts: parts)
        #expect(document["services"]?["ingest-service"]?["records"] == [])
        #expect(document["services"]?["scoring-service"] != nil && document["patientId"] == "p-1")
        // The patient's resource id is the same wherever it is made, and another patient's differs.
        #expect(FHIRExport.patientResourceID("p-1") == FHIRExport.patientResourceID("p-1"))
        #expect(FHIRExport.patientResourceID("p-1") != FHIRExport.patientResourceID("p-10"))
    }
}
