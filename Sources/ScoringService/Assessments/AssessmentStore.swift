import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation
import Logging
import PostgresNIO

/// The assessments table: full history per patient, never overwritten. A newer revision of a subject supersedes the
/// standing assessment; a deleted or retracted subject withdraws it.
struct AssessmentStore: ServiceStore {
    let session: StoreSession

    enum Outcome {
        /// Stored; `supersedes` is the assessment it replaced, if any.
        case recorded(assessmentID: UUID, supersedes: UUID?)
        /// An older revision arrived after a newer one was assessed: nothing changes.
        case stale
    }

    /// A new row of the table: the rule's outcome with its provenance (the payload as received, for rescoring).
    struct NewAssessment {
        let assessmentID: UUID
        let sourceEventID: UUID
        let sourceEventType: EventType
        let patientID: String
        let assessment: Assessment
        let inputs: JSONValue
    }

    /// Stores an assessment of the payload `inputs`; supersedes the standing assessment of the same subject unless that
    /// one is of a newer revision.
    func record(
        _ assessment: Assessment, patientID: String, sourceEventID: UUID, sourceEventType: EventType, inputs: JSONValue,
        replacingSameRevision: Bool = false
    ) async throws -> Outcome {
        let subject = Subject(patientID: patientID, kind: assessment.kind.rawValue, subjectID: assessment.subjectID)
        let standing = try await lockStanding([subject])[subject]
        guard Self.replaces(standing: standing?.revision, with: assessment.subjectRevision, replacingSameRevision: replacingSameRevision) else {
            return .stale
        }
        let assessmentID = UUID.timeOrdered()
        if let standing { try await supersede([(standing.id, assessmentID)]) }
        try await insert([
            NewAssessment(
                assessmentID: assessmentID, sourceEventID: sourceEventID, sourceEventType: sourceEventType, patientID: patientID,
                assessment: assessment, inputs: inputs)
        ])
        return .recorded(assessmentID: assessmentID, supersedes: standing?.id)
    }

    /// The supersede rule, one standing assessment per subject: an assessment of revision `revision` replaces the
    /// standing one unless that one is of a newer revision; of the same revision, only when a rescore replaces it
    /// (a redelivered or late event never does).
    static func replaces(standing: Int?, with revision: Int, replacingSameRevision: Bool = false) -> Bool {
        guard let standing else { return true }
        return standing < revision || (standing == revision && replacingSameRevision)
    }

    /// Marks each `old` assessment as superseded by its `new` one. Call before inserting the new ones: the unique
    /// index allows one standing assessment per subject.
    func supersede(_ replacements: [(old: UUID, new: UUID)]) async throws {
        guard !replacements.isEmpty else { return }
        try await session.query(
            """
            UPDATE assessments SET superseded_by = s.new FROM unnest(\(replacements.map(\.old)), \(replacements.map(\.new))) AS s(old, new)
            WHERE assessment_id = s.old
            """)
    }

    /// Inserts new assessments in one statement.
    func insert(_ rows: [NewAssessment]) async throws {
        guard !rows.isEmpty else { return }
        let items = try rows.map { row in
            Statements.InsertAssessments.Item(
                assessmentID: row.assessmentID, sourceEventID: row.sourceEventID, sourceEventType: row.sourceEventType.rawValue,
                patientID: row.patientID, kind: row.assessment.kind.rawValue, subjectID: row.assessment.subjectID,
                subjectRevision: row.assessment.subjectRevision, category: row.assessment.category.rawValue,
                severity: row.assessment.severity.rawValue,
                tip: row.assessment.tip.rawValue, ruleSetVersion: row.assessment.ruleSetVersion, observedAt: row.assessment.observedAt,
                inputs: try CaretideJSON.encodeToString(row.inputs), result: try CaretideJSON.encodeToString(StoredResult(row.assessment)))
        }
        _ = try await session.execute(Statements.InsertAssessments(items: items))
    }

    /// Withdraws the standing assessment of a subject; returns its id, or nil if there was none.
    func withdraw(patientID: String, kind: AssessmentKind, subjectID: String, reason: WithdrawalReason) async throws -> UUID? {
        try await session.fetchAll(
            """
            UPDATE assessments SET withdrawn_at = now(), withdrawal_reason = \(reason.rawValue)
            WHERE patient_id = \(patientID) AND kind = \(kind.rawValue) AND subject_id = \(subjectID)
              AND superseded_by IS NULL AND withdrawn_at IS NULL
            RETURNING assessment_id
            """, as: UUID.self
        ).first
    }

    /// What one standing assessment is of: a patient's subject (a reading, an exam report…) of one kind.
    struct Subject: Hashable {
        let patientID: String
        let kind: String
        let subjectID: String
    }

    /// The standing assessment of each subject, locked for the rest of the transaction (`Statements.LockStanding`).
    func lockStanding(_ subjects: [Subject]) async throws -> [Subject: (id: UUID, revision: Int)] {
        guard !subjects.isEmpty else { return [:] }
        var standing: [Subject: (id: UUID, revision: Int)] = [:]
        for try await (subject, id, revision) in try await session.execute(Statements.LockStanding(subjects: subjects)) {
            standing[subject] = (id, revision)
        }
        return standing
    }

    /// Each (patient, kind)'s newest `window` standing assessments, oldest first, with the numbers the trend rules read
    /// (`Statements.TrendSeries`): rows name their series by its 1-based position in the arrays.
    func trendSeries(patientIDs: [String], kinds: [String], window: Int) async throws -> [Statements.TrendSeries.Row] {
        try await session.execute(Statements.TrendSeries(patientIDs: patientIDs, kinds: kinds, window: window)).collectAll()
    }

    /// The standing assessments made since `since`, oldest first, with the inputs they were made from (`Rescorer`).
    func standing(since: Date) async throws -> [(UUID, String, String, String, String, String, String, UUID, String, String, Date)] {
        try await session.fetchAll(
            """
            SELECT assessment_id, patient_id, kind, subject_id, category, severity, rule_set_version, source_event_id, source_event_type,
                   inputs::text, assessed_at
            FROM assessments
            WHERE assessed_at >= \(since) AND superseded_by IS NULL AND withdrawn_at IS NULL
            ORDER BY assessed_at, assessment_id
            """, as: (UUID, String, String, String, String, String, String, UUID, String, String, Date).self)
    }
}
