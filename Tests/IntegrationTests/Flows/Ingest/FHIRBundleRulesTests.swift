import Foundation
import Testing

/// The rules the export's Bundle is checked against must themselves refuse what FHIR R4 refuses: each broken rule on
/// an otherwise valid Bundle is named, and the valid one passes.
@Suite struct FHIRBundleRulesTests {
    static let patientID = "0b6f3a5e-2f4c-4d7a-9a51-1c2d3e4f5a6b"
    static let observationID = "5d1c7e2a-8b3f-4c6d-9e0a-1b2c3d4e5f60"

    static func valid() -> [String: Any] {
        [
            "resourceType": "Bundle", "type": "collection",
            "entry": [
                ["fullUrl": "urn:uuid:\(patientID)", "resource": ["resourceType": "Patient", "id": patientID, "gender": "female"]],
                [
                    "fullUrl": "urn:uuid:\(observationID)",
                    "resource": [
                        "resourceType": "Observation", "id": observationID, "status": "final",
                        "code": ["coding": [["system": "http://loinc.org", "code": "8867-4"]]],
                        "subject": ["reference": "urn:uuid:\(patientID)"],
                        "valueQuantity": ["value": 72, "unit": "/min", "system": "http://unitsofmeasure.org", "code": "/min"],
                    ],
                ],
            ],
        ]
    }

    /// The valid Bundle with the Observation's resource changed by `change`.
    static func withObservation(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
        var bundle = valid()
        var entries = bundle["entry"] as! [[String: Any]]
        var resource = entries[1]["resource"] as! [String: Any]
        change(&resource)
        entries[1]["resource"] = resource
        bundle["entry"] = entries
        return bundle
    }

    @Test("a valid Bundle passes; each broken rule is named")
    func rules() {
        #expect(FHIRBundleRules.problems(Self.valid()).isEmpty)
        var searchset = Self.valid()
        searchset["type"] = "searchset"
        #expect(FHIRBundleRules.problems(searchset) == ["type: must be collection"])
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            ("entry[1].status: missing or not in its value set", { $0["status"] = "done" }),
            ("entry[1].code: required", { $0["code"] = nil }),
            (
                "entry[1].subject: urn:uuid:00000000-0000-4000-8000-000000000000 resolves to no entry",
                {
                    $0["subject"] = ["reference": "urn:uuid:00000000-0000-4000-8000-000000000000"]
                }
            ),
            ("entry[1].valueQuantity.unit: an empty string", { $0["valueQuantity"] = ["value": 72, "unit": ""] }),
            ("entry[1]: a value and components", { $0["component"] = [["code": ["text": "x"]]] }),
        ]
        for (problem, change) in cases {
            #expect(FHIRBundleRules.problems(Self.withObservation(change)) == [problem])
        }
        // An id that is not the fullUrl's, and one that is not a FHIR id at all.
        #expect(
            FHIRBundleRules.problems(Self.withObservation { $0["id"] = "not/an id" })
                .contains("entry[1].id: not a FHIR id"))
        #expect(
            FHIRBundleRules.problems(Self.withObservation { $0["id"] = Self.patientID }) == ["entry[1].fullUrl: must be urn:uuid: and the id"])
    }
}
