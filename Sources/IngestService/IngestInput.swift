import CaretideSchemas

/// What ingest-service does with each event of the topics it consumes (`caretide.patients`,
/// `caretide.erasure-confirmations`). The switch names every topic, and every event of a consumed one, so a new event
/// there does not compile until this says what ingest does with it.
enum IngestInput {
    /// A service's confirmation that it erased its part of a patient's data, counted into the request's progress.
    case patientErasureConfirmed(PatientErasureConfirmed)
    /// An event of a consumed topic that needs nothing here: what ingest announces on `caretide.patients` itself
    /// (its erasure requests there are applied by the runtime, `PatientData`, before the handler sees them).
    case nothingToDo
    /// A type ingest-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch try TopicEvent(event) {
        case .erasureConfirmations(let confirmation): self = .patientErasureConfirmed(confirmation)
        case .patients(.patientDemographicsChanged), .patients(.patientErasureRequested): self = .nothingToDo
        case .measurements, .npi, .riskProfiles, .examResults, .meals, .photos, .photoClassifications, .nutrition, .scores, .alerts,
            .diagnosisRequests, .diagnosisResults, .careTeam, .audit, .environment:
            self = .notConsumed(event.eventType)
        }
    }
}
