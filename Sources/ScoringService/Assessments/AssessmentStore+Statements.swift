import CaretideStore
import Foundation
import PostgresNIO

/// The assessments' statements that run for every batch, prepared once per connection (see `StorePreparedStatements`).
extension AssessmentStore {
    enum Statements {
        /// The standing assessment of each subject, locked for the rest of the transaction. A LATERAL probe of the
        /// one-standing-per-subject index for each subject: a plain join let PostgreSQL hash the whole table's standing
        /// rows for every batch, a cost that grew with the table (BENCHMARKS.md).
        struct LockStanding: PostgresPreparedStatement {
            static let name = "scoring.lock-standing"
            static let sql = """
                SELECT s.patient_id, s.kind, s.subject_id, a.assessment_id, a.subject_revision
                FROM unnest($1::text[], $2::text[], $3::text[]) AS s(patient_id, kind, subject_id)
                CROSS JOIN LATERAL (
                    SELECT assessment_id, subject_revision FROM assessments
                    WHERE patient_id = s.patient_id AND kind = s.kind AND subject_id = s.subject_id
                      AND superseded_by IS NULL AND withdrawn_at IS NULL
                    FOR UPDATE) AS a
                """
            typealias Row = (Subject, UUID, Int)
            let subjects: [Subject]

            func makeBindings() throws -> PostgresBindings {
                var bindings = PostgresBindings(capacity: 3)
                bindings.append(subjects.map(\.patientID))
                bindings.append(subjects.map(\.kind))
                bindings.append(subjects.map(\.subjectID))
                return bindings
            }

            func decodeRow(_ row: PostgresRow) throws -> (Subject, UUID, Int) {
                var columns = RowReader(row)
                let subject = Subject(patientID: try columns.next(), kind: try columns.next(), subjectID: try columns.next())
                return (subject, try columns.next(), try columns.next())
            }
        }

        /// Inserts a run of assessments, one array per column.
        struct InsertAssessments: PostgresPreparedStatement {
            static let name = "scoring.insert-assessments"
            static let sql = """
                INSERT INTO assessments (assessment_id, source_event_id, source_event_type, patient_id, kind, subject_id, subject_revision,
                    category, severity, tip, rule_set_version, observed_at, inputs, result)
                SELECT id, source, source_type, patient, kind, subject, revision, category, severity, tip, rule_set, observed, inputs::jsonb, result::jsonb
                FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[], $8::text[], $9::text[], $10::text[],
                            $11::text[], $12::timestamptz[], $13::text[], $14::text[])
                     AS r(id, source, source_type, patient, kind, subject, revision, category, severity, tip, rule_set, observed, inputs, result)
                """
            typealias Row = ()

            struct Item {
                let assessmentID: UUID
                let sourceEventID: UUID
                let sourceEventType: String
                let patientID: String
                let kind: String
                let subjectID: String
                let subjectRevision: Int
                let category: String
                let severity: String
                let tip: String
                let ruleSetVersion: String
                let observedAt: Date
                let inputs: String
                let result: String
            }

            let items: [Item]

            func makeBindings() throws -> PostgresBindings {
                var bindings = PostgresBindings(capacity: 14)
                bindings.append(items.map(\.assessmentID))
                bindings.append(items.map(\.sourceEventID))
                bindings.append(items.map(\.sourceEventType))
                bindings.append(items.map(\.patientID))
                bindings.append(items.map(\.kind))
                bindings.append(items.map(\.subjectID))
                bindings.append(items.map(\.subjectRevision))
                bindings.append(items.map(\.category))
                bindings.append(items.map(\.severity))
                bindings.append(items.map(\.tip))
                bindings.append(items.map(\.ruleSetVersion))
                bindings.append(items.map(\.observedAt))
                bindings.append(items.map(\.inputs))
                bindings.append(items.map(\.result))
                return bindings
            }

            func decodeRow(_ row: PostgresRow) throws {}
        }

        /// Each (patient, kind)'s newest standing assessments, oldest first, with the numbers the trend rules read.
        /// Rows name their series by its position in the arrays (1-based), and only the kinds that use a number have it
        /// read out of the JSON: this query returns up to `window` rows per series, and those are most of its cost.
        struct TrendSeries: PostgresPreparedStatement {
            static let name = "scoring.trend-series"
            static let sql = """
                SELECT s.series::int8, a.observed_at, a.category,
                       CASE WHEN s.kind = 'bloodPressure' THEN (a.result->'values'->>'systolic')::float8 END,
                       CASE WHEN s.kind = 'bloodPressure' THEN (a.result->'values'->>'diastolic')::float8 END,
                       CASE WHEN s.kind = 'glucose' THEN (a.result->'values'->>'valueMgPerDL')::float8 END,
                       CASE WHEN s.kind = 'glucose' THEN a.inputs->>'context' END
                FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS s(patient_id, kind, series)
                CROSS JOIN LATERAL (
                    SELECT observed_at, assessed_at, category, result, inputs FROM assessments
                    WHERE patient_id = s.patient_id AND kind = s.kind AND superseded_by IS NULL AND withdrawn_at IS NULL
                    ORDER BY observed_at DESC, assessed_at DESC LIMIT $3) a
                ORDER BY s.series, a.observed_at, a.assessed_at
                """
            typealias Row = (Int, Date, String, Double?, Double?, Double?, String?)
            let patientIDs: [String]
            let kinds: [String]
            let window: Int

            func makeBindings() throws -> PostgresBindings {
                var bindings = PostgresBindings(capacity: 3)
                bindings.append(patientIDs)
                bindings.append(kinds)
                bindings.append(window)
                return bindings
            }

            func decodeRow(_ row: PostgresRow) throws -> Row {
                var columns = RowReader(row)
                return (
                    try columns.next(), try columns.next(), try columns.next(), try columns.next(), try columns.next(), try columns.next(),
                    try columns.next()
                )
            }
        }
    }
}
