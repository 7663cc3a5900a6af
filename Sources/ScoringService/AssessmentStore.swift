import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Logging
import PostgresNIO

/// The assessments table: full history per patient, never overwritten. A newer revision of a subject supersedes the
/// standing assessment; a deleted or retracted subject withdraws it.
struct AssessmentStore {
    let connection: PostgresConnection
    let logger: Logger

    enum Outcome {
        /// Stored; `supersedes` is the assessment it replaced, if any.
        case recorded(assessmentID: UUID, supersedes: UUID?)
        /// An older revision arrived after a newer one was assessed: nothing changes.
        case stale
    }

    /// Stores an assessment of `payload` (kept verbatim as its inputs, for provenance and rescoring); supersedes the
    /// standing assessment of the same subject unless that one is of a newer revision.
    func record(
        _ assessment: Assessment, patientID: String, sourceEventID: UUID, sourceEventType: EventType, payload: any EventPayload,
        replacingSameRevision: Bool = false
    ) async throws -> Outcome {
        let inputs = try CaretideJSON.encodeToString(AnyPayload(payload))
        let result = try CaretideJSON.encodeToString(StoredResult(assessment))
        let standing = try await connection.fetchAll(
            """
            SELECT assessment_id, subject_revision FROM assessments
            WHERE patient_id = \(patientID) AND kind = \(assessment.kind.rawValue) AND subject_id = \(assessment.subjectID)
              AND superseded_by IS NULL AND withdrawn_at IS NULL
            FOR UPDATE
            """, as: (UUID, Int).self, logger: logger
        ).first
        if let standing, standing.1 > assessment.subjectRevision || (standing.1 == assessment.subjectRevision && !replacingSameRevision) {
            return .stale
        }
        let assessmentID = UUID.timeOrdered()
        if let standing {
            // Supersede first: the unique index allows one standing assessment per subject.
            try await connection.query(
                "UPDATE assessments SET superseded_by = \(assessmentID) WHERE assessment_id = \(standing.0)", logger: logger)
        }
        try await connection.query(
            """
            INSERT INTO assessments (assessment_id, source_event_id, source_event_type, patient_id, kind, subject_id, subject_revision,
                category, severity, tip, rule_set_version, observed_at, inputs, result)
            VALUES (\(assessmentID), \(sourceEventID), \(sourceEventType.rawValue), \(patientID), \(assessment.kind.rawValue),
                \(assessment.subjectID), \(assessment.subjectRevision), \(assessment.category), \(assessment.severity.rawValue),
                \(assessment.tip.rawValue), \(assessment.ruleSetVersion), \(assessment.observedAt), \(inputs)::jsonb, \(result)::jsonb)
            """, logger: logger)
        return .recorded(assessmentID: assessmentID, supersedes: standing?.0)
    }

    /// Withdraws the standing assessment of a subject; returns its id, or nil if there was none.
    func withdraw(patientID: String, kind: AssessmentKind, subjectID: String, reason: WithdrawalReason) async throws -> UUID? {
        try await connection.fetchAll(
            """
            UPDATE assessments SET withdrawn_at = now(), withdrawal_reason = \(reason.rawValue)
            WHERE patient_id = \(patientID) AND kind = \(kind.rawValue) AND subject_id = \(subjectID)
              AND superseded_by IS NULL AND withdrawn_at IS NULL
            RETURNING assessment_id
            """, as: UUID.self, logger: logger
        ).first
    }
}
