/// The Kafka topics Caretide uses. Every topic is keyed by patient id (where the event has one) so that one patient's
/// events stay in order within a partition.
public enum Topic: String, CaseIterable, Sendable, Codable {
    /// Measurements recorded by patients and institutions (ingest-service → scoring-service).
    case measurements = "caretide.measurements"
    /// Nottingham Prognostic Index inputs (ingest-service → scoring-service).
    case npi = "caretide.npi"
    /// Melanoma risk-factor profiles (ingest-service → scoring-service).
    case riskProfiles = "caretide.risk-profiles"
    /// Exam reports uploaded by institutions, their corrections and entered-in-error marks (ingest → scoring).
    case examResults = "caretide.exam-results"
    /// What patients ate: meal records, their corrections and deletions (ingest-service → scoring-service).
    case meals = "caretide.meals"
    /// Skin photos stored and deleted, with a signed link to each new one's file (ingest-service → outside
    /// classifiers); never the pixels.
    case photos = "caretide.photos"
    /// What other services may know of a patient's profile: sex and date of birth, never the name (ingest-service →
    /// scoring-service); and a patient's erasure request (ingest-service → every service).
    case patients = "caretide.patients"
    /// Each service's confirmation that it erased its part of a patient's data (every service → ingest-service).
    case erasureConfirmations = "caretide.erasure-confirmations"
    /// A hospital's validated classifier's answers about skin photos, keyed by patient id (outside → scoring-service).
    case photoClassifications = "caretide.photo-classifications"
    /// Each day of meals analysed again after a change (scoring-service → downstream consumers).
    case nutrition = "caretide.nutrition"
    /// Assessments, withdrawals, flagged exam reports and care-tracking flags (scoring-service → notification-service).
    case scores = "caretide.scores"
    /// Alerts for downstream consumers (notification-service → outside).
    case alerts = "caretide.alerts"
    /// Diagnosis rankings and ontology updates asked of diagnosis-service (pipelines → diagnosis-service); keyed by
    /// patient id when the request names one, else by request id.
    case diagnosisRequests = "caretide.diagnosis-requests"
    /// Rankings, refusals and imported releases, correlated by request or update id (diagnosis-service → pipelines).
    case diagnosisResults = "caretide.diagnosis-results"
    /// Care-team grants and revocations, keyed by patient (ingest-service → every service serving patient data).
    case careTeam = "caretide.care-team"
    /// Who accessed which patient's data, and every refused request (every service → operators' SIEM).
    case audit = "caretide.audit"
    /// Areas, UV index and air-quality readings from operators' feeds, keyed by area code (ingest-service →
    /// notification-service).
    case environment = "caretide.environment"
    /// Inbound: hospital pipelines' exam reports as JSON, the body of `POST …/exam-results` (`{"reports": […]}`),
    /// keyed by institution id (pipelines → ingest-service). Not Caretide events: no envelope, no event headers.
    case inboundExamResults = "caretide.inbound.exam-results"
    /// Inbound: exam reports as HL7 FHIR R4 Bundles, keyed by institution id (pipelines → ingest-service).
    case inboundFHIR = "caretide.inbound.fhir"
    /// Inbound: lab results as HL7 v2 ORU^R01 messages (ER7 text), keyed by institution id (pipelines → ingest-service).
    case inboundHL7v2 = "caretide.inbound.hl7v2"
    /// Messages a consumer could not accept, with the reason in the `dead-letter-reason` header.
    case deadLetter = "caretide.dead-letter"

    public var name: String { rawValue }
}

/// Kafka header names carried by every Caretide message.
public enum EventHeader {
    public static let eventType = "event-type"
    public static let schemaVersion = "schema-version"
    public static let traceID = "trace-id"
    public static let eventID = "event-id"
    /// Dead-letter headers: why and where the message came from.
    public static let deadLetterReason = "dead-letter-reason"
    public static let deadLetterTopic = "dead-letter-source-topic"
    public static let deadLetterPartition = "dead-letter-source-partition"
    public static let deadLetterOffset = "dead-letter-source-offset"
    public static let deadLetterConsumer = "dead-letter-consumer"
}
