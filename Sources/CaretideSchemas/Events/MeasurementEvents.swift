public import CaretideDomain
public import Foundation

/// Who entered a measurement.
public enum MeasurementSource: String, Codable, Sendable, CaseIterable {
    case patient, institution, device
}

/// The kinds of measurement a patient or institution records (the `{kind}` of the ingest API).
public enum MeasurementKind: String, Codable, Sendable, CaseIterable {
    case bloodPressure = "blood-pressure"
    case pulse
    case bodyMeasurement = "body-measurement"
    case glucose
    case hba1c
    case lipidPanel = "lipid-panel"

    public var recordedEvent: EventType {
        switch self {
        case .bloodPressure: .bloodPressureRecorded
        case .pulse: .pulseRecorded
        case .bodyMeasurement: .bodyMeasurementRecorded
        case .glucose: .glucoseRecorded
        case .hba1c: .hba1cRecorded
        case .lipidPanel: .lipidPanelRecorded
        }
    }
}

/// What every recorded measurement carries besides its values.
public protocol MeasurementPayload: EventPayload {
    static var kind: MeasurementKind { get }
    /// Chosen by the client; a re-sent measurement (offline sync) carries the same id and is stored once.
    var measurementID: UUID { get }
    /// 1 when first recorded; each correction of the same measurement increases it and supersedes the previous one.
    var revision: Int { get }
    /// When the measurement was taken on the patient's side, which may be long before it reached Caretide.
    var takenAt: Date { get }
    var source: MeasurementSource { get }
}

/// A blood-pressure reading in mmHg (`caretide.measurements`).
public struct BloodPressureRecorded: MeasurementPayload {
    public static let eventType = EventType.bloodPressureRecorded
    public static let kind = MeasurementKind.bloodPressure
    public var measurementID: UUID
    public var revision: Int
    public var takenAt: Date
    public var source: MeasurementSource
    public var systolic: Int
    public var diastolic: Int

    public init(measurementID: UUID, revision: Int = 1, systolic: Int, diastolic: Int, takenAt: Date, source: MeasurementSource) {
        self.measurementID = measurementID
        self.revision = revision
        self.takenAt = takenAt
        self.source = source
        self.systolic = systolic
        self.diastolic = diastolic
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case revision, takenAt, source, systolic, diastolic
    }
}

/// A resting pulse in beats per minute (`caretide.measurements`).
public struct PulseRecorded: MeasurementPayload {
    public static let eventType = EventType.pulseRecorded
    public static let kind = MeasurementKind.pulse
    public var measurementID: UUID
    public var revision: Int
    public var takenAt: Date
    public var source: MeasurementSource
    public var beatsPerMinute: Int

    public init(measurementID: UUID, revision: Int = 1, beatsPerMinute: Int, takenAt: Date, source: MeasurementSource) {
        self.measurementID = measurementID
        self.revision = revision
        self.takenAt = takenAt
        self.source = source
        self.beatsPerMinute = beatsPerMinute
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case revision, takenAt, source, beatsPerMinute
    }
}

/// Weight and height, from which the BMI is computed (`caretide.measurements`).
public struct BodyMeasurementRecorded: MeasurementPayload {
    public static let eventType = EventType.bodyMeasurementRecorded
    public static let kind = MeasurementKind.bodyMeasurement
    public var measurementID: UUID
    public var revision: Int
    public var takenAt: Date
    public var source: MeasurementSource
    public var weightKg: Double
    public var heightCm: Double

    public init(measurementID: UUID, revision: Int = 1, weightKg: Double, heightCm: Double, takenAt: Date, source: MeasurementSource) {
        self.measurementID = measurementID
        self.revision = revision
        self.takenAt = takenAt
        self.source = source
        self.weightKg = weightKg
        self.heightCm = heightCm
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case revision, takenAt, source, weightKg, heightCm
    }
}

/// A blood glucose value in mg/dL or mmol/L, fasting, random or 2 hours into an OGTT (`caretide.measurements`).
public struct GlucoseRecorded: MeasurementPayload {
    public static let eventType = EventType.glucoseRecorded
    public static let kind = MeasurementKind.glucose
    public var measurementID: UUID
    public var revision: Int
    public var takenAt: Date
    public var source: MeasurementSource
    public var value: Double
    public var unit: GlucoseUnit
    public var context: GlucoseMeasurementContext

    public init(
        measurementID: UUID, revision: Int = 1, value: Double, unit: GlucoseUnit, context: GlucoseMeasurementContext, takenAt: Date,
        source: MeasurementSource
    ) {
        self.measurementID = measurementID
        self.revision = revision
        self.takenAt = takenAt
        self.source = source
        self.value = value
        self.unit = unit
        self.context = context
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case revision, takenAt, source, value, unit, context
    }
}

/// An HbA1c result in percent (NGSP) (`caretide.measurements`).
public struct HbA1cRecorded: MeasurementPayload {
    public static let eventType = EventType.hba1cRecorded
    public static let kind = MeasurementKind.hba1c
    public var measurementID: UUID
    public var revision: Int
    public var takenAt: Date
    public var source: MeasurementSource
    public var percent: Double

    public init(measurementID: UUID, revision: Int = 1, percent: Double, takenAt: Date, source: MeasurementSource) {
        self.measurementID = measurementID
        self.revision = revision
        self.takenAt = takenAt
        self.source = source
        self.percent = percent
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case revision, takenAt, source, percent
    }
}

/// A (partial) lipid panel in one unit (`caretide.measurements`); `sex` is needed for the HDL limit.
public struct LipidPanelRecorded: MeasurementPayload {
    public static let eventType = EventType.lipidPanelRecorded
    public static let kind = MeasurementKind.lipidPanel
    public var measurementID: UUID
    public var revision: Int
    public var takenAt: Date
    public var source: MeasurementSource
    public var unit: LipidUnit
    public var sex: Sex?
    public var totalCholesterol: Double?
    public var ldlCholesterol: Double?
    public var hdlCholesterol: Double?
    public var triglycerides: Double?

    public init(
        measurementID: UUID, revision: Int = 1, unit: LipidUnit, sex: Sex?, totalCholesterol: Double?, ldlCholesterol: Double?,
        hdlCholesterol: Double?, triglycerides: Double?, takenAt: Date, source: MeasurementSource
    ) {
        self.measurementID = measurementID
        self.revision = revision
        self.takenAt = takenAt
        self.source = source
        self.unit = unit
        self.sex = sex
        self.totalCholesterol = totalCholesterol
        self.ldlCholesterol = ldlCholesterol
        self.hdlCholesterol = hdlCholesterol
        self.triglycerides = triglycerides
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case revision, takenAt, source, unit, sex, totalCholesterol, ldlCholesterol, hdlCholesterol, triglycerides
    }
}

/// A measurement was deleted by the patient or institution (`caretide.measurements`); its assessments are withdrawn.
public struct MeasurementDeleted: EventPayload {
    public static let eventType = EventType.measurementDeleted
    public var measurementID: UUID
    public var kind: MeasurementKind
    public var deletedAt: Date

    public init(measurementID: UUID, kind: MeasurementKind, deletedAt: Date) {
        self.measurementID = measurementID
        self.kind = kind
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case measurementID = "measurementId"
        case kind, deletedAt
    }
}
