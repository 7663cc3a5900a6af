import CaretideRuntime
import CaretideSchemas
import Testing

@testable import ScoringService

/// scoring-service's part of a patient's export and erasure: a FHIR RiskAssessment for each standing assessment, and
/// the tables a patient's rows are erased from and exported.
@Suite struct ScoringPatientDataTests {
    static let id = "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"

    static func row(_ changes: [String: JSONValue] = [:], without removed: String? = nil) -> JSONValue {
        var members: [String: JSONValue] = [
            "assessment_id": .string(id), "kind": "bloodPressure", "category": "stage2Hypertension", "severity": "attention",
            "observed_at": "2026-09-21T00:00:00Z", "tip": "bloodPressure.stage2", "superseded_by": .null, "withdrawn_at": .null,
        ]
        members.merge(changes) { _, new in new }
        if let removed { members[removed] = nil }
        return .object(members)
    }

    static func export(_ rows: [JSONValue]) -> [JSONValue] {
        ScoringPatientData.riskAssessments(patientID: "p-1", rows: ["assessments": rows])
    }

    @Test("a standing assessment becomes a final RiskAssessment of the patient: its kind as the code, category and severity as the prediction")
    func standing() {
        let expected: JSONValue = [
            "resourceType": "RiskAssessment", "id": .string(Self.id), "status": "final", "subject": FHIRExport.patientReference("p-1"),
            "code": ["coding": [["system": "urn:caretide:assessment-kind", "code": "bloodPressure"]], "text": "bloodPressure"],
            "prediction": [["outcome": ["text": "stage2Hypertension"], "qualitativeRisk": ["text": "attention"]]],
            "occurrenceDateTime": "2026-09-21T00:00:00Z", "note": [["text": "bloodPressure.stage2"]],
        ]
        #expect(Self.export([Self.row()]) == [expected])
        // A row read without the two columns at all is standing too.
        #expect(Self.export([.object(["assessment_id": .string(Self.id), "kind": "pulse"])]).count == 1)
    }

    @Test("superseded and withdrawn assessments, and rows without an id or a kind, make no resource")
    func leftOut() {
        let rows = [
            Self.row(["superseded_by": "5d3c2b1a-0000-4000-8000-000000000001"]), Self.row(["withdrawn_at": "2026-10-01T00:00:00Z"]),
            Self.row(without: "assessment_id"), Self.row(without: "kind"), Self.row(["kind": .null]), Self.row(["kind": .number(1)]),
        ]
        #expect(Self.export(rows).isEmpty)
        #expect(ScoringPatientData.riskAssessments(patientID: "p-1", rows: ["care_tracking_flags": [Self.row()]]).isEmpty)
    }

    @Test("without a category or severity the prediction says unknown; without a time or a tip those fields are left out")
    func sparse() throws {
        let bare = try #require(Self.export([.object(["assessment_id": .string(Self.id), "kind": "glucose", "tip": ""])]).first)
        #expect(bare["prediction"] == JSONValue.array([["outcome": ["text": "unknown"], "qualitativeRisk": ["text": "unknown"]]]))
        #expect(bare["occurrenceDateTime"] == nil && bare["note"] == nil)
        #expect(bare["subject"] == FHIRExport.patientReference("p-1") && bare["id"] == JSONValue.string(Self.id))
    }

    @Test("each table is named once; the report areas, shared by every patient who follows them, are never emptied for one")
    func tables() {
        let names = ScoringPatientData.patientData.tables.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.contains("report_followed_areas") && names.contains("outside_share_openings") && names.contains("patient_demographics"))
        #expect(!names.contains("report_areas") && !names.contains("report_area_days"))
    }
}
