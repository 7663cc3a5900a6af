public import Foundation

/// A blood-pressure reading with its time.
public struct TimedBloodPressureReading: Sendable, Equatable, Codable {
    public var takenAt: Date
    public var systolic: Int
    public var diastolic: Int

    public init(takenAt: Date, systolic: Int, diastolic: Int) {
        self.takenAt = takenAt
        self.systolic = systolic
        self.diastolic = diastolic
    }
}

/// A **fasting** plasma-glucose reading with its time.
public struct TimedFastingGlucoseReading: Sendable, Equatable, Codable {
    public var takenAt: Date
    public var value: Double
    public var unit: GlucoseUnit

    public init(takenAt: Date, value: Double, unit: GlucoseUnit) {
        self.takenAt = takenAt
        self.value = value
        self.unit = unit
    }
}

/// An NPI prognostic group with the time it was assessed.
public struct TimedNPIGroup: Sendable, Equatable, Codable {
    public var assessedAt: Date
    public var group: NPIPrognosticGroup

    public init(assessedAt: Date, group: NPIPrognosticGroup) {
        self.assessedAt = assessedAt
        self.group = group
    }
}

public enum CareTrackingFlagKind: String, Sendable, Codable, CaseIterable {
    case sustainedStage2BloodPressure
    case risingFastingGlucose
    case npiPrognosticGroupChanged
    /// Sodium at or above the WHO limit on 5 of 7 days for a patient whose blood pressure is stage 2 or worse
    /// (`CaretideNutrition.SodiumPattern`).
    case persistentHighSodium
}

/// Kind-specific details of a ``CareTrackingFlag``.
public enum CareTrackingDetail: Sendable, Equatable, Codable {
    /// A run of consecutive readings at stage 2 or worse.
    case bloodPressureRun(readingCount: Int, highestCategory: BloodPressureCategory)
    /// Three strictly rising fasting values whose category went up.
    case glucoseRise(from: GlucoseCategory, to: GlucoseCategory, valuesMgPerDL: [Double])
    /// The NPI group differs from the previous assessment.
    case npiGroupChange(from: NPIPrognosticGroup, to: NPIPrognosticGroup)
}

/// A care-tracking flag raised from a patient's chronological series.
public struct CareTrackingFlag: Sendable, Equatable, Codable {
    public let kind: CareTrackingFlagKind
    /// Time of the first observation that is part of the pattern.
    public let firstObservedAt: Date
    /// Time of the last observation that is part of the pattern.
    public let lastObservedAt: Date
    public let detail: CareTrackingDetail
    public let severity: Severity
    public let tip: TipKey
    public let ruleSetVersion: String
}

/// Care-tracking trend rules over a patient's chronological series. The rule definitions are this rule set's
/// own (no guideline defines them); the thresholds they reuse come from the cited single-reading rules.
///
/// Input series must be in chronological order (non-decreasing timestamps; equal timestamps are allowed);
/// an out-of-order item is reported as `/readings/<index>/takenAt` (or `/assessments/<index>/assessedAt`).
/// Every reading is also validated with its single-reading rule, with pointers prefixed by its index.
///
/// 1. **Sustained stage 2 blood pressure** — at least ``sustainedStage2RunLength`` (3) *consecutive* readings
///    whose ACC/AHA 2017 category (``BloodPressure``) is stage 2 hypertension or hypertensive crisis. One flag per
///    maximal run (a run of 5 gives one flag, not three). Severity `.attention`.
/// 2. **Rising fasting glucose** — evaluated on the **last three** fasting readings only: the values (compared in
///    mg/dL, factor 18.016) are strictly increasing, **and** the ADA fasting category (``Glucose``) of the last is
///    higher than that of the first, **and** the last is prediabetes or diabetes range (so recovery from
///    hypoglycaemia does not flag). E.g. 95 → 105 → 110 flags (normal → prediabetes); 101 → 110 → 120 does not
///    (no category crossed). Severity `.attention`.
/// 3. **NPI group changed** — every pair of consecutive assessments whose Galea 1992 prognostic group differs.
///    Severity `.attention` when the group worsened, `.normal` when it improved.
public enum Trends {
    public static let sustainedStage2RunLength = 3

