import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

extension AssessmentStore {
    /// The patient's standing assessments of `kind` observed in `period`, oldest first.
    func standing(patientID: String, kind: AssessmentKind, period: Period) async throws -> [SeriesRoutes.Point] {
        try await session.fetchAll(
            """
            SELECT observed_at, coalesce(result->'values', '{}'::jsonb)::text, category, severity, subject_id FROM assessments
            WHERE patient_id = \(patientID) AND kind = \(kind.rawValue) AND superseded_by IS NULL AND withdrawn_at IS NULL
              AND observed_at >= \(period.start) AND observed_at < \(period.end)
            ORDER BY observed_at, assessment_id
            """, as: (Date, String, String, String, String).self
        ).map {
            SeriesRoutes.Point(observedAt: $0.0, values: try CaretideJSON.parse(Array($0.1.utf8)), category: $0.2, severity: $0.3, subjectId: $0.4)
        }
    }
}
