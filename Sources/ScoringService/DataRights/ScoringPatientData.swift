import CaretideRuntime
import CaretideSchemas

/// What scoring-service holds about a patient (`PatientData`): every assessment and care-tracking flag, the report
/// releases, followed areas, meals and daily analyses, the photos it knew of, the sex and date of birth it kept, and
/// the reports shared outside Caretide with every opening of them.
/// In an export, each standing assessment is a FHIR RiskAssessment.
enum ScoringPatientData {
    static let patientData = PatientData(
        tables: [
            PatientTable("assessments"),
            PatientTable("care_tracking_flags"),
            PatientTable("exam_releases"),
            PatientTable("report_followed_areas"),
            PatientTable("meal_entries"),
            PatientTable("nutrition_days"),
            PatientTable("known_photos"),
            PatientTable("patient_demographics"),
            PatientTable("outside_share_openings"),
            PatientTable("outside_shares"),
        ],
        resources: riskAssessments)

    /// A RiskAssessment per standing assessment (neither superseded nor withdrawn): the rule's kind, its category and
    /// severity as the prediction, the tip as a note.
    static func riskAssessments(patientID: String, rows: [String: [JSONValue]]) -> [JSONValue] {
        (rows["assessments"] ?? []).compactMap { row in
            guard row["superseded_by"] ?? .null == .null, row["withdrawn_at"] ?? .null == .null, let id = row["assessment_id"],
                let kind = row["kind"]?.stringValue
            else { return nil }
            var resource: [String: JSONValue] = [
                "resourceType": "RiskAssessment", "id": id, "status": "final", "subject": FHIRExport.patientReference(patientID),
                "code": ["coding": [["system": "urn:caretide:assessment-kind", "code": .string(kind)]], "text": .string(kind)],
                "prediction": [
                    [
                        "outcome": ["text": row["category"] ?? "unknown"],
                        "qualitativeRisk": ["text": row["severity"] ?? "unknown"],
                    ]
                ],
            ]
            if let observedAt = row["observed_at"] { resource["occurrenceDateTime"] = observedAt }
            if let tip = row["tip"]?.stringValue, !tip.isEmpty { resource["note"] = [["text": .string(tip)]] }
            return .object(resource)
        }
    }
}
