import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import ClinicalAssessment
import Foundation

/// A measurement's request body: its event without what the service decides (the revision, and the source when the
/// client gives none: the patient). What every kind shares is read here; the kind's own values by `Values`, from the
/// same object.
struct MeasurementRequest<Values: MeasurementValues>: SchemaBody {
    static var schema: RequestSchema { Values.schema }
    let measurementId: UUID
    let takenAt: Date
    let source: MeasurementSource?
    let values: Values

    private enum CodingKeys: String, CodingKey { case measurementId, takenAt, source }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        measurementId = try container.decode(UUID.self, forKey: .measurementId)
        takenAt = try container.decode(Date.self, forKey: .takenAt)
        source = try container.decodeIfPresent(MeasurementSource.self, forKey: .source)
        values = try Values(from: decoder)
    }

    /// The event of revision 1.
    var reading: Values.Reading { values.reading(measurementID: measurementId, takenAt: takenAt, source: source ?? .patient) }
}

/// One kind's values, and the event they make.
protocol MeasurementValues: Decodable, Sendable {
    associatedtype Reading: MeasurementPayload & RecordEvent & AssessedPayload
    static var schema: RequestSchema { get }
    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> Reading
}

struct BloodPressureValues: MeasurementValues {
    static let schema: RequestSchema = .bloodPressure
    let systolic: Int
    let diastolic: Int

    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> BloodPressureRecorded {
        BloodPressureRecorded(measurementID: measurementID, systolic: systolic, diastolic: diastolic, takenAt: takenAt, source: source)
    }
}

struct PulseValues: MeasurementValues {
    static let schema: RequestSchema = .pulse
    let beatsPerMinute: Int

    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> PulseRecorded {
        PulseRecorded(measurementID: measurementID, beatsPerMinute: beatsPerMinute, takenAt: takenAt, source: source)
    }
}

struct BodyMeasurementValues: MeasurementValues {
    static let schema: RequestSchema = .bodyMeasurement
    let weightKg: Double
    let heightCm: Double

    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> BodyMeasurementRecorded {
        BodyMeasurementRecorded(measurementID: measurementID, weightKg: weightKg, heightCm: heightCm, takenAt: takenAt, source: source)
    }
}

struct GlucoseValues: MeasurementValues {
    static let schema: RequestSchema = .glucose
    let value: Double
    let unit: GlucoseUnit
    let context: GlucoseMeasurementContext

    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> GlucoseRecorded {
        GlucoseRecorded(measurementID: measurementID, value: value, unit: unit, context: context, takenAt: takenAt, source: source)
    }
}

struct HbA1cValues: MeasurementValues {
    static let schema: RequestSchema = .hba1c
    let percent: Double

    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> HbA1cRecorded {
        HbA1cRecorded(measurementID: measurementID, percent: percent, takenAt: takenAt, source: source)
    }
}

struct LipidPanelValues: MeasurementValues {
    static let schema: RequestSchema = .lipidPanel
    let unit: LipidUnit
    let sex: Sex?
    let totalCholesterol: Double?
    let ldlCholesterol: Double?
    let hdlCholesterol: Double?
    let triglycerides: Double?

    func reading(measurementID: UUID, takenAt: Date, source: MeasurementSource) -> LipidPanelRecorded {
        LipidPanelRecorded(
            measurementID: measurementID, unit: unit, sex: sex, totalCholesterol: totalCholesterol, ldlCholesterol: ldlCholesterol,
            hdlCholesterol: hdlCholesterol, triglycerides: triglycerides, takenAt: takenAt, source: source)
    }
}
