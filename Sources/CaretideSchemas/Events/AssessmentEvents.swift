import Foundation

/// A blood-pressure reading was classified (scoring-service → `caretide.scores`).
public struct BloodPressureAssessed: EventPayload {
    public static let eventType = EventType.bloodPressureAssessed

    public var assessmentID: UUID
    /// The `blood-pressure.recorded` event this assessment answers.
    public var sourceEventID: UUID
    public var measurementID: UUID
    public var takenAt: Date
    /// ACC/AHA 2017 category: normal, elevated, stage1Hypertension, stage2Hypertension, hypertensiveCrisis.
    public var category: String
    /// normal, attention or urgent.
    public var severity: String
    /// Key of the plain-language tip; texts live in one translatable table.
    public var tip: String
    /// Version of the rule set that produced the assessment (provenance).
    public var ruleSetVersion: String
    public var systolic: Int
    public var diastolic: Int

    public init(
        assessmentID: UUID, sourceEventID: UUID, measurementID: UUID, takenAt: Date, category: String, severity: String,
        tip: String, ruleSetVersion: String, systolic: Int, diastolic: Int
    ) {
        self.assessmentID = assessmentID
        self.sourceEventID = sourceEventID
        self.measurementID = measurementID
        self.takenAt = takenAt
        self.category = category
        self.severity = severity
        self.tip = tip
        self.ruleSetVersion = ruleSetVersion
        self.systolic = systolic
        self.diastolic = diastolic
    }

    enum CodingKeys: String, CodingKey {
        case assessmentID = "assessmentId", sourceEventID = "sourceEventId", measurementID = "measurementId", takenAt, category,
            severity, tip, ruleSetVersion, systolic, diastolic
    }
}
