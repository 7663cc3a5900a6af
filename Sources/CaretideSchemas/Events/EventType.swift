import Foundation

/// Every event Caretide publishes. Each case has a JSON Schema file `Schemas/events/<rawValue>.v<schemaVersion>.schema.json`
/// describing its payload, and a Swift payload type; the contract tests keep the two in step.
public enum EventType: String, CaseIterable, Sendable, Codable {
    // Recorded by ingest-service.
    case bloodPressureRecorded = "blood-pressure.recorded"
    case pulseRecorded = "pulse.recorded"
    case bodyMeasurementRecorded = "body-measurement.recorded"
    case glucoseRecorded = "glucose.recorded"
    case hba1cRecorded = "hba1c.recorded"
    case lipidPanelRecorded = "lipid-panel.recorded"
    case measurementDeleted = "measurement.deleted"
    case npiInputsRecorded = "npi-inputs.recorded"
    case npiInputsDeleted = "npi-inputs.deleted"
    case melanomaRiskProfileRecorded = "melanoma-risk-profile.recorded"
    case melanomaRiskProfileWithdrawn = "melanoma-risk-profile.withdrawn"
    case examResultRecorded = "exam-result.recorded"
    case examResultEnteredInError = "exam-result.entered-in-error"
    case examResultReleased = "exam-result.released"
    case mealRecorded = "meal.recorded"
    case mealDeleted = "meal.deleted"
    case lesionPhotoRecorded = "lesion-photo.recorded"
    case lesionPhotoDeleted = "lesion-photo.deleted"
    case patientDemographicsChanged = "patient-demographics.changed"
    case patientErasureRequested = "patient.erasure-requested"
    case patientErasureConfirmed = "patient.erasure-confirmed"
    // Answered by an outside classifier.
    case lesionPhotoClassified = "lesion-photo.classified"
    // Computed by scoring-service.
    case assessmentRecorded = "assessment.recorded"
    case assessmentWithdrawn = "assessment.withdrawn"
    case examResultFlagged = "exam-result.flagged"
    case careTrackingFlagged = "care-tracking.flagged"
    case nutritionAssessed = "nutrition.assessed"
    // Decided by notification-service.
    case alertRaised = "alert.raised"
    case alertWithdrawn = "alert.withdrawn"
    // Asked of and answered by diagnosis-service.
    case diagnosisRequested = "diagnosis.requested"
    case ontologyUpdateRequested = "ontology-update.requested"
    case diagnosisRanked = "diagnosis.ranked"
    case diagnosisRefused = "diagnosis.refused"
    case ontologyReleaseImported = "ontology-release.imported"
    // Consent (ingest-service) and audit (every service).
    case careTeamGranted = "care-team.granted"
    case careTeamRevoked = "care-team.revoked"
    case accessRecorded = "access.recorded"
    // Environmental feeds run by operators (ingest-service).
    case areaRegistered = "area.registered"
    case uvIndexRecorded = "uv-index.recorded"
    case airQualityRecorded = "air-quality.recorded"
    // A patient following an area's readings (notification-service).
    case environmentSubscriptionChanged = "environment-subscription.changed"

    /// The current schema version of the payload: a new version, with a new schema file, for every change to it
    /// (docs/operations.md, "Upgrading").
    public var schemaVersion: Int {
        switch self {
        // Version 2 names the entries each ranked disease was pooled with.
        case .diagnosisRanked: 2
        default: 1
        }
    }

    public var topic: Topic {
        switch self {
        case .bloodPressureRecorded, .pulseRecorded, .bodyMeasurementRecorded, .glucoseRecorded, .hba1cRecorded, .lipidPanelRecorded,
            .measurementDeleted:
            .measurements
        case .npiInputsRecorded, .npiInputsDeleted: .npi
        case .melanomaRiskProfileRecorded, .melanomaRiskProfileWithdrawn: .riskProfiles
        case .examResultRecorded, .examResultEnteredInError, .examResultReleased: .examResults
        case .mealRecorded, .mealDeleted: .meals
        case .lesionPhotoRecorded, .lesionPhotoDeleted: .photos
        case .patientDemographicsChanged, .patientErasureRequested: .patients
        case .patientErasureConfirmed: .erasureConfirmations
        case .lesionPhotoClassified: .photoClassifications
        case .nutritionAssessed: .nutrition
        case .assessmentRecorded, .assessmentWithdrawn, .examResultFlagged, .careTrackingFlagged: .scores
        case .alertRaised, .alertWithdrawn: .alerts
        case .diagnosisRequested, .ontologyUpdateRequested: .diagnosisRequests
        case .diagnosisRanked, .diagnosisRefused, .ontologyReleaseImported: .diagnosisResults
        case .careTeamGranted, .careTeamRevoked: .careTeam
        case .accessRecorded: .audit
        case .areaRegistered, .uvIndexRecorded, .airQualityRecorded, .environmentSubscriptionChanged: .environment
        }
    }

