import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of exam report release: institutions' rules and each report's release state.
struct ReleaseStore: ServiceStore {
    let session: StoreSession

    func rules(institutionID: String) async throws -> [ReleasePolicy.Rule] {
        guard
            let text = try await session.query(
                "SELECT rules::text FROM release_rules WHERE institution_id = \(institutionID)"
            ).collectAll().first?.decode(String.self)
        else { return [] }
        return try JSONValueDecoder.decode([ReleasePolicy.Rule].self, from: CaretideJSON.parse(Array(text.utf8)))
    }

    func replaceRules(institutionID: String, rulesText: String) async throws {
        try await session.query(
            """
            INSERT INTO release_rules (institution_id, rules) VALUES (\(institutionID), \(rulesText)::jsonb)
            ON CONFLICT (institution_id) DO UPDATE SET rules = excluded.rules, updated_at = now()
            """)
    }

    /// Records the decision for a report's new revision; returns whether it is released now.
    func decide(recordID: String, patientID: String, revision: Int, decision: ReleasePolicy.Decision, now: Date) async throws -> Bool {
        let (kind, releaseAt, reason): (String, Date?, String?) =
            switch decision {
            case .immediately: ("immediately", nil, nil)
            case .after(let hours): ("after", now.addingTimeInterval(Double(hours) * 3600), nil)
            case .hold(let reason): ("hold", nil, reason)
            }
        let released = decision == .immediately
        try await session.query(
            """
            INSERT INTO report_releases (record_id, patient_id, revision, decision, release_at, hold_reason, released_revision, released_at)
            VALUES (\(recordID), \(patientID), \(revision), \(kind), \(releaseAt), \(reason), \(released ? revision : nil), \(released ? now : nil))
            ON CONFLICT (record_id) DO UPDATE SET revision = excluded.revision, decision = excluded.decision, release_at = excluded.release_at,
                hold_reason = excluded.hold_reason,
                released_revision = coalesce(excluded.released_revision, report_releases.released_revision),
                released_at = coalesce(excluded.released_at, report_releases.released_at)
            """)
        return released
    }

    /// A report not yet released at its current revision, locked; nil when there is none or it is released.
    func pending(recordID: String) async throws -> (patientID: String, revision: Int)? {
        try await session.query(
            """
            SELECT patient_id, revision FROM report_releases
            WHERE record_id = \(recordID) AND released_revision IS DISTINCT FROM revision FOR UPDATE
            """
        ).collectAll().first.map { try $0.decode((String, Int).self) }
    }

    /// Delayed reports whose time has come, locked (others' locks skipped, so two jobs never release one twice).
    func due(now: Date, limit: Int) async throws -> [(recordID: String, patientID: String, revision: Int)] {
        try await session.query(
            """
            SELECT record_id, patient_id, revision FROM report_releases
            WHERE decision = 'after' AND release_at <= \(now) AND released_revision IS DISTINCT FROM revision
            ORDER BY release_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """
        ).collectAll().map { try $0.decode((String, String, Int).self) }.map { ($0.0, $0.1, $0.2) }
    }

    /// How many items of the stored report are outside their reference range (its current revision: a report is
    /// released at the revision it holds).
    func outOfRangeCount(recordID: String) async throws -> Int {
        guard
            let text = try await session.query(
                "SELECT (body->'items')::text FROM records WHERE record_type = \(RecordKind.examResult.recordType) AND record_id = \(recordID)"
            ).collectAll().first?.decode(String.self)
        else { return 0 }
        let items = try JSONValueDecoder.decode([ExamResultLine].self, from: CaretideJSON.parse(Array(text.utf8)))
        return items.filter(ReleasePolicy.isAbnormal).count
    }

    func markReleased(recordID: String, revision: Int, at now: Date) async throws {
        try await session.query(
            "UPDATE report_releases SET released_revision = \(revision), released_at = \(now) WHERE record_id = \(recordID)")
    }

    /// One released report as its patient reads it.
    struct ReleasedReport {
        let recordID: String
        let revision: Int
        let releasedAt: Date
        let reportedAt: Date
        let body: String
    }

    /// A page of the patient's reports released at their current revision, newest report first.
    /// One line of a released report.
    struct ReleasedItem: Sendable {
        let recordID: String
        let revision: Int
        let reportedAt: Date
        let line: ExamResultLine
    }

    /// Every line with `code` of the patient's released reports issued in `period`, oldest first (a report's lines in
    /// their order).
    func releasedItems(
        patientID: String, code: String, period: Period
    ) async throws -> [ReleasedItem] {
        try await session.fetchAll(
            """
            SELECT r.record_id, r.revision, r.observed_at, item.value::text FROM records r
            JOIN report_releases rr ON rr.record_id = r.record_id AND rr.released_revision = r.revision
            CROSS JOIN LATERAL jsonb_array_elements(r.body->'items') WITH ORDINALITY AS item(value, position)
            WHERE r.record_type = \(RecordKind.examResult.recordType) AND r.patient_id = \(patientID) AND r.deleted_at IS NULL
              AND r.observed_at >= \(period.start) AND r.observed_at < \(period.end) AND item.value->>'code' = \(code)
            ORDER BY r.observed_at, r.record_id, item.position
            """, as: (String, Int, Date, String).self
        ).map {
            ReleasedItem(
                recordID: $0.0, revision: $0.1, reportedAt: $0.2,
                line: try JSONValueDecoder.decode(ExamResultLine.self, from: try CaretideJSON.parse(Array($0.3.utf8))))
        }
    }

    func released(patientID: String, period: Period, page: PageRequest) async throws
        -> [ReleasedReport]
    {
        let after = page.after
        guard after == nil || after?.date != nil else { throw PageRequest.badCursor }
        return try await session.fetchAll(
            """
            SELECT r.record_id, r.revision, rr.released_at, r.observed_at, r.body::text FROM records r
            JOIN report_releases rr ON rr.record_id = r.record_id AND rr.released_revision = r.revision
            WHERE r.record_type = \(RecordKind.examResult.recordType) AND r.patient_id = \(patientID) AND r.deleted_at IS NULL
              AND r.observed_at >= \(period.start) AND r.observed_at < \(period.end)
              AND (\(after == nil) OR (r.observed_at, r.record_id) < (\(after?.date ?? Date()), \(after?.id ?? "")))
            ORDER BY r.observed_at DESC, r.record_id DESC LIMIT \(page.limit + 1)
            """, as: (String, Int, Date, Date, String).self
        ).map { ReleasedReport(recordID: $0.0, revision: $0.1, releasedAt: $0.2, reportedAt: $0.3, body: $0.4) }
    }
}
