import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import HTTPTypes

/// A patient's profile: who they are (name, sex, date of birth) and how they like to be addressed (language, time
/// zone). It is protected health information: kept by ingest-service alone, never on a topic, in a log or a metric.
/// Other services get the two fields a rule needs, sex and date of birth, in `patient-demographics.changed`.
///
/// Sex follows FHIR R4 `AdministrativeGender` (female, male, other, unknown), the value HL7 v2 PID-8 and FHIR
/// `Patient.gender` carry; the doctor's e-mail address is kept by notification-service, which sends the mail
/// (`PUT /v1/patients/{patientId}/doctor-contact`).
struct PatientProfile: Codable, Sendable, Equatable {
    var name: PersonName?
    var sex: ProfileSex?
    var birthDate: LocalDate?
    /// BCP 47 (en, de-CH): the language messages and tips are written in.
    var language: String?
    /// IANA (Europe/London): the zone days, meals and reminders are counted in.
    var timeZone: String?

    init(name: PersonName? = nil, sex: ProfileSex? = nil, birthDate: LocalDate? = nil, language: String? = nil, timeZone: String? = nil) {
        self.name = name
        self.sex = sex
        self.birthDate = birthDate
        self.language = language
        self.timeZone = timeZone
    }

    // The date of birth as FHIR and the request write it, YYYY-MM-DD.
    enum CodingKeys: String, CodingKey { case name, sex, birthDate, language, timeZone }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(PersonName.self, forKey: .name)
        sex = try container.decodeIfPresent(ProfileSex.self, forKey: .sex)
        birthDate = try container.decodeIfPresent(String.self, forKey: .birthDate).flatMap(LocalDate.init)
        language = try container.decodeIfPresent(String.self, forKey: .language)
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(sex, forKey: .sex)
        try container.encodeIfPresent(birthDate?.description, forKey: .birthDate)
        try container.encodeIfPresent(language, forKey: .language)
        try container.encodeIfPresent(timeZone, forKey: .timeZone)
    }

    /// The fields an institution's message gives (HL7 v2 PID-5/7/8, FHIR `Patient.name/gender/birthDate`); those it
    /// leaves out keep their value.
    struct Registration: Sendable, Equatable {
        var name: PersonName?
        var sex: ProfileSex?
        var birthDate: LocalDate?

        var isEmpty: Bool { name == nil && sex == nil && birthDate == nil }
    }

    /// The profile with what an institution's registration says in place of its own values.
    func updated(by registration: Registration) -> PatientProfile {
        var profile = self
        if let name = registration.name { profile.name = name }
        if let sex = registration.sex { profile.sex = sex }
        if let birthDate = registration.birthDate { profile.birthDate = birthDate }
        return profile
    }

    /// The fields other services may know, which change together in `patient-demographics.changed`.
    var demographics: Demographics { Demographics(sex: sex, birthDate: birthDate) }

    struct Demographics: Equatable {
        let sex: ProfileSex?
        let birthDate: LocalDate?
    }

    /// The profile as a patient sends it (`PUT …/profile`); `from` reads its date and zone.
    struct Body: SchemaBody {
        static let schema: RequestSchema = .patientProfile

        /// FHIR R4 HumanName's family and given names.
        struct Name: Decodable {
            let family: String?
            let given: [String]?
        }

        let name: Name?
        let sex: ProfileSex?
        let birthDate: String?
        let language: String?
        let timeZone: String?
    }

    /// A date of birth as a request writes it (YYYY-MM-DD, the schema's form): a real date that is not in the future,
    /// else the violation naming `/birthDate`. Every request that takes one (a profile, an institution's registration)
    /// checks it here.
    static func birthDate(_ text: String, today: LocalDate) -> Result<LocalDate, SchemaViolation> {
        guard let date = LocalDate(text), date <= today else {
            return .failure(
                SchemaViolation(pointer: JSONPointer(tokens: ["birthDate"]), message: "must be a real date (YYYY-MM-DD) from 1900 up to today"))
        }
        return .success(date)
    }

    /// A request body, with the checks its schema cannot make: a real date of birth that is not in the future, a time
    /// zone the IANA database knows. Throws every failing field.
    static func from(_ body: Body, today: LocalDate) throws(HTTPProblem) -> PatientProfile {
        var violations: [SchemaViolation] = []
        var profile = PatientProfile()
        if let name = body.name {
            profile.name = PersonName(family: name.family, given: name.given ?? [])
        }
        profile.sex = body.sex
        if let text = body.birthDate {
            switch Self.birthDate(text, today: today) {
            case .success(let date): profile.birthDate = date
            case .failure(let violation): violations.append(violation)
            }
        }
        profile.language = body.language
        if let zone = body.timeZone {
            if TimeZone(identifier: zone) != nil {
                profile.timeZone = zone
            } else {
                violations.append(
                    SchemaViolation(pointer: JSONPointer(tokens: ["timeZone"]), message: "must be an IANA time zone, e.g. Europe/London"))
            }
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .unprocessableContent, error: "the profile is invalid", violations: violations) }
        return profile
    }
}

/// FHIR R4 `HumanName`, as far as a report shows it: the family name and the given names in order.
struct PersonName: Codable, Sendable, Equatable {
    var family: String?
    var given: [String]

    init?(family: String?, given: [String]) {
        let family = family.map(Self.cleaned).flatMap { $0.isEmpty ? nil : $0 }
        let given = given.map(Self.cleaned).filter { !$0.isEmpty }
        guard family != nil || !given.isEmpty else { return nil }
        self.family = family
        self.given = given
    }

    /// "Given Family", as a report heads its page.
    var text: String { (given + [family].compactMap { $0 }).joined(separator: " ") }

    /// Control characters never reach a page or a PDF; runs of white space become one space.
    static func cleaned(_ text: String) -> String {
        String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// FHIR R4 `AdministrativeGender`.
enum ProfileSex: String, Codable, Sendable, CaseIterable {
    case female, male, other, unknown

    /// HL7 v2 table 0001 (PID-8): F, M, O, U, A (ambiguous, as other) and N (not applicable, as unknown).
    init?(hl7v2 code: String) {
        switch code.uppercased() {
        case "F": self = .female
        case "M": self = .male
        case "O", "A": self = .other
        case "U", "N": self = .unknown
        default: return nil
        }
    }

    /// The value the melanoma rule takes, when the profile knows one.
    var administrativeSex: AdministrativeSex? {
        switch self {
        case .female: .female
        case .male: .male
        case .other: .other
        case .unknown: nil
        }
    }
}
