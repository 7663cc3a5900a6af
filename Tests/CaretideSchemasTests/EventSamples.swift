import CaretideSchemas
import Foundation
import Testing

/// One sample value per event type, type-erased so tests can iterate them.
struct EventSample: Sendable, CustomTestStringConvertible {
    let eventType: EventType
    let payloadType: any EventPayload.Type
    let encode: @Sendable () throws -> [UInt8]
    let payloadEquals: @Sendable (any EventPayload) -> Bool

    init<P: EventPayload>(_ payload: P, patientID: String? = "patient-0001") {
        eventType = P.eventType
        payloadType = P.self
        encode = {
            try EventCodec().encode(EventEnvelope(producer: "test", patientID: patientID, traceID: "trace-1", payload: payload))
        }
        payloadEquals = { ($0 as? P) == payload }
    }

    var testDescription: String { eventType.rawValue }
}

enum EventSamples {
    static let takenAt = Date(timeIntervalSince1970: 1_795_000_000.25)

    static let all: [EventSample] = [
        EventSample(BloodPressureRecorded(measurementID: UUID(), systolic: 128, diastolic: 79, takenAt: takenAt, source: .device)),
        EventSample(BloodPressureAssessed(
            assessmentID: UUID(), sourceEventID: UUID(), measurementID: UUID(), takenAt: takenAt, category: "elevated",
            severity: "normal", tip: "bloodPressure.elevated", ruleSetVersion: "2026.11.1", systolic: 128, diastolic: 79)),
        EventSample(AlertRaised(
            alertID: UUID(), sourceEventID: UUID(), kind: "blood-pressure", severity: "urgent", category: "hypertensiveCrisis",
            messageKey: "alert.bloodPressure.hypertensiveCrisis", raisedAt: takenAt)),
    ]
}
