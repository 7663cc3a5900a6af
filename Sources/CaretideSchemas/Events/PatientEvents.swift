public import Foundation

/// A patient's sex or date of birth changed in their profile (`caretide.patients`, keyed by patient id): the two
/// fields rules need (a reference intake by sex and age, a child's sodium limit). The rest of the profile (the name,
/// the language, the doctor's address) stays with ingest-service and never travels. An absent field is unknown.
public struct PatientDemographicsChanged: EventPayload {
    public static let eventType = EventType.patientDemographicsChanged
    /// FHIR R4 AdministrativeGender: female, male, other or unknown.
    public var sex: String?
    /// YYYY-MM-DD.
    public var birthDate: String?
    /// The profile revision it comes from: a consumer keeps the highest it has seen.
    public var profileRevision: Int
    public var changedAt: Date

    public init(sex: String?, birthDate: String?, profileRevision: Int, changedAt: Date) {
        self.sex = sex
        self.birthDate = birthDate
        self.profileRevision = profileRevision
        self.changedAt = changedAt
    }
}

/// Who asked for a patient's erasure: the patient, or an operator on their behalf.
public enum ErasureRequester: String, Codable, Sendable, CaseIterable {
    case patient, `operator`
}

/// A patient's data is to be erased everywhere (`caretide.patients`, keyed by patient id): every service deletes or
/// anonymises what it holds about the patient, retires the id, and answers with `patient.erasure-confirmed`. Ids
/// only: who asked, as a role.
public struct PatientErasureRequested: EventPayload {
    public static let eventType = EventType.patientErasureRequested
    public var erasureID: UUID
    public var requestedBy: ErasureRequester
    public var requestedAt: Date

    public init(erasureID: UUID, requestedBy: ErasureRequester, requestedAt: Date) {
        self.erasureID = erasureID
        self.requestedBy = requestedBy
        self.requestedAt = requestedAt
    }

    enum CodingKeys: String, CodingKey {
        case erasureID = "erasureId"
        case requestedBy, requestedAt
    }
}

/// A service erased its part of a patient's data (`caretide.erasure-confirmations`, keyed by patient id); ingest-service
/// shows the request's progress per service from these.
public struct PatientErasureConfirmed: EventPayload {
    public static let eventType = EventType.patientErasureConfirmed
    public var erasureID: UUID
    /// The service that erased its part, e.g. `scoring-service`.
    public var service: String
    public var erasedAt: Date

    public init(erasureID: UUID, service: String, erasedAt: Date) {
        self.erasureID = erasureID
        self.service = service
        self.erasedAt = erasedAt
    }

    enum CodingKeys: String, CodingKey {
        case erasureID = "erasureId"
        case service, erasedAt
    }
}
