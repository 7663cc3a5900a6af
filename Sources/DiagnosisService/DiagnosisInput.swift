import CaretideSchemas

/// What diagnosis-service does with each event type there is. The switch names every `EventType` case, so a new
/// event type does not compile until this says what diagnosis does with it.
enum DiagnosisInput {
    case diagnosisRequested(DiagnosisRequested)
    case ontologyUpdateRequested(OntologyUpdateRequested)
    /// A type diagnosis-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch event.eventType {
        case .diagnosisRequested: self = .diagnosisRequested(try event.payload())
        case .ontologyUpdateRequested: self = .ontologyUpdateRequested(try event.payload())
        case .bloodPressureRecorded, .pulseRecorded, .bodyMeasurementRecorded, .glucoseRecorded, .hba1cRecorded, .lipidPanelRecorded,
            .measurementDeleted, .npiInputsRecorded, .melanomaRiskProfileRecorded, .melanomaRiskProfileWithdrawn, .examResultRecorded,
            .examResultEnteredInError,
            .assessmentRecorded, .assessmentWithdrawn, .examResultFlagged, .careTrackingFlagged, .alertRaised, .alertWithdrawn,
            .diagnosisRanked, .diagnosisRefused, .ontologyReleaseImported, .careTeamGranted, .careTeamRevoked, .accessRecorded,
            .areaRegistered, .uvIndexRecorded, .airQualityRecorded, .environmentSubscriptionChanged, .examResultReleased, .mealRecorded,
            .mealDeleted, .nutritionAssessed, .lesionPhotoRecorded, .lesionPhotoDeleted, .lesionPhotoClassified, .patientDemographicsChanged,
            .patientErasureRequested, .patientErasureConfirmed:
            self = .notConsumed(event.eventType)
        }
    }
}
