import Foundation

/// Who entered a measurement.
public enum MeasurementSource: String, Codable, Sendable, CaseIterable {
    case patient, institution, device
}

/// A blood-pressure reading was recorded (ingest-service → `caretide.measurements`).
public struct BloodPressureRecorded: EventPayload {
    public static let eventType = EventType.bloodPressureRecorded

    /// Chosen by the client; a re-sent reading (offline sync) carries the same id and is stored once.
    public var measurementID: UUID
    /// mmHg.
    public var systolic: Int
    /// mmHg.
    public var diastolic: Int
    /// When the reading was taken on the patient's side, which may be long before it reached Caretide.
    public var takenAt: Date
    public var source: MeasurementSource

    public init(measurementID: UUID, systolic: Int, diastolic: Int, takenAt: Date, source: MeasurementSource) {
        self.measurementID = measurementID
        self.systolic = systolic
        self.diastolic = diastolic
        self.takenAt = takenAt
        self.source = source
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId", systolic, diastolic, takenAt, source
    }
}
