import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

extension AssessmentStore {
    /// One assessment as the patient's history shows it: what was assessed (`inputs`, the recorded event's payload)
    /// and what the rules made of it.
    struct HistoryEntry: Encodable, Sendable {
        let assessmentId: UUID
        let sourceEventId: UUID
        let kind: String
        let subjectId: String
        let subjectRevision: Int
        let category: String
        let severity: String
        let tip: String
        /// The tip in the caller's language (`Accept-Language`), English by default.
        let tipText: String?
        /// The severity's display label, in the same language.
        let severityLabel: String?
        let ruleSetVersion: String
        let observedAt: Date
        let supersededBy: UUID?
        let withdrawn: String?
        let values: JSONValue
        let inputs: JSONValue
    }

    /// Which of a patient's assessments a page lists, and in which order.
    struct HistoryQuery: Sendable {
        /// Only these kinds; empty for every kind.
        var kinds: [AssessmentKind] = []
        /// Leaves out kinds the caller may not read here (exam reports, for patients: see `AssessmentRoutes`).
        var excludedKinds: [AssessmentKind] = []
        /// Leaves out the superseded and the withdrawn.
        var standingOnly = false
        var newestFirst = false
        /// Only assessments of values observed in it.
        var period = Period.always
        /// Only those of this measurement, NPI, profile or exam.
        var subjectID: String?
    }

    /// The SQL of a history page's order, and the comparison that continues after a cursor in that order: a page read
    /// newest first goes on below its last row, one read oldest first above it. Each is one of two fixed words, never
    /// caller text.
    static func order(newestFirst: Bool) -> (direction: String, beyond: String) {
        newestFirst ? ("DESC", "<") : ("ASC", ">")
    }

    /// A page of the patient's assessments, by observation time (oldest first unless `query.newestFirst`).
    func history(
        patientID: String, query: HistoryQuery, page: PageRequest, texts: TipTexts
    ) async throws -> Page<HistoryEntry> {
        let after = try page.timeAndUUID()
        let (kinds, excluded) = (query.kinds.map(\.rawValue), query.excludedKinds.map(\.rawValue))
        let (direction, beyond) = Self.order(newestFirst: query.newestFirst)
        let rows = try await session.fetchAll(
            """
            SELECT assessment_id, source_event_id, kind, subject_id, subject_revision, category, severity, tip, rule_set_version,
                   observed_at, superseded_by, withdrawal_reason, coalesce(result->'values', '{}'::jsonb)::text, inputs::text
            FROM assessments
            WHERE patient_id = \(patientID) AND (NOT \(query.standingOnly) OR (superseded_by IS NULL AND withdrawn_at IS NULL))
              AND (cardinality(\(kinds)::text[]) = 0 OR kind = ANY(\(kinds)::text[])) AND NOT kind = ANY(\(excluded)::text[])
              AND observed_at >= \(query.period.start) AND observed_at < \(query.period.end)
              AND (\(query.subjectID == nil) OR subject_id = \(query.subjectID ?? ""))
              AND (\(after == nil) OR (observed_at, assessment_id) \(unescaped: beyond) (\(after?.0 ?? Date()), \(after?.1 ?? UUID())))
            ORDER BY observed_at \(unescaped: direction), assessment_id \(unescaped: direction) LIMIT \(page.limit + 1)
            """, as: (UUID, UUID, String, String, Int, String, String, String, String, Date, UUID?, String?, String, String).self)
        let entries = try rows.map {
            HistoryEntry(
                assessmentId: $0.0, sourceEventId: $0.1, kind: $0.2, subjectId: $0.3, subjectRevision: $0.4, category: $0.5, severity: $0.6,
                tip: $0.7, tipText: texts.text($0.7), severityLabel: texts.text("severity.\($0.6)"), ruleSetVersion: $0.8, observedAt: $0.9,
                supersededBy: $0.10, withdrawn: $0.11,
                values: try CaretideJSON.parse(Array($0.12.utf8)), inputs: try CaretideJSON.parse(Array($0.13.utf8)))
        }
        return Page(rows: entries, request: page) { .init(date: $0.observedAt, id: $0.assessmentId) }
    }
}
