import CaretideDomain
import CaretideSchemas
import ClinicalAssessment
import Foundation
import Testing

@testable import ScoringService

/// `caretide rescore`: which stored assessments the current rules read again, which of them count as changed, and
/// when applying the changes is refused.
@Suite struct RescorerTests {
    /// 2026-09-21T00:00:00Z.
    static let takenAt = Date(timeIntervalSince1970: 1_789_948_800)
    static let measurementID = UUID(uuidString: "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11")!

    static func reading(systolic: Int, diastolic: Int) -> BloodPressureRecorded {
        BloodPressureRecorded(measurementID: measurementID, revision: 2, systolic: systolic, diastolic: diastolic, takenAt: takenAt, source: .patient)
    }

    static func change(patient: String, fromRuleSet: String) -> Rescorer.Change {
        Rescorer.Change(
            patientId: patient, kind: "bloodPressure", subjectId: measurementID.uuidString.lowercased(), assessmentId: UUID(),
            fromCategory: "normal", toCategory: "stage2Hypertension", fromSeverity: "normal", toSeverity: "attention", fromRuleSet: fromRuleSet)
    }

    @Test("stored inputs are read again as the event they came from and assessed by the current rules")
    func reassessed() throws {
        let reading = Self.reading(systolic: 150, diastolic: 95)
        let inputs = try CaretideJSON.encodeToString(reading)
        let (fresh, payload, document) = try #require(
            Rescorer.reassessed(sourceType: EventType.bloodPressureRecorded.rawValue, inputs: inputs, assessedAt: Self.takenAt))
        let expected = try BloodPressure.assess(systolic: 150, diastolic: 95)
        #expect(fresh.category.rawValue == expected.category.rawValue && fresh.severity == expected.severity)
        #expect(fresh.subjectID == Self.measurementID.uuidString.lowercased() && fresh.subjectRevision == 2 && fresh.observedAt == Self.takenAt)
        #expect((payload as? BloodPressureRecorded) == reading)
        let parsed = try CaretideJSON.parse(Array(inputs.utf8))
        #expect(document == parsed)
    }

    @Test("inputs that no longer decode, an unknown event type, an event the rules do not assess, or values the rules now refuse: unreadable")
    func unreadable() throws {
        let inputs = try CaretideJSON.encodeToString(Self.reading(systolic: 150, diastolic: 95))
        let bloodPressure = EventType.bloodPressureRecorded.rawValue
        #expect(Rescorer.reassessed(sourceType: "blood-pressure.recorded.v0", inputs: inputs, assessedAt: Self.takenAt) == nil)
        #expect(Rescorer.reassessed(sourceType: bloodPressure, inputs: "{", assessedAt: Self.takenAt) == nil)
        #expect(Rescorer.reassessed(sourceType: bloodPressure, inputs: #"{"systolic": 150}"#, assessedAt: Self.takenAt) == nil)
        let deleted = MeasurementDeleted(measurementID: Self.measurementID, kind: .bloodPressure, deletedAt: Self.takenAt)
        let deletion = try CaretideJSON.encodeToString(deleted)
        #expect(Rescorer.reassessed(sourceType: EventType.measurementDeleted.rawValue, inputs: deletion, assessedAt: Self.takenAt) == nil)
        // A systolic value not above the diastolic one is refused by the rules as they stand.
        let refused = try CaretideJSON.encodeToString(Self.reading(systolic: 80, diastolic: 90))
        #expect(Rescorer.reassessed(sourceType: bloodPressure, inputs: refused, assessedAt: Self.takenAt) == nil)
    }

    @Test("an assessment changes when its category or its severity would; the same category and severity again is no change")
    func selection() throws {
        let inputs = try CaretideJSON.encodeToString(Self.reading(systolic: 150, diastolic: 95))
        let (fresh, _, _) = try #require(
            Rescorer.reassessed(sourceType: EventType.bloodPressureRecorded.rawValue, inputs: inputs, assessedAt: Self.takenAt))
        let (category, severity) = (fresh.category.rawValue, fresh.severity.rawValue)
        #expect(!Rescorer.changes(category: category, severity: severity, to: fresh))
        #expect(Rescorer.changes(category: "stage1Hypertension", severity: severity, to: fresh))
        #expect(Rescorer.changes(category: category, severity: severity == "urgent" ? "normal" : "urgent", to: fresh))
        #expect(Rescorer.changes(category: "normal", severity: "normal", to: fresh))
    }

    @Test("applying is refused for every change that the current rule set version itself would make, and for no other")
    func sameRuleSet() {
        #expect(Rescorer.unversioned([]) == 0)
        #expect(Rescorer.unversioned([Self.change(patient: "p-1", fromRuleSet: "2025.1.0")]) == 0)
        #expect(
            Rescorer.unversioned([
                Self.change(patient: "p-1", fromRuleSet: "2025.1.0"), Self.change(patient: "p-2", fromRuleSet: RuleSetVersion.current),
                Self.change(patient: "p-3", fromRuleSet: RuleSetVersion.current),
            ]) == 2)
        #expect(Rescorer.SameRuleSetChange(count: 2).description.hasPrefix("2 assessment(s) would change under the same rule set version"))
    }

    @Test("the report counts each affected patient once, and says so in what it writes")
    func report() throws {
        let changes = [
            Self.change(patient: "p-1", fromRuleSet: "2025.1.0"), Self.change(patient: "p-1", fromRuleSet: "2025.1.0"),
            Self.change(patient: "p-2", fromRuleSet: "2025.1.0"),
        ]
        let report = Rescorer.Report(
            since: Self.takenAt, ruleSetVersion: RuleSetVersion.current, checked: 5, changed: changes, unreadable: [UUID()], applied: false)
        #expect(report.patientsAffected == 2)
        let written = try CaretideJSON.parse(try CaretideJSON.encode(report))
        #expect(written["patientsAffected"] == JSONValue.number(2) && written["checked"] == JSONValue.number(5))
        #expect(written["applied"] == JSONValue.bool(false))
        #expect(written["changed"]?.elements.count == 3 && written["unreadable"]?.elements.count == 1)
    }
}
