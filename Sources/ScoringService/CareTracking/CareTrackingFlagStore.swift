import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import PostgresNIO

/// The care-tracking flags scoring-service raised: the table's one writer, for every rule that raises one (the series
/// trends of `TrendTracker`, the sodium episodes of `NutritionAnalysis`).
///
/// A pattern is flagged once. Each flag is keyed by the pattern it found, and a candidate is new unless a flag of the
/// same patient and rule already holds a key within the candidate's `sameKeys`: a trend names its pattern by one key,
/// while a sodium episode is the same episode under any start within its days (a day synced late can move its start
/// earlier). Keys are timestamps or `yyyy-MM-dd` dates, which order as text.
struct CareTrackingFlagStore: ServiceStore {
    let session: StoreSession

    struct Candidate {
        let patientID: String
        let rule: CareTrackingFlagKind
        /// The key the flag is stored under.
        let patternKey: String
        /// The keys of earlier flags that name the same pattern; `patternKey` is among them.
        let sameKeys: ClosedRange<String>
        /// The assessment or nutrition analysis that completed the pattern.
        let triggeringID: UUID
        let firstObservedAt: Date
        let lastObservedAt: Date

        init(
            patientID: String, rule: CareTrackingFlagKind, patternKey: String, sameKeys: ClosedRange<String>? = nil, triggeringID: UUID,
            firstObservedAt: Date, lastObservedAt: Date
        ) {
            self.patientID = patientID
            self.rule = rule
            self.patternKey = patternKey
            self.sameKeys = sameKeys ?? patternKey...patternKey
            self.triggeringID = triggeringID
            self.firstObservedAt = firstObservedAt
            self.lastObservedAt = lastObservedAt
        }
    }

    /// Stores the candidates whose pattern was not flagged before, in one statement; the new flag's id for each
    /// candidate stored, nil for each already flagged.
    func raise(_ candidates: [Candidate]) async throws -> [UUID?] {
        guard !candidates.isEmpty else { return [] }
        let ids = candidates.map { _ in UUID.timeOrdered() }
        let stored = try await session.fetchAll(
            """
            INSERT INTO care_tracking_flags (flag_id, patient_id, rule, pattern_key, triggering_assessment_id, first_observed_at, last_observed_at)
            SELECT c.flag_id, c.patient_id, c.rule, c.pattern_key, c.triggering_id, c.first_observed_at, c.last_observed_at
            FROM unnest(\(ids), \(candidates.map(\.patientID)), \(candidates.map(\.rule.rawValue)), \(candidates.map(\.patternKey)),
                        \(candidates.map(\.sameKeys.lowerBound)), \(candidates.map(\.sameKeys.upperBound)), \(candidates.map(\.triggeringID)),
                        \(candidates.map(\.firstObservedAt)), \(candidates.map(\.lastObservedAt)))
                 AS c(flag_id, patient_id, rule, pattern_key, same_from, same_through, triggering_id, first_observed_at, last_observed_at)
            WHERE NOT EXISTS (
                SELECT 1 FROM care_tracking_flags f
                WHERE f.patient_id = c.patient_id AND f.rule = c.rule AND f.pattern_key BETWEEN c.same_from AND c.same_through)
            ON CONFLICT (patient_id, rule, pattern_key) DO NOTHING RETURNING flag_id
            """, as: UUID.self)
        let inserted = Set(stored)
        return ids.map { inserted.contains($0) ? $0 : nil }
    }
}
