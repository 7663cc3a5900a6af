import CaretideDomain
import Testing

@testable import ScoringService

/// What scoring-service keeps of who a patient is, and the age the diet analysis compares a day with.
@Suite struct PatientDemographicsTests {
    static func day(_ text: String) -> LocalDate { LocalDate(text)! }

    @Test("a stored row gives female or male and a real date of birth; any other sex, a date that is no day, or no row gives none")
    func fromRow() {
        #expect(PatientDemographics(("female", "1980-02-29")) == PatientDemographics(sex: .female, birthDate: Self.day("1980-02-29")))
        #expect(PatientDemographics(("male", nil)) == PatientDemographics(sex: .male))
        #expect(PatientDemographics(("other", "1981-02-29")) == PatientDemographics())
        #expect(PatientDemographics(("Female", "1980-2-29")) == PatientDemographics())
        #expect(PatientDemographics(nil) == PatientDemographics())
    }

    @Test("the age on a day is the years completed by then: one less the day before the birthday")
    func completedYears() {
        let person = PatientDemographics(sex: .female, birthDate: Self.day("1990-06-15"))
        #expect(person.age(on: Self.day("2026-06-14")) == 35)
        #expect(person.age(on: Self.day("2026-06-15")) == 36)
        #expect(person.age(on: Self.day("1990-06-15")) == 0)
    }

    @Test("born on 29 February, a year is completed on 1 March when the year has no 29 February")
    func leapDay() {
        let person = PatientDemographics(birthDate: Self.day("2000-02-29"))
        #expect(person.age(on: Self.day("2025-02-28")) == 24)
        #expect(person.age(on: Self.day("2025-03-01")) == 25)
        #expect(person.age(on: Self.day("2024-02-29")) == 24)
    }

    @Test("an age the request states holds on every day in place of the date of birth's; with neither the age is unknown")
    func statedAge() {
        var person = PatientDemographics(birthDate: Self.day("1990-06-15"))
        person.statedAge = 70
        #expect(person.age(on: Self.day("2026-06-14")) == 70 && person.age(on: Self.day("1991-01-01")) == 70)
        #expect(PatientDemographics(sex: .male).age(on: Self.day("2026-06-14")) == nil)
        var stated = PatientDemographics()
        stated.statedAge = 0
        #expect(stated.age(on: Self.day("2026-06-14")) == 0)
    }
}