    public static func sustainedStage2BloodPressure(
        _ readings: [TimedBloodPressureReading]
    ) throws(DomainValidationError) -> [CareTrackingFlag] {
        var issues = IssueCollector()
        for (index, reading) in readings.enumerated() {
            issues.append(
                contentsOf: BloodPressure.validationIssues(
                    systolic: reading.systolic, diastolic: reading.diastolic, pointer: "/readings/\(index)"))
        }
        issues.append(contentsOf: orderIssues(readings.map(\.takenAt), pointer: "/readings", field: "takenAt"))
        try issues.throwIfAny()

        var flags: [CareTrackingFlag] = []
        var runStart: Int?
        func closeRun(endingBefore end: Int) {
            guard let start = runStart, end - start >= sustainedStage2RunLength else { return }
            let run = readings[start..<end]
            let highest = run.map { BloodPressure.category(systolic: $0.systolic, diastolic: $0.diastolic) }.max()
            flags.append(
                CareTrackingFlag(
                    kind: .sustainedStage2BloodPressure,
                    firstObservedAt: readings[start].takenAt, lastObservedAt: readings[end - 1].takenAt,
                    detail: .bloodPressureRun(readingCount: run.count, highestCategory: highest ?? .stage2Hypertension),
                    severity: .attention, tip: .trendSustainedStage2BloodPressure,
                    ruleSetVersion: RuleSetVersion.current))
        }
        for (index, reading) in readings.enumerated() {
            let category = BloodPressure.category(systolic: reading.systolic, diastolic: reading.diastolic)
            if category >= .stage2Hypertension {
                if runStart == nil { runStart = index }
            } else {
                closeRun(endingBefore: index)
                runStart = nil
            }
        }
        closeRun(endingBefore: readings.count)
        return flags
    }

    public static func risingFastingGlucose(
        _ readings: [TimedFastingGlucoseReading]
    ) throws(DomainValidationError) -> CareTrackingFlag? {
        var issues = IssueCollector()
        for (index, reading) in readings.enumerated() {
            issues.append(
                contentsOf: Glucose.validationIssues(
                    value: reading.value, unit: reading.unit, field: "/readings/\(index)/value"))
        }
        issues.append(contentsOf: orderIssues(readings.map(\.takenAt), pointer: "/readings", field: "takenAt"))
        try issues.throwIfAny()

        guard readings.count >= 3 else { return nil }
        let last3 = Array(readings.suffix(3))
        let mg = last3.map { $0.unit == .mgPerDL ? $0.value : Glucose.mgPerDL(fromMmolPerL: $0.value) }
        guard mg[0] < mg[1], mg[1] < mg[2] else { return nil }
        let first = Glucose.category(value: last3[0].value, unit: last3[0].unit, context: .fasting)
        let last = Glucose.category(value: last3[2].value, unit: last3[2].unit, context: .fasting)
        guard last > first, last >= .prediabetes else { return nil }
        return CareTrackingFlag(
            kind: .risingFastingGlucose, firstObservedAt: last3[0].takenAt, lastObservedAt: last3[2].takenAt,
            detail: .glucoseRise(from: first, to: last, valuesMgPerDL: mg), severity: .attention,
            tip: .trendRisingFastingGlucose, ruleSetVersion: RuleSetVersion.current)
    }

    public static func npiGroupChanges(_ assessments: [TimedNPIGroup]) throws(DomainValidationError) -> [CareTrackingFlag] {
        try IssueCollector.throwing(
            orderIssues(assessments.map(\.assessedAt), pointer: "/assessments", field: "assessedAt"))
        var flags: [CareTrackingFlag] = []
        for (previous, current) in zip(assessments, assessments.dropFirst()) where previous.group != current.group {
            let worsened = current.group > previous.group
            flags.append(
                CareTrackingFlag(
                    kind: .npiPrognosticGroupChanged, firstObservedAt: previous.assessedAt,
                    lastObservedAt: current.assessedAt, detail: .npiGroupChange(from: previous.group, to: current.group),
                    severity: worsened ? .attention : .normal,
                    tip: worsened ? .trendNPIGroupWorsened : .trendNPIGroupImproved,
                    ruleSetVersion: RuleSetVersion.current))
        }
        return flags
    }

    static func orderIssues(_ dates: [Date], pointer: String, field: String) -> [FieldIssue] {
        var issues = IssueCollector()
        for index in dates.indices.dropFirst() where dates[index] < dates[index - 1] {
            issues.add(
                "\(pointer)/\(index)/\(field)", "is earlier than the previous item; the series must be chronological",
                allowed: "on or after item \(index - 1)")
        }
        return issues.issues
    }
}
