/// A consumed event typed by its topic, then within the topic by its type: a consumer's input enum switches over
/// the topics it reads and, within each, over that topic's events, naming the others in one line. A new event type
/// then fails the build of its own topic's consumers only, and a new topic that of every consumer's input.
/// (`Topic`'s inbound topics and the dead-letter topic carry no Caretide events and have no case.)
public enum TopicEvent: Sendable {
    case measurements(MeasurementEvent)
    case npi(NPIEvent)
    case riskProfiles(RiskProfileEvent)
    case examResults(ExamResultEvent)
    case meals(MealEvent)
    case photos(PhotoEvent)
    case patients(PatientEvent)
    case erasureConfirmations(PatientErasureConfirmed)
    case photoClassifications(LesionPhotoClassified)
    case nutrition(NutritionAssessed)
    case scores(ScoreEvent)
    case alerts(AlertEvent)
    case diagnosisRequests(DiagnosisRequestEvent)
    case diagnosisResults(DiagnosisResultEvent)
    case careTeam(CareTeamEvent)
    case audit(AccessRecorded)
    case environment(EnvironmentEvent)

    /// The topic it came on.
    public var topic: Topic {
        switch self {
        case .measurements: .measurements
        case .npi: .npi
        case .riskProfiles: .riskProfiles
        case .examResults: .examResults
        case .meals: .meals
        case .photos: .photos
        case .patients: .patients
        case .erasureConfirmations: .erasureConfirmations
        case .photoClassifications: .photoClassifications
        case .nutrition: .nutrition
        case .scores: .scores
        case .alerts: .alerts
        case .diagnosisRequests: .diagnosisRequests
        case .diagnosisResults: .diagnosisResults
        case .careTeam: .careTeam
        case .audit: .audit
        case .environment: .environment
        }
    }

    /// The event's typed payload under its topic. The codec decoded the payload as its type's, so this refuses only
    /// a payload that is not (`PayloadMismatch`).
    public init(_ event: ValidatedEvent) throws(PayloadMismatch) {
        switch event.eventType {
        case .bloodPressureRecorded: self = .measurements(.bloodPressureRecorded(try event.payload()))
        case .pulseRecorded: self = .measurements(.pulseRecorded(try event.payload()))
        case .bodyMeasurementRecorded: self = .measurements(.bodyMeasurementRecorded(try event.payload()))
        case .glucoseRecorded: self = .measurements(.glucoseRecorded(try event.payload()))
        case .hba1cRecorded: self = .measurements(.hba1cRecorded(try event.payload()))
        case .lipidPanelRecorded: self = .measurements(.lipidPanelRecorded(try event.payload()))
        case .measurementDeleted: self = .measurements(.measurementDeleted(try event.payload()))
        case .npiInputsRecorded: self = .npi(.npiInputsRecorded(try event.payload()))
        case .npiInputsDeleted: self = .npi(.npiInputsDeleted(try event.payload()))
        case .melanomaRiskProfileRecorded: self = .riskProfiles(.melanomaRiskProfileRecorded(try event.payload()))
        case .melanomaRiskProfileWithdrawn: self = .riskProfiles(.melanomaRiskProfileWithdrawn(try event.payload()))
        case .examResultRecorded: self = .examResults(.examResultRecorded(try event.payload()))
        case .examResultEnteredInError: self = .examResults(.examResultEnteredInError(try event.payload()))
        case .examResultReleased: self = .examResults(.examResultReleased(try event.payload()))
        case .mealRecorded: self = .meals(.mealRecorded(try event.payload()))
        case .mealDeleted: self = .meals(.mealDeleted(try event.payload()))
        case .lesionPhotoRecorded: self = .photos(.lesionPhotoRecorded(try event.payload()))
        case .lesionPhotoDeleted: self = .photos(.lesionPhotoDeleted(try event.payload()))
        case .patientDemographicsChanged: self = .patients(.patientDemographicsChanged(try event.payload()))
        case .patientErasureRequested: self = .patients(.patientErasureRequested(try event.payload()))
        case .patientErasureConfirmed: self = .erasureConfirmations(try event.payload())
        case .lesionPhotoClassified: self = .photoClassifications(try event.payload())
        case .nutritionAssessed: self = .nutrition(try event.payload())
        case .assessmentRecorded: self = .scores(.assessmentRecorded(try event.payload()))
        case .assessmentWithdrawn: self = .scores(.assessmentWithdrawn(try event.payload()))
        case .examResultFlagged: self = .scores(.examResultFlagged(try event.payload()))
        case .careTrackingFlagged: self = .scores(.careTrackingFlagged(try event.payload()))
        case .alertRaised: self = .alerts(.alertRaised(try event.payload()))
        case .alertWithdrawn: self = .alerts(.alertWithdrawn(try event.payload()))
        case .diagnosisRequested: self = .diagnosisRequests(.diagnosisRequested(try event.payload()))
        case .ontologyUpdateRequested: self = .diagnosisRequests(.ontologyUpdateRequested(try event.payload()))
        case .diagnosisRanked: self = .diagnosisResults(.diagnosisRanked(try event.payload()))
        case .diagnosisRefused: self = .diagnosisResults(.diagnosisRefused(try event.payload()))
        case .ontologyReleaseImported: self = .diagnosisResults(.ontologyReleaseImported(try event.payload()))
        case .careTeamGranted: self = .careTeam(.careTeamGranted(try event.payload()))
        case .careTeamRevoked: self = .careTeam(.careTeamRevoked(try event.payload()))
        case .accessRecorded: self = .audit(try event.payload())
        case .areaRegistered: self = .environment(.areaRegistered(try event.payload()))
        case .uvIndexRecorded: self = .environment(.uvIndexRecorded(try event.payload()))
        case .airQualityRecorded: self = .environment(.airQualityRecorded(try event.payload()))
        case .environmentSubscriptionChanged: self = .environment(.environmentSubscriptionChanged(try event.payload()))
        }
    }
}

