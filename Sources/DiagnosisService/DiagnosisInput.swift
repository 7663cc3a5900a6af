import CaretideSchemas

/// What diagnosis-service does with each event of the topics it consumes (`caretide.diagnosis-requests`). The switch
/// names every topic, and every event of a consumed one, so a new event there does not compile until this says what
/// diagnosis does with it.
enum DiagnosisInput {
    case diagnosisRequested(DiagnosisRequested)
    case ontologyUpdateRequested(OntologyUpdateRequested)
    /// A type diagnosis-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch try TopicEvent(event) {
        case .diagnosisRequests(.diagnosisRequested(let request)): self = .diagnosisRequested(request)
        case .diagnosisRequests(.ontologyUpdateRequested(let update)): self = .ontologyUpdateRequested(update)
        case .measurements, .npi, .riskProfiles, .examResults, .meals, .photos, .patients, .erasureConfirmations, .photoClassifications,
            .nutrition, .scores, .alerts, .diagnosisResults, .careTeam, .audit, .environment:
            self = .notConsumed(event.eventType)
        }
    }
}
