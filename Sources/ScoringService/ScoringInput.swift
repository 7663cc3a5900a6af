import CaretideSchemas

/// What scoring-service does with each event type there is. The switch names every `EventType` case, so a new event
/// type does not compile until this says what scoring does with it, rather than reaching the dead-letter topic.
enum ScoringInput {
    /// Recorded inputs the clinical rules assess (set-based in batches).
    case assess
    case measurementDeleted(MeasurementDeleted)
    case examResultEnteredInError(ExamResultEnteredInError)
    case melanomaRiskProfileWithdrawn(MelanomaRiskProfileWithdrawn)
    /// A revision of a report released to its patient: the patient's report may show it.
    case examResultReleased(ExamResultReleased)
    /// What the report's UV and air-quality section reads: the areas, their readings as daily maxima, and which
    /// areas each patient follows (`ReportEnvironmentStore`).
    case areaRegistered(AreaRegistered)
    case uvIndexRecorded(UVIndexRecorded)
    case airQualityRecorded(AirQualityRecorded)
    case environmentSubscriptionChanged(EnvironmentSubscriptionChanged)
    /// What a patient ate: the day it counts toward is analysed again (`NutritionStore`).
    case mealRecorded(MealRecorded)
    case mealDeleted(MealDeleted)
    /// Which skin photos exist (`PhotoRegister`), and a classifier's answer about one, assessed once it is checked.
    case lesionPhotoRecorded(LesionPhotoRecorded)
    case lesionPhotoDeleted(LesionPhotoDeleted)
    case lesionPhotoClassified(LesionPhotoClassified)
    /// A patient's sex and date of birth, for the diet analysis's reference intakes (`DemographicsStore`).
    case patientDemographicsChanged(PatientDemographicsChanged)
    /// A type scoring-service does not consume; arriving here it goes to the dead-letter topic with the reason.
    case notConsumed(EventType)

    init(_ event: ValidatedEvent) throws {
        switch event.eventType {
        case .bloodPressureRecorded, .pulseRecorded, .bodyMeasurementRecorded, .glucoseRecorded, .hba1cRecorded, .lipidPanelRecorded,
            .npiInputsRecorded, .melanomaRiskProfileRecorded, .examResultRecorded:
            self = .assess
        case .measurementDeleted: self = .measurementDeleted(try event.payload())
        case .examResultEnteredInError: self = .examResultEnteredInError(try event.payload())
        case .melanomaRiskProfileWithdrawn: self = .melanomaRiskProfileWithdrawn(try event.payload())
        // A report is assessed when it is recorded, released or not, so its clinicians see the flags at once; its
        // release only says what the patient's own report may show.
        case .examResultReleased: self = .examResultReleased(try event.payload())
        case .areaRegistered: self = .areaRegistered(try event.payload())
        case .uvIndexRecorded: self = .uvIndexRecorded(try event.payload())
        case .airQualityRecorded: self = .airQualityRecorded(try event.payload())
        case .environmentSubscriptionChanged: self = .environmentSubscriptionChanged(try event.payload())
        case .mealRecorded: self = .mealRecorded(try event.payload())
        case .mealDeleted: self = .mealDeleted(try event.payload())
        case .lesionPhotoRecorded: self = .lesionPhotoRecorded(try event.payload())
        case .lesionPhotoDeleted: self = .lesionPhotoDeleted(try event.payload())
        case .lesionPhotoClassified: self = .lesionPhotoClassified(try event.payload())
        case .patientDemographicsChanged: self = .patientDemographicsChanged(try event.payload())
        case .assessmentRecorded, .assessmentWithdrawn, .examResultFlagged, .careTrackingFlagged, .nutritionAssessed, .alertRaised, .alertWithdrawn,
            .diagnosisRequested, .ontologyUpdateRequested, .diagnosisRanked, .diagnosisRefused, .ontologyReleaseImported,
            // Care-team events are applied by the runtime's projection before the handler, erasures by the runtime.
            .careTeamGranted, .careTeamRevoked, .accessRecorded, .patientErasureRequested, .patientErasureConfirmed:
            self = .notConsumed(event.eventType)
        }
    }
}
