/// The HTTP request bodies Caretide accepts: one case per `Schemas/api/<rawValue>.schema.json`. A route names its
/// body by case, so a misspelt schema is a compile error rather than a 422 for every request at run time; the catalog
/// loads every case at start-up and `SchemaContractTests` checks that no file lacks its case.
public enum RequestSchema: String, CaseIterable, Sendable {
    // ingest-service: records
    case bloodPressure = "blood-pressure.request"
    case pulse = "pulse.request"
    case bodyMeasurement = "body-measurement.request"
    case glucose = "glucose.request"
    case hba1c = "hba1c.request"
    case lipidPanel = "lipid-panel.request"
    case npi = "npi.request"
    case melanomaRiskProfile = "melanoma-risk-profile.request"
    case examResult = "exam-result.request"
    case examResultsBatch = "exam-results-batch.request"
    case releaseRules = "release-rules.request"
    case syncChanges = "sync-changes.request"
    case meal = "meal.request"
    case patientProfile = "patient-profile.request"
    // ingest-service: care team and environment
    case careTeamGrant = "care-team-grant.request"
    // ingest-service: institutions' patients
    case institutionPatient = "institution-patient.request"
    case institutionLink = "institution-link.request"
    case area = "area.request"
    case uvIndex = "uv-index.request"
    case airQuality = "air-quality.request"
    // notification-service
    case advice = "advice.request"
    case careThread = "care-thread.request"
    case careMessage = "care-message.request"
    case appointment = "appointment.request"
    case slot = "slot.request"
    case broadcast = "broadcast.request"
    case article = "article.request"
    case environmentSubscription = "environment-subscription.request"
    case inboxPreferences = "inbox-preferences.request"
    case reminder = "reminder.request"
    case webhook = "webhook.request"
    case reportShare = "report-share.request"
    case doctorContact = "doctor-contact.request"
    case reportEmail = "report-email.request"
    case lesionFollowUpFinding = "lesion-follow-up-finding.request"
    // scoring-service
    case outsideShare = "outside-share.request"
    // diagnosis-service
    case ranking = "ranking.request"
    case savedQuery = "saved-query.request"

    /// The file, relative to the schema directory.
    public var path: String { "api/\(rawValue).schema.json" }
}
