import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import ClinicalAssessment
import Foundation

/// Looks at patients' series after new assessments and raises a care-tracking flag once per pattern: a run of
/// stage-2 blood pressures (keyed by its first reading), a rising fasting glucose (keyed by its first value), an NPI
/// whose prognostic group changed (keyed by the change). The rules are `CaretideDomain.Trends`.
///
/// Series are loaded for all triggering patients in one query and hold each patient's newest `window` standing
/// assessments of a kind; a reading synced so late that a dozen newer ones precede it does not start a pattern. A run
/// that reaches back to the start of a full window began earlier and was flagged then, so it is not flagged again.
struct TrendTracker {
    let assessments: AssessmentStore
    let flags: CareTrackingFlagStore

    init(_ context: HandlerContext) {
        assessments = AssessmentStore(context)
        flags = CareTrackingFlagStore(context)
    }

    /// How many of a patient's newest standing assessments of a kind the rules look at: enough for a run of three
    /// or a rise over three to complete among late-synced readings, small enough to load for a whole batch at once.
    let window = 12

    /// Whether a new assessment can complete a pattern at all: only blood pressure, glucose and NPI series have trend
    /// rules, and a reading below stage 2 cannot complete a stage-2 run, so its series is not loaded.
    static func canComplete(_ assessment: Assessment) -> Bool {
        switch assessment.category {
        case .bloodPressure(let category): category >= .stage2Hypertension
        case .glucose, .nottinghamPrognosticIndex: true
        default: false
        }
    }

    struct Trigger {
        let patientID: String
        let kind: AssessmentKind
        let assessmentID: UUID
        /// The trace of the event that caused the assessment; a flag it raises carries it on.
        let traceID: String?
    }

    private struct Point {
        let observedAt: Date
        let category: String
        let systolic: Double?
        let diastolic: Double?
        let glucoseMgPerDL: Double?
        let glucoseContext: String?
    }

    /// The new flags (stored, not yet published) for the patients and kinds of `tracked`.
    /// - Parameter tracked: only assessments that `canComplete` a pattern, at most one per patient and kind.
    func flags(for tracked: [Trigger]) async throws -> [(trigger: Trigger, flag: CareTrackingFlagged)] {
        guard !tracked.isEmpty else { return [] }
        let rows = try await assessments.trendSeries(patientIDs: tracked.map(\.patientID), kinds: tracked.map(\.kind.rawValue), window: window)
        var series = [[Point]](repeating: [], count: tracked.count)
        for row in rows {
            series[row.0 - 1].append(
                Point(observedAt: row.1, category: row.2, systolic: row.3, diastolic: row.4, glucoseMgPerDL: row.5, glucoseContext: row.6))
        }

        var found: [(trigger: Trigger, flag: CareTrackingFlag)] = []
        for (trigger, points) in zip(tracked, series) {
            let windowStart = points.count >= window ? points.first?.observedAt : nil
            for flag in Self.patterns(trigger.kind, points) {
                if flag.kind == .sustainedStage2BloodPressure, flag.firstObservedAt == windowStart { continue }
                found.append((trigger, flag))
            }
        }
        // One flag per pattern: a run that grows, or a series looked at again, finds its key taken.
        let ids = try await flags.raise(
            found.map { trigger, flag in
                CareTrackingFlagStore.Candidate(
                    patientID: trigger.patientID, rule: flag.kind,
                    patternKey: Timestamp.format(flag.kind == .npiPrognosticGroupChanged ? flag.lastObservedAt : flag.firstObservedAt),
                    triggeringID: trigger.assessmentID, firstObservedAt: flag.firstObservedAt, lastObservedAt: flag.lastObservedAt)
            })
        return zip(ids, found).compactMap { id, found in
            guard let id else { return nil }
            let flag = found.flag
            return (
                found.trigger,
                CareTrackingFlagged(
                    flagID: id, rule: flag.kind, severity: flag.severity, tip: flag.tip.rawValue, ruleSetVersion: flag.ruleSetVersion,
                    firstObservedAt: flag.firstObservedAt, lastObservedAt: flag.lastObservedAt, triggeringAssessmentID: found.trigger.assessmentID
                )
            )
        }
    }

    private static func patterns(_ kind: AssessmentKind, _ points: [Point]) -> [CareTrackingFlag] {
        switch kind {
        case .bloodPressure:
            let readings = points.compactMap { point in
                point.systolic.flatMap { systolic in
                    point.diastolic.map { TimedBloodPressureReading(takenAt: point.observedAt, systolic: Int(systolic), diastolic: Int($0)) }
                }
            }
            return (try? Trends.sustainedStage2BloodPressure(readings)) ?? []
        case .glucose:
            let readings = points.filter { $0.glucoseContext == GlucoseMeasurementContext.fasting.rawValue }.compactMap { point in
                point.glucoseMgPerDL.map { TimedFastingGlucoseReading(takenAt: point.observedAt, value: $0, unit: .mgPerDL) }
            }
            return ((try? Trends.risingFastingGlucose(readings)) ?? nil).map { [$0] } ?? []
        case .nottinghamPrognosticIndex:
            let groups = points.compactMap { point in
                NPIPrognosticGroup(rawValue: point.category).map { TimedNPIGroup(assessedAt: point.observedAt, group: $0) }
            }
            return (try? Trends.npiGroupChanges(groups)) ?? []
        default:
            return []
        }
    }
}
