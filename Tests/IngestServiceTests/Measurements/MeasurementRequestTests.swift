import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// A measurement's request decoded once into its kind's event: what every kind shares, each kind's own values, the
/// service's defaults, and a correction that changes nothing but the revision.
@Suite struct MeasurementRequestTests {
    static let id = "0b9a1c8e-52e4-4c1b-b1b6-2d3f0d9e0a11"

    static func payload(_ kind: MeasurementKind, _ members: [String: JSONValue]) throws -> RecordPayload {
        let body = JSONValue.object(
            ["measurementId": .string(id.uppercased()), "takenAt": "2026-11-20T08:30:00Z"].merging(members) { _, new in new })
        #expect(SchemaCatalog.bundled.validateRequest(MeasurementRoutes.definition(kind).requestSchema, body).isEmpty)
        return try MeasurementRoutes.definition(kind).decode(body, nil)
    }

    @Test("a blood pressure names its record (lowercased), takes the patient as its source, and is taken when it says")
    func bloodPressure() throws {
        let payload = try Self.payload(.bloodPressure, ["systolic": .number(142), "diastolic": .number(91)])
        let reading = try #require(payload.event as? BloodPressureRecorded)
        #expect(reading.measurementID == UUID(uuidString: Self.id) && reading.revision == 1 && reading.source == .patient)
        #expect(reading.systolic == 142 && reading.diastolic == 91)
        #expect(payload.recordID == Self.id && payload.namedID == Self.id && payload.namedPatient == nil)
        #expect(payload.observedAt == Timestamp.parse("2026-11-20T08:30:00Z"))
    }

    @Test("each kind's own values reach its event, with the source the request gives")
    func everyKind() throws {
        let device: JSONValue = "device"
        let pulse = try #require(try Self.payload(.pulse, ["beatsPerMinute": .number(61), "source": device]).event as? PulseRecorded)
        #expect(pulse.beatsPerMinute == 61 && pulse.source == .device)
        let body = try #require(
            try Self.payload(.bodyMeasurement, ["weightKg": .number(70.5), "heightCm": .number(172)]).event as? BodyMeasurementRecorded)
        #expect(body.weightKg == 70.5 && body.heightCm == 172)
        let glucose = try #require(
            try Self.payload(.glucose, ["value": .number(5.4), "unit": "mmolPerL", "context": "fasting"]).event as? GlucoseRecorded)
        #expect(glucose.value == 5.4 && glucose.unit == .mmolPerL && glucose.context == .fasting)
        let hba1c = try #require(try Self.payload(.hba1c, ["percent": .number(6.1), "source": "institution"]).event as? HbA1cRecorded)
        #expect(hba1c.percent == 6.1 && hba1c.source == .institution)
        let lipids = try #require(
            try Self.payload(.lipidPanel, ["unit": "mgPerDL", "totalCholesterol": .number(210), "hdlCholesterol": .number(45)]).event
                as? LipidPanelRecorded)
        #expect(lipids.unit == .mgPerDL && lipids.totalCholesterol == 210 && lipids.hdlCholesterol == 45 && lipids.ldlCholesterol == nil)
        #expect(lipids.sex == nil && lipids.triglycerides == nil)
    }

    @Test("a correction is the same reading as the next revision")
    func correction() throws {
        let payload = try Self.payload(.pulse, ["beatsPerMinute": .number(61)])
        let third = payload.revised(3)
        #expect(
            try #require(third.event as? PulseRecorded)
                == PulseRecorded(
                    measurementID: UUID(uuidString: Self.id)!, revision: 3, beatsPerMinute: 61, takenAt: payload.observedAt, source: .patient))
        #expect(third.recordID == payload.recordID && third.observedAt == payload.observedAt)
        #expect(try #require(payload.event as? PulseRecorded).revision == 1)
    }

    @Test("a PUT's path names the record; the body's id is what the route compares with it")
    func pathID() throws {
        let other = "5d0c1f7e-1111-4c1b-b1b6-2d3f0d9e0a11"
        let body: JSONValue = ["measurementId": .string(Self.id), "takenAt": "2026-11-20T08:30:00Z", "beatsPerMinute": .number(61)]
        let payload = try MeasurementRoutes.definition(.pulse).decode(body, other)
        #expect(payload.recordID == other && payload.namedID == Self.id)
    }
}
