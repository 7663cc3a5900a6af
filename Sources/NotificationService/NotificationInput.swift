import CaretideSchemas

/// What notification-service does with each event type there is. The switch names every `EventType` case, so a new
/// event type does not compile until this says what notification does with it.
enum NotificationInput {
    case assessmentRecorded(AssessmentRecorded)
    case examResultFlagged(ExamResultFlagged)
    case careTrackingFlagged(CareTrackingFlagged)
    case assessmentWithdrawn(AssessmentWithdrawn)
    case examResultReleased(ExamResultReleased)
    case examResultEnteredInError(ExamResultEnteredInError)
    case areaRegistered(AreaRegistered)
    case uvIndexRecorded(UVIndexRecorded)
    case airQualityRecorded(AirQualityRecorded)
    /// An event of a consumed topic that needs nothing here (a report recorded but not yet released).
    case nothingToDo
    /// A type notification-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch event.eventType {
        case .assessmentRecorded: self = .assessmentRecorded(try event.payload())
        case .examResultFlagged: self = .examResultFlagged(try event.payload())
        case .careTrackingFlagged: self = .careTrackingFlagged(try event.payload())
        case .assessmentWithdrawn: self = .assessmentWithdrawn(try event.payload())
        case .examResultReleased: self = .examResultReleased(try event.payload())
        case .examResultEnteredInError: self = .examResultEnteredInError(try event.payload())
        case .areaRegistered: self = .areaRegistered(try event.payload())
        case .uvIndexRecorded: self = .uvIndexRecorded(try event.payload())
        case .airQualityRecorded: self = .airQualityRecorded(try event.payload())
        // The patient hears of a report when it is released, not when it is recorded; a subscription changing is
        // this service's own announcement (for scoring's reports), already applied here.
        case .examResultRecorded, .environmentSubscriptionChanged: self = .nothingToDo
        case .bloodPressureRecorded, .pulseRecorded, .bodyMeasurementRecorded, .glucoseRecorded, .hba1cRecorded, .lipidPanelRecorded,
            .measurementDeleted, .npiInputsRecorded, .melanomaRiskProfileRecorded, .melanomaRiskProfileWithdrawn, .mealRecorded, .mealDeleted,
            .lesionPhotoRecorded, .lesionPhotoDeleted, .lesionPhotoClassified, .patientDemographicsChanged,
            .patientErasureRequested, .patientErasureConfirmed,
            .nutritionAssessed,
            .alertRaised, .alertWithdrawn, .diagnosisRequested, .ontologyUpdateRequested, .diagnosisRanked, .diagnosisRefused,
            .ontologyReleaseImported,
            // Care-team events are applied by the runtime's projection before the handler.
            .careTeamGranted, .careTeamRevoked, .accessRecorded:
            self = .notConsumed(event.eventType)
        }
    }
}

extension NotificationInput {
    /// Whether applying it withdraws notifications (a superseded or withdrawn assessment, a report entered in error).
    var withdraws: Bool {
        switch self {
        case .assessmentRecorded(let assessment): assessment.supersedes != nil
        case .examResultFlagged(let exam): exam.supersedes != nil
        case .assessmentWithdrawn, .examResultEnteredInError: true
        case .careTrackingFlagged, .examResultReleased, .areaRegistered, .uvIndexRecorded, .airQualityRecorded, .nothingToDo, .notConsumed: false
        }
    }

    /// A UV index or air-quality reading: alerted by `EnvironmentAlerting`, which delivers its alerts itself.
    var isEnvironmentalReading: Bool {
        switch self {
        case .uvIndexRecorded, .airQualityRecorded: true
        case .assessmentRecorded, .examResultFlagged, .careTrackingFlagged, .assessmentWithdrawn, .examResultReleased, .examResultEnteredInError,
            .areaRegistered, .nothingToDo, .notConsumed:
            false
        }
    }
}
