/// Every event Caretide publishes. Each case has a JSON Schema file `Schemas/events/<rawValue>.v<schemaVersion>.schema.json`
/// describing its payload, and a Swift payload type; the contract tests keep the two in step.
public enum EventType: String, CaseIterable, Sendable, Codable {
    case bloodPressureRecorded = "blood-pressure.recorded"
    case bloodPressureAssessed = "blood-pressure.assessed"
    case alertRaised = "alert.raised"

    /// The current schema version of the payload. Bump it with a new schema file when a change is not backwards compatible.
    public var schemaVersion: Int {
        switch self {
        case .bloodPressureRecorded, .bloodPressureAssessed, .alertRaised: 1
        }
    }

    public var topic: Topic {
        switch self {
        case .bloodPressureRecorded: .measurements
        case .bloodPressureAssessed: .scores
        case .alertRaised: .alerts
        }
    }

    public var payloadType: any EventPayload.Type {
        switch self {
        case .bloodPressureRecorded: BloodPressureRecorded.self
        case .bloodPressureAssessed: BloodPressureAssessed.self
        case .alertRaised: AlertRaised.self
        }
    }

    /// Path of the payload schema inside `Schemas/`.
    public var schemaPath: String { "events/\(rawValue).v\(schemaVersion).schema.json" }
}

/// A Swift type that is the payload of exactly one event type.
public protocol EventPayload: Codable, Sendable, Equatable {
    static var eventType: EventType { get }
}
