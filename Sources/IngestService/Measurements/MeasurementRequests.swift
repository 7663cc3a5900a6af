import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// A measurement's request body: its event without what the service decides (the revision, and the source when the
/// client gives none: the patient).
protocol MeasurementRequest: SchemaBody {
    associatedtype Reading: MeasurementPayload & RecordEvent & AssessedPayload
    var measurementId: UUID { get }
    var takenAt: Date { get }
    var source: MeasurementSource? { get }
    /// The event of revision 1, from `source`.
    func reading(from source: MeasurementSource) -> Reading
}

extension MeasurementRequest {
    var reading: Reading { reading(from: source ?? .patient) }
}

struct BloodPressureRequest: MeasurementRequest {
    static let schema: RequestSchema = .bloodPressure
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let systolic: Int
    let diastolic: Int

    func reading(from source: MeasurementSource) -> BloodPressureRecorded {
        BloodPressureRecorded(measurementID: measurementId, systolic: systolic, diastolic: diastolic, takenAt: takenAt, source: source)
    }
}

struct PulseRequest: MeasurementRequest {
    static let schema: RequestSchema = .pulse
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let beatsPerMinute: Int

    func reading(from source: MeasurementSource) -> PulseRecorded {
        PulseRecorded(measurementID: measurementId, beatsPerMinute: beatsPerMinute, takenAt: takenAt, source: source)
    }
}

struct BodyMeasurementRequest: MeasurementRequest {
    static let schema: RequestSchema = .bodyMeasurement
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let weightKg: Double
    let heightCm: Double

    func reading(from source: MeasurementSource) -> BodyMeasurementRecorded {
        BodyMeasurementRecorded(measurementID: measurementId, weightKg: weightKg, heightCm: heightCm, takenAt: takenAt, source: source)
    }
}

struct GlucoseRequest: MeasurementRequest {
    static let schema: RequestSchema = .glucose
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let value: Double
    let unit: GlucoseUnit
    let context: GlucoseMeasurementContext

    func reading(from source: MeasurementSource) -> GlucoseRecorded {
        GlucoseRecorded(measurementID: measurementId, value: value, unit: unit, context: context, takenAt: takenAt, source: source)
    }
}

struct HbA1cRequest: MeasurementRequest {
    static let schema: RequestSchema = .hba1c
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let percent: Double

    func reading(from source: MeasurementSource) -> HbA1cRecorded {
        HbA1cRecorded(measurementID: measurementId, percent: percent, takenAt: takenAt, source: source)
    }
}

struct LipidPanelRequest: MeasurementRequest {
    static let schema: RequestSchema = .lipidPanel
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let unit: LipidUnit
    let sex: Sex?
    let totalCholesterol: Double?
    let ldlCholesterol: Double?
    let hdlCholesterol: Double?
    let triglycerides: Double?

    func reading(from source: MeasurementSource) -> LipidPanelRecorded {
        LipidPanelRecorded(
            measurementID: measurementId, unit: unit, sex: sex, totalCholesterol: totalCholesterol, ldlCholesterol: ldlCholesterol,
            hdlCholesterol: hdlCholesterol, triglycerides: triglycerides, takenAt: takenAt, source: source)
    }
}
