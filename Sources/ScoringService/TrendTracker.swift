import CaretideDomain
import CaretideSchemas
import ClinicalAssessment
import Foundation
import PostgresNIO

/// Looks at a patient's series after each new assessment and raises a care-tracking flag once per pattern: a run of
/// stage-2 blood pressures (keyed by its first reading), a rising fasting glucose (keyed by its first value), an NPI
/// whose prognostic group changed (keyed by the change). The rules are `CaretideDomain.Trends`.
struct TrendTracker {
    let store: AssessmentStore

    func flags(after assessment: Assessment, id: UUID, patientID: String) async throws -> [CareTrackingFlagged] {
        let candidates: [CareTrackingFlag]
        switch assessment.kind {
        case .bloodPressure:
            let readings = try await store.standing(patientID: patientID, kind: .bloodPressure).compactMap { row -> TimedBloodPressureReading? in
                let values = try? CaretideJSON.parse(Array(row.values.utf8))
                guard let systolic = values?["systolic"]?.numberValue, let diastolic = values?["diastolic"]?.numberValue else { return nil }
                return TimedBloodPressureReading(takenAt: row.observedAt, systolic: Int(systolic), diastolic: Int(diastolic))
            }
            candidates = (try? Trends.sustainedStage2BloodPressure(readings)) ?? []
        case .glucose:
            let readings = try await store.standing(patientID: patientID, kind: .glucose).compactMap { row -> TimedFastingGlucoseReading? in
                let inputs = try? CaretideJSON.parse(Array(row.inputs.utf8))
                let values = try? CaretideJSON.parse(Array(row.values.utf8))
                guard inputs?["context"]?.stringValue == GlucoseMeasurementContext.fasting.rawValue,
                      let mgPerDL = values?["valueMgPerDL"]?.numberValue else { return nil }
                return TimedFastingGlucoseReading(takenAt: row.observedAt, value: mgPerDL, unit: .mgPerDL)
            }
            candidates = ((try? Trends.risingFastingGlucose(readings)) ?? nil).map { [$0] } ?? []
        case .nottinghamPrognosticIndex:
            let groups = try await store.standing(patientID: patientID, kind: .nottinghamPrognosticIndex).compactMap { row in
                NPIPrognosticGroup(rawValue: row.category).map { TimedNPIGroup(assessedAt: row.observedAt, group: $0) }
            }
            candidates = (try? Trends.npiGroupChanges(groups)) ?? []
        default:
            return []
        }
        var raised: [CareTrackingFlagged] = []
        for flag in candidates {
            // One flag per pattern: a run that grows, or a series re-examined, finds its key already taken.
            let key = flag.kind == .npiPrognosticGroupChanged ? Timestamp.format(flag.lastObservedAt) : Timestamp.format(flag.firstObservedAt)
            let flagID = UUID()
            let inserted = try await store.connection.fetchAll(
                """
                INSERT INTO care_tracking_flags (flag_id, patient_id, rule, pattern_key, triggering_assessment_id, first_observed_at, last_observed_at)
                VALUES (\(flagID), \(patientID), \(flag.kind.rawValue), \(key), \(id), \(flag.firstObservedAt), \(flag.lastObservedAt))
                ON CONFLICT (patient_id, rule, pattern_key) DO NOTHING RETURNING 1
                """, as: Int.self, logger: store.logger)
            guard !inserted.isEmpty else { continue }
            raised.append(CareTrackingFlagged(
                flagID: flagID, rule: flag.kind, severity: flag.severity, tip: flag.tip.rawValue, ruleSetVersion: flag.ruleSetVersion,
                firstObservedAt: flag.firstObservedAt, lastObservedAt: flag.lastObservedAt, triggeringAssessmentID: id))
        }
        return raised
    }
}
