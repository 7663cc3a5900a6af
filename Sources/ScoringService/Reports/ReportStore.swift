import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// What a patient's report reads: the standing assessments of a period, exam reports only in the revisions their
/// institution released (`exam_releases`, kept from `exam-result.released`).
struct ReportStore: ServiceStore {
    let session: StoreSession

    /// Remembers a released revision; the same release again changes nothing.
    func released(patientID: String, exam: ExamKey, revision: Int, at releasedAt: Date) async throws {
        try await session.query(
            """
            INSERT INTO exam_releases (patient_id, subject_id, revision, released_at)
            VALUES (\(patientID), \(exam.subjectID), \(revision), \(releasedAt)) ON CONFLICT DO NOTHING
            """)
    }

    /// The patient's standing assessments observed in `period`, oldest first; an exam report's only when the revision
    /// assessed was released to the patient.
    /// The skin photos taken in the period, by body site and then time, each with the classifier's standing answer
    /// about it, if any.
    func photos(patientID: String, period: Period) async throws -> [PatientReport.Photo] {
        try await session.fetchAll(
            """
            SELECT p.body_site, p.side, p.taken_at, a.category, (a.result->'values'->>'certaintyPercent')::float8
            FROM known_photos p
            LEFT JOIN assessments a ON a.patient_id = p.patient_id AND a.kind = \(AssessmentKind.lesionPhoto.rawValue)
                AND a.subject_id = p.photo_id::text AND a.superseded_by IS NULL AND a.withdrawn_at IS NULL
            WHERE p.patient_id = \(patientID) AND p.taken_at >= \(period.start) AND p.taken_at < \(period.end)
            ORDER BY p.body_site, p.side NULLS FIRST, p.taken_at, p.photo_id
            """, as: (String, String?, Date, String?, Double?).self
        ).map { PatientReport.Photo(bodySite: $0.0, side: $0.1, takenAt: $0.2, answer: $0.3, certaintyPercent: $0.4) }
    }

    /// The care-tracking patterns raised about readings in the period, oldest first.
    func careFlags(patientID: String, period: Period) async throws -> [PatientReport.CareFlag] {
        try await session.fetchAll(
            """
            SELECT rule, first_observed_at, last_observed_at FROM care_tracking_flags
            WHERE patient_id = \(patientID) AND last_observed_at >= \(period.start) AND first_observed_at < \(period.end)
            ORDER BY first_observed_at, flag_id
            """, as: (String, Date, Date).self
        ).map { PatientReport.CareFlag(rule: $0.0, firstObservedAt: $0.1, lastObservedAt: $0.2) }
    }

    func entries(patientID: String, period: Period, npiID: String? = nil, texts: TipTexts? = nil) async throws -> [PatientReport.Entry] {
        // An NPI's inputs go beside it; other kinds' are not read.
        try await session.fetchAll(
            """
            SELECT a.kind, a.observed_at, a.category, a.severity, coalesce(a.result->'values', '{}'::jsonb)::text,
                   coalesce(a.result->'items', '[]'::jsonb)::text, a.subject_id,
                   CASE WHEN a.kind = \(AssessmentKind.nottinghamPrognosticIndex.rawValue) THEN a.inputs::text ELSE '{}' END, a.tip
            FROM assessments a
            WHERE a.patient_id = \(patientID) AND a.superseded_by IS NULL AND a.withdrawn_at IS NULL
              AND a.observed_at >= \(period.start) AND a.observed_at < \(period.end)
              AND (\(npiID == nil) OR (a.kind = \(AssessmentKind.nottinghamPrognosticIndex.rawValue) AND a.subject_id = \(npiID ?? "")))
              AND (a.kind <> \(AssessmentKind.examResult.rawValue) OR EXISTS (
                    SELECT 1 FROM exam_releases r
                    WHERE r.patient_id = a.patient_id AND r.subject_id = a.subject_id AND r.revision = a.subject_revision))
            ORDER BY a.observed_at, a.assessment_id
            """, as: (String, Date, String, String, String, String, String, String, String).self
        ).compactMap { row in
            guard let kind = AssessmentKind(rawValue: row.0), let severity = Severity(rawValue: row.3) else { return nil }
            return PatientReport.Entry(
                kind: kind, observedAt: row.1, category: row.2, severity: severity, values: try CaretideJSON.parse(Array(row.4.utf8)),
                items: kind == .examResult ? try JSONValueDecoder.decode([FlaggedExamLine].self, from: CaretideJSON.parse(Array(row.5.utf8))) : [],
                subjectID: row.6, inputs: try CaretideJSON.parse(Array(row.7.utf8)), tipText: texts?.text(row.8))
        }
    }
}
