import CaretideSchemas

/// What scoring-service does with each event of the topics it consumes. The switch names every topic, and every event
/// of a consumed one, so a new event there does not compile until this says what scoring does with it, rather than
/// reaching the dead-letter topic.
enum ScoringInput {
    /// Recorded inputs the clinical rules assess (set-based in batches).
    case assess
    case measurementDeleted(MeasurementDeleted)
    case examResultEnteredInError(ExamResultEnteredInError)
    case melanomaRiskProfileWithdrawn(MelanomaRiskProfileWithdrawn)
    case npiInputsDeleted(NPIInputsDeleted)
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
        switch try TopicEvent(event) {
        case .measurements(.measurementDeleted(let deleted)): self = .measurementDeleted(deleted)
        case .measurements(.bloodPressureRecorded), .measurements(.pulseRecorded), .measurements(.bodyMeasurementRecorded),
            .measurements(.glucoseRecorded), .measurements(.hba1cRecorded), .measurements(.lipidPanelRecorded), .npi(.npiInputsRecorded),
            .riskProfiles(.melanomaRiskProfileRecorded), .examResults(.examResultRecorded):
            self = .assess
        case .riskProfiles(.melanomaRiskProfileWithdrawn(let withdrawal)): self = .melanomaRiskProfileWithdrawn(withdrawal)
        case .npi(.npiInputsDeleted(let deletion)): self = .npiInputsDeleted(deletion)
        case .examResults(.examResultEnteredInError(let retraction)): self = .examResultEnteredInError(retraction)
        // A report is assessed when it is recorded, released or not, so its clinicians see the flags at once; its
        // release only says what the patient's own report may show.
        case .examResults(.examResultReleased(let release)): self = .examResultReleased(release)
        case .environment(.areaRegistered(let area)): self = .areaRegistered(area)
        case .environment(.uvIndexRecorded(let reading)): self = .uvIndexRecorded(reading)
        case .environment(.airQualityRecorded(let reading)): self = .airQualityRecorded(reading)
        case .environment(.environmentSubscriptionChanged(let change)): self = .environmentSubscriptionChanged(change)
        case .meals(.mealRecorded(let meal)): self = .mealRecorded(meal)
        case .meals(.mealDeleted(let deletion)): self = .mealDeleted(deletion)
        case .photos(.lesionPhotoRecorded(let photo)): self = .lesionPhotoRecorded(photo)
        case .photos(.lesionPhotoDeleted(let deletion)): self = .lesionPhotoDeleted(deletion)
        case .photoClassifications(let answer): self = .lesionPhotoClassified(answer)
        case .patients(.patientDemographicsChanged(let change)): self = .patientDemographicsChanged(change)
        // Erasure requests are applied by the runtime before the handler; care-team events by its projection.
        case .patients(.patientErasureRequested), .erasureConfirmations, .nutrition, .scores, .alerts, .diagnosisRequests, .diagnosisResults,
            .careTeam, .audit:
            self = .notConsumed(event.eventType)
        }
    }
}