    public var payloadType: any EventPayload.Type {
        switch self {
        case .bloodPressureRecorded: BloodPressureRecorded.self
        case .pulseRecorded: PulseRecorded.self
        case .bodyMeasurementRecorded: BodyMeasurementRecorded.self
        case .glucoseRecorded: GlucoseRecorded.self
        case .hba1cRecorded: HbA1cRecorded.self
        case .lipidPanelRecorded: LipidPanelRecorded.self
        case .measurementDeleted: MeasurementDeleted.self
        case .npiInputsRecorded: NPIInputsRecorded.self
        case .npiInputsDeleted: NPIInputsDeleted.self
        case .melanomaRiskProfileRecorded: MelanomaRiskProfileRecorded.self
        case .melanomaRiskProfileWithdrawn: MelanomaRiskProfileWithdrawn.self
        case .examResultRecorded: ExamResultRecorded.self
        case .examResultEnteredInError: ExamResultEnteredInError.self
        case .examResultReleased: ExamResultReleased.self
        case .mealRecorded: MealRecorded.self
        case .mealDeleted: MealDeleted.self
        case .lesionPhotoRecorded: LesionPhotoRecorded.self
        case .lesionPhotoDeleted: LesionPhotoDeleted.self
        case .patientDemographicsChanged: PatientDemographicsChanged.self
        case .patientErasureRequested: PatientErasureRequested.self
        case .patientErasureConfirmed: PatientErasureConfirmed.self
        case .lesionPhotoClassified: LesionPhotoClassified.self
        case .nutritionAssessed: NutritionAssessed.self
        case .assessmentRecorded: AssessmentRecorded.self
        case .assessmentWithdrawn: AssessmentWithdrawn.self
        case .examResultFlagged: ExamResultFlagged.self
        case .careTrackingFlagged: CareTrackingFlagged.self
        case .alertRaised: AlertRaised.self
        case .alertWithdrawn: AlertWithdrawn.self
        case .diagnosisRequested: DiagnosisRequested.self
        case .ontologyUpdateRequested: OntologyUpdateRequested.self
        case .diagnosisRanked: DiagnosisRanked.self
        case .diagnosisRefused: DiagnosisRefused.self
        case .ontologyReleaseImported: OntologyReleaseImported.self
        case .careTeamGranted: CareTeamGranted.self
        case .careTeamRevoked: CareTeamRevoked.self
        case .accessRecorded: AccessRecorded.self
        case .areaRegistered: AreaRegistered.self
        case .uvIndexRecorded: UVIndexRecorded.self
        case .airQualityRecorded: AirQualityRecorded.self
        case .environmentSubscriptionChanged: EnvironmentSubscriptionChanged.self
        }
    }

    /// Decodes a payload of this type from its JSON (Caretide's conventions; no schema validation).
    public func decodePayload(from document: JSONValue) throws -> any EventPayload {
        func decode<P: EventPayload>(_: P.Type) throws -> any EventPayload { try JSONValueDecoder.decode(P.self, from: document) }
        return try decode(payloadType)
    }

    /// Path of the payload schema inside `Schemas/`.
    public var schemaPath: String { "events/\(rawValue).v\(schemaVersion).schema.json" }
}

/// A Swift type that is the payload of exactly one event type.
public protocol EventPayload: Codable, Sendable, Equatable {
    static var eventType: EventType { get }
    /// The Kafka key when it is not the patient's id: the area of an environmental event, the recipient of a
    /// notification. Nil (the default) keys by the patient.
    var partitionKey: String? { get }
}

extension EventPayload {
    public var partitionKey: String? { nil }
}
