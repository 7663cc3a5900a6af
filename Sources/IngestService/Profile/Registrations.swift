import CaretideDomain
import CaretideSchemas
import Foundation

/// What an institution's message says of who its patient is, as a profile registration. Pure: parsed messages in.
///
/// - HL7 v2.5.1 `PID` (chapter 3): PID-5 patient name (XPN: family name ^ given name ^ further given names), PID-7
///   date of birth (DTM, its first eight digits), PID-8 administrative sex (table 0001).
/// - FHIR R4 `Patient`: the `official` name (else the first that is not `old`), `gender`, `birthDate` when it is a
///   whole date (a year or a month alone says too little for an age and is left out).
/// A value that cannot be read is left out rather than refused: the results the message carries are what it is for.
enum Registrations {
    static func hl7v2(_ pid: HL7v2.Segment) -> PatientProfile.Registration {
        let family = pid.value(5, component: 1)
        let given = [pid.value(5, component: 2)] + pid.value(5, component: 3).split(separator: " ").map(String.init)
        let birth = pid.value(7)
        let birthDate =
            birth.count >= 8 ? LocalDate(String(birth.prefix(4)) + "-" + birth.dropFirst(4).prefix(2) + "-" + birth.dropFirst(6).prefix(2)) : nil
        return PatientProfile.Registration(
            name: PersonName(family: family, given: given), sex: ProfileSex(hl7v2: pid.value(8)), birthDate: birthDate)
    }

    static func fhir(_ patient: JSONValue) -> PatientProfile.Registration {
        let names = patient["name"]?.elements ?? []
        let name = names.first { $0["use"]?.stringValue == "official" } ?? names.first { $0["use"]?.stringValue != "old" }
        return PatientProfile.Registration(
            name: name.flatMap { PersonName(family: $0["family"]?.stringValue, given: ($0["given"]?.elements ?? []).compactMap(\.stringValue)) },
            sex: patient["gender"]?.stringValue.flatMap(ProfileSex.init(rawValue:)),
            birthDate: patient["birthDate"]?.stringValue.flatMap(LocalDate.init))
    }

    /// The registrations of a FHIR Bundle's Patient resources, by the patient id they stand for
    /// (`FHIRResults.patientID(of:)`, the rule reports' subjects are read by), for the patients its reports are about.
    static func fhir(bundle: JSONValue, reportedPatients: Set<String>) -> [String: PatientProfile.Registration] {
        var found: [String: PatientProfile.Registration] = [:]
        for entry in bundle["entry"]?.elements ?? [] {
            guard let patient = entry["resource"], patient["resourceType"]?.stringValue == "Patient" else { continue }
            let id = FHIRResults.patientID(of: patient)
            let registration = fhir(patient)
            if reportedPatients.contains(id) && !registration.isEmpty { found[id] = registration }
        }
        return found
    }
}
