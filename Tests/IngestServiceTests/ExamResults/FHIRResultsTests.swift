import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// The FHIR R4 mapping, against a transaction Bundle written from the R4 specification
/// (`Fixtures/fhir-r4-bundle-lipids.json`: a Patient by urn:uuid, a DiagnosticReport, two Observations with UCUM
/// quantities, a LOINC and a SNOMED coding, reference ranges, an interpretation and a note).
@Suite struct FHIRResultsTests {
    static let fixture = try! CaretideJSON.parse(
        Array(
            Data(
                contentsOf:
                    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                        "Fixtures/fhir-r4-bundle-lipids.json"))))

    /// The fixture with the resource of entry `index` changed.
    static func changing(entry index: Int, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
        guard case .object(var root) = fixture, case .array(var entries)? = root["entry"], case .object(var entry) = entries[index],
            case .object(var resource)? = entry["resource"]
        else { return fixture }
        change(&resource)
        entry["resource"] = .object(resource)
        entries[index] = .object(entry)
        root["entry"] = .array(entries)
        return .object(root)
    }

    @Test("a DiagnosticReport with its Observations becomes one exam report: LOINC code, UCUM unit, ranges, note, issued time")
    func mapsTheBundle() throws {
        let reports = try FHIRResults.reports(in: Self.fixture).get()
        #expect(reports.count == 1)
        let report = reports[0]
        #expect(report.examID == "LAB-2026-0101" && report.patientID == "patient-0001" && report.entry == 1)
        #expect(report.body?["reportedAt"] == .string("2026-11-22T05:10:00.000Z"))
        #expect(report.body?["status"] == .string("final"))
        #expect(
            report.body?["items"]
                == .array([
                    .object([
                        "code": .string("2093-3"), "name": .string("Cholesterol [Mass/volume] in Serum or Plasma"), "value": .number(245),
                        "unit": .string("mg/dL"), "referenceHigh": .number(200), "comment": .string("Fasting sample"),
                    ]),
                    .object([
                        "code": .string("2085-9"), "name": .string("Cholesterol in HDL [Mass/volume] in Serum or Plasma"), "value": .number(1),
                        "unit": .string("mmol/L"), "referenceLow": .number(1.04),
                    ]),
                ]))
    }

    @Test("entered-in-error retracts; amended and preliminary are stored; cancelled is refused by name")
    func statuses() throws {
        let retract = try FHIRResults.reports(in: Self.changing(entry: 1) { $0["status"] = .string("entered-in-error") }).get()
        #expect(retract.count == 1 && retract[0].body == nil && retract[0].examID == "LAB-2026-0101")
        for (status, ours) in [("amended", "corrected"), ("preliminary", "preliminary"), ("partial", "preliminary"), ("corrected", "corrected")] {
            #expect(try FHIRResults.reports(in: Self.changing(entry: 1) { $0["status"] = .string(status) }).get()[0].body?["status"] == .string(ours))
        }
        guard case .failure(let list) = FHIRResults.reports(in: Self.changing(entry: 1) { $0["status"] = .string("cancelled") }) else {
            Issue.record("a cancelled report was taken")
            return
        }
        #expect(list.issues.map(\.expression).contains("Bundle.entry[1].resource.status"))
    }

    @Test("every element that cannot be mapped is named by its FHIRPath, and nothing is taken")
    func issues() throws {
        // A text result instead of a quantity, a resource type not taken, a report without identifier, a dangling result.
        var bundle = Self.fixture
        guard case .object(var root) = bundle, case .array(var entries)? = root["entry"] else {
            Issue.record("fixture")
            return
        }
        if case .object(var entry) = entries[3], case .object(var observation)? = entry["resource"] {
            observation["valueQuantity"] = nil
            observation["valueString"] = .string("low")
            entry["resource"] = .object(observation)
            entries[3] = .object(entry)
        }
        if case .object(var entry) = entries[1], case .object(var report)? = entry["resource"] {
            report["identifier"] = nil
            report["result"] = .array([
                .object(["reference": .string("urn:uuid:9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b")]),
                .object(["reference": .string("urn:uuid:0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")]),
                .object(["reference": .string("Observation/missing")]),
            ])
            entry["resource"] = .object(report)
            entries[1] = .object(entry)
        }
        entries.append(.object(["resource": .object(["resourceType": .string("Specimen"), "id": .string("s1")])]))
        root["entry"] = .array(entries)
        bundle = .object(root)
        guard case .failure(let list) = FHIRResults.reports(in: bundle) else {
            Issue.record("an unmappable bundle was taken")
            return
        }
        #expect(
            Set(list.issues.map(\.expression)) == [
                "Bundle.entry[4].resource", "Bundle.entry[1].resource.identifier", "Bundle.entry[3].resource.value",
                "Bundle.entry[1].resource.result[2]",
            ])
        #expect(list.issues.first { $0.expression == "Bundle.entry[4].resource" }?.code == "not-supported")
    }

    @Test("the patient comes from an identifier, a Patient/id reference, or the bundle's Patient")
    func patients() {
        let patient: JSONValue = .object(["resourceType": .string("Patient"), "identifier": .array([.object(["value": .string("p-7")])])])
        let resources = ["urn:uuid:1": (0, patient)]
        #expect(FHIRResults.patient(of: .object(["identifier": .object(["value": .string("p-1")])]), in: [:]) == "p-1")
        #expect(FHIRResults.patient(of: .object(["reference": .string("Patient/p-2")]), in: [:]) == "p-2")
        #expect(FHIRResults.patient(of: .object(["reference": .string("urn:uuid:1")]), in: resources) == "p-7")
        #expect(FHIRResults.patient(of: .object(["reference": .string("Group/g")]), in: [:]) == "")
        #expect(FHIRResults.patient(of: nil, in: [:]) == "")
    }

    @Test("not a Bundle, an unsupported Bundle type, or an empty one: one issue each")
    func wrongShapes() {
        for (body, expression) in [
            (JSONValue.object(["resourceType": .string("Patient")]), "Bundle"),
            (.object(["resourceType": .string("Bundle"), "type": .string("searchset"), "entry": .array([])]), "Bundle.type"),
            (.object(["resourceType": .string("Bundle"), "type": .string("collection"), "entry": .array([])]), "Bundle.entry"),
        ] {
            guard case .failure(let list) = FHIRResults.reports(in: body) else {
                Issue.record("taken: \(body)")
                continue
            }
            #expect(list.issues.map(\.expression) == [expression])
        }
    }
}