/// An event of `Topic.measurements`.
public enum MeasurementEvent: Sendable {
    case bloodPressureRecorded(BloodPressureRecorded)
    case pulseRecorded(PulseRecorded)
    case bodyMeasurementRecorded(BodyMeasurementRecorded)
    case glucoseRecorded(GlucoseRecorded)
    case hba1cRecorded(HbA1cRecorded)
    case lipidPanelRecorded(LipidPanelRecorded)
    case measurementDeleted(MeasurementDeleted)
}

/// An event of `Topic.npi`.
public enum NPIEvent: Sendable {
    case npiInputsRecorded(NPIInputsRecorded)
    case npiInputsDeleted(NPIInputsDeleted)
}

/// An event of `Topic.riskProfiles`.
public enum RiskProfileEvent: Sendable {
    case melanomaRiskProfileRecorded(MelanomaRiskProfileRecorded)
    case melanomaRiskProfileWithdrawn(MelanomaRiskProfileWithdrawn)
}

/// An event of `Topic.examResults`.
public enum ExamResultEvent: Sendable {
    case examResultRecorded(ExamResultRecorded)
    case examResultEnteredInError(ExamResultEnteredInError)
    case examResultReleased(ExamResultReleased)
}

/// An event of `Topic.meals`.
public enum MealEvent: Sendable {
    case mealRecorded(MealRecorded)
    case mealDeleted(MealDeleted)
}

/// An event of `Topic.photos`.
public enum PhotoEvent: Sendable {
    case lesionPhotoRecorded(LesionPhotoRecorded)
    case lesionPhotoDeleted(LesionPhotoDeleted)
}

/// An event of `Topic.patients`.
public enum PatientEvent: Sendable {
    case patientDemographicsChanged(PatientDemographicsChanged)
    case patientErasureRequested(PatientErasureRequested)
}

/// An event of `Topic.scores`.
public enum ScoreEvent: Sendable {
    case assessmentRecorded(AssessmentRecorded)
    case assessmentWithdrawn(AssessmentWithdrawn)
    case examResultFlagged(ExamResultFlagged)
    case careTrackingFlagged(CareTrackingFlagged)
}

/// An event of `Topic.alerts`.
public enum AlertEvent: Sendable {
    case alertRaised(AlertRaised)
    case alertWithdrawn(AlertWithdrawn)
}

/// An event of `Topic.diagnosisRequests`.
public enum DiagnosisRequestEvent: Sendable {
    case diagnosisRequested(DiagnosisRequested)
    case ontologyUpdateRequested(OntologyUpdateRequested)
}

/// An event of `Topic.diagnosisResults`.
public enum DiagnosisResultEvent: Sendable {
    case diagnosisRanked(DiagnosisRanked)
    case diagnosisRefused(DiagnosisRefused)
    case ontologyReleaseImported(OntologyReleaseImported)
}

/// An event of `Topic.careTeam`.
public enum CareTeamEvent: Sendable {
    case careTeamGranted(CareTeamGranted)
    case careTeamRevoked(CareTeamRevoked)
}

/// An event of `Topic.environment`.
public enum EnvironmentEvent: Sendable {
    case areaRegistered(AreaRegistered)
    case uvIndexRecorded(UVIndexRecorded)
    case airQualityRecorded(AirQualityRecorded)
    case environmentSubscriptionChanged(EnvironmentSubscriptionChanged)
}
