import CaretideDomain
import CaretideRuntime
import CaretideSchemas
import Foundation
import Testing

@testable import IngestService

/// The profile's rules: what institutions' messages say of a patient (HL7 v2.5.1 PID, FHIR R4 Patient), the checks a
/// schema cannot make, and ages at their boundaries.
@Suite struct PatientProfileTests {
    static func pid(_ segment: String) throws -> HL7v2.Segment {
        let message = try HL7v2.parse("MSH|^~\\&|LIS|LAB|CARETIDE|ST-MARY|20261122061500||ORU^R01|1|P|2.5.1\r" + segment + "\r")
        return try #require(message.segments.first { $0.id == "PID" })
    }

    @Test("PID-5, PID-7 and PID-8: family^given^further given names, the date of a DTM, table 0001; unreadable values left out")
    func hl7v2() throws {
        let full = Registrations.hl7v2(try Self.pid("PID|1||p-1^^^ST-MARY^MR||O\\S\\Brien^Mary^Ann Jo||197002281230|F"))
        #expect(full.name == PersonName(family: "O^Brien", given: ["Mary", "Ann", "Jo"]))
        #expect(full.birthDate == LocalDate(year: 1970, month: 2, day: 28) && full.sex == .female)
        for (code, sex) in [("M", ProfileSex.male), ("O", .other), ("A", .other), ("U", .unknown), ("N", .unknown), ("f", .female)] {
            #expect(Registrations.hl7v2(try Self.pid("PID|1||p-1||Doe^J||19700101|\(code)")).sex == sex)
        }
        let unreadable = Registrations.hl7v2(try Self.pid("PID|1||p-1||||19700230|X"))
        #expect(unreadable.isEmpty, "no name, an impossible date, an unknown sex code: nothing to take")
    }

    @Test("FHIR Patient: the official name, else the first not old; gender; a whole birthDate only")
    func fhir() throws {
        let patient = try CaretideJSON.parse(
            Array(
                #"{"resourceType": "Patient", "name": [{"use": "old", "family": "Roe"}, {"family": "Doe", "given": ["Jane"]}, {"use": "official", "family": "Doe", "given": ["Janet"]}], "gender": "female", "birthDate": "1970-01"}"#
                    .utf8))
        let registration = Registrations.fhir(patient)
        #expect(registration.name == PersonName(family: "Doe", given: ["Janet"]) && registration.sex == .female && registration.birthDate == nil)
        let unofficial = try CaretideJSON.parse(Array(#"{"name": [{"use": "old", "family": "Roe"}, {"given": ["Jo"]}], "gender": "robot"}"#.utf8))
        #expect(Registrations.fhir(unofficial).name == PersonName(family: nil, given: ["Jo"]) && Registrations.fhir(unofficial).sex == nil)
        let bundle = try CaretideJSON.parse(
            Array(
                #"{"entry": [{"resource": {"resourceType": "Patient", "identifier": [{"value": "p-1"}], "gender": "male"}}, {"resource": {"resourceType": "Patient", "id": "p-2", "gender": "male"}}]}"#
                    .utf8))
        #expect(Array(Registrations.fhir(bundle: bundle, reportedPatients: ["p-1"]).keys) == ["p-1"], "only the patients its reports are about")
    }

    @Test("a registration replaces the fields it gives and keeps the others")
    func registrationKeepsOtherFields() {
        let own = PatientProfile(name: PersonName(family: "Okafor", given: ["Ada"]), sex: .female, language: "en", timeZone: "Europe/London")
        let updated = own.updated(by: .init(name: nil, sex: nil, birthDate: LocalDate(year: 1968, month: 4, day: 2)))
        #expect(updated.name == own.name && updated.language == "en" && updated.birthDate == LocalDate(year: 1968, month: 4, day: 2))
        #expect(updated.demographics != own.demographics && own.updated(by: .init()) == own)
    }

    @Test("the checks a schema cannot make: a real past date of birth, a known IANA zone; names without control characters")
    func bodyChecks() throws {
        let today = LocalDate(year: 2026, month: 11, day: 25)!
        func body(_ text: String) throws -> PatientProfile.Body {
            try JSONValueDecoder.decode(PatientProfile.Body.self, from: CaretideJSON.parse(Array(text.utf8)))
        }
        let profile = try PatientProfile.from(
            try body(#"{"name": {"family": "  Okafor\n", "given": ["Ada", " "]}, "birthDate": "2026-11-25", "timeZone": "Asia/Kolkata"}"#),
            today: today)
        #expect(profile.name == PersonName(family: "Okafor", given: ["Ada"]) && profile.birthDate == today && profile.timeZone == "Asia/Kolkata")
        #expect(profile.name?.text == "Ada Okafor")
        let wrong = try body(#"{"birthDate": "2026-11-26", "timeZone": "Mars/Olympus_Mons"}"#)
        do {
            _ = try PatientProfile.from(wrong, today: today)
            Issue.record("a date of birth tomorrow and an unknown zone were taken")
        } catch {
            #expect(error.violations.map(\.pointer) == ["/birthDate", "/timeZone"])
        }
        #expect(throws: HTTPProblem.self) { try PatientProfile.from(try body(#"{"birthDate": "2023-02-29"}"#), today: today) }
    }

    @Test("completed years at the birthday's edges, 29 February included")
    func ages() {
        let born = LocalDate(year: 2000, month: 2, day: 29)!
        #expect(born.completedYears(on: LocalDate(year: 2001, month: 2, day: 28)!) == 0)
        #expect(born.completedYears(on: LocalDate(year: 2001, month: 3, day: 1)!) == 1)
        #expect(born.completedYears(on: LocalDate(year: 2004, month: 2, day: 29)!) == 4)
        let spring = LocalDate(year: 1968, month: 4, day: 2)!
        #expect(spring.completedYears(on: LocalDate(year: 2026, month: 4, day: 1)!) == 57)
        #expect(spring.completedYears(on: LocalDate(year: 2026, month: 4, day: 2)!) == 58)
        // The day is counted where the patient lives: 23:30 UTC on 1 April is already 2 April in Tokyo.
        let instant = ISO8601DateFormatter().date(from: "2026-04-01T23:30:00Z")!
        #expect(PatientProfile(birthDate: spring, timeZone: "Asia/Tokyo").age(at: instant) == 58)
        #expect(PatientProfile(birthDate: spring).age(at: instant) == 57)
    }
}
