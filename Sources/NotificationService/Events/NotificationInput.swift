import CaretideSchemas

/// What notification-service does with each event type there is. The switch names every `EventType` case, so a new
/// event type does not compile until this says what notification does with it.
enum NotificationInput {
    case assessmentRecorded(AssessmentRecorded)
    case examResultFlagged(ExamResultFlagged)
    case careTrackingFlagged(CareTrackingFlagged)
    case assessmentWithdrawn(AssessmentWithdrawn)
    /// A type notification-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch event.eventType {
        case .assessmentRecorded: self = .assessmentRecorded(try event.payload())
        case .examResultFlagged: self = .examResultFlagged(try event.payload())
        case .careTrackingFlagged: self = .careTrackingFlagged(try event.payload())
        case .assessmentWithdrawn: self = .assessmentWithdrawn(try event.payload())
        case .bloodPressureRecorded, .pulseRecorded, .bodyMeasurementRecorded, .glucoseRecorded, .hba1cRecorded, .lipidPanelRecorded,
            .measurementDeleted, .npiInputsRecorded, .melanomaRiskProfileRecorded, .examResultRecorded, .examResultEnteredInError,
            .alertRaised, .alertWithdrawn, .diagnosisRequested, .ontologyUpdateRequested, .diagnosisRanked, .diagnosisRefused,
            .ontologyReleaseImported,
            // Care-team events are applied by the runtime's projection before the handler.
            .careTeamGranted, .careTeamRevoked, .accessRecorded,
            // Environmental readings are announced for the UV and air-quality alerts still to be built (notifications issue).
            .areaRegistered, .uvIndexRecorded, .airQualityRecorded,
            // Releases are announced for the "results ready" notifications still to be built (notifications issue).
            .examResultReleased:
            self = .notConsumed(event.eventType)
        }
    }
}
