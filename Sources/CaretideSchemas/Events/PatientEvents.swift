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
