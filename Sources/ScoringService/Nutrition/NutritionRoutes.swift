import CaretideDomain
import CaretideIdentity
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// The diet analysis, read by the patient and the consultants with a grant:
/// - `GET /v1/patients/{patientId}/nutrition/days/{date}`: one day: its totals against the reference values, the
///   tips in the reader's language, and the day's records by meal (breakfast, lunch, dinner, snack).
/// - `GET /v1/patients/{patientId}/nutrition/days?from=&to=`: the daily series for a chart, oldest day first; days
///   without a meal record are left out.
/// A day is the calendar date a meal was eaten on in the time zone it was eaten in. The energy and protein references
/// need the patient's sex and age: `?sex=` and `?age=` give them; without them the answer says they are unknown.
struct NutritionRoutes: Sendable {
    let context: ServiceContext
    let tips: TipCatalog

    /// The longest series one request reads.
    static let maximumDays = 366

    struct Check: Encodable, Sendable {
        let nutrient: Nutrient
        let unit: String
        let status: DayAnalysis.Status
        let value: Double
        let reference: Double?
        let shareOfEnergy: Double?
        let source: String
        let unknownBecause: String?
        let estimate: String?
    }

    struct Tip: Encodable, Sendable {
        let key: String
        let text: String
    }

    struct Entry: Encodable, Sendable {
        let mealId: UUID
        let eatenAt: Date
        let timeZone: String
        let foodId: String
        let foodName: String
        let foodRelease: String
        let grams: Double
        let portion: EatenPortion?
        let nutrients: Nutrients
    }

    struct Meal: Encodable, Sendable {
        let meal: MealKind
        let entries: [Entry]
    }

    struct Day: Encodable, Sendable {
        let date: String
        let mealCount: Int
        /// Energy in kcal, sodium in mg, the rest in g.
        let totals: Nutrients
        let saltG: Double
        /// Nutrients some food of the day lacks in the food table: their totals are lower bounds.
        let incomplete: [Nutrient]
        let checks: [Check]
        let severity: Severity
        let tips: [Tip]
        let ruleSetVersion: String
        /// The day's records by meal, in the order of the day (the day's read only).
        let meals: [Meal]?
    }

    struct Series: Encodable, Sendable {
        let from: String
        let to: String
        let days: [Day]
    }

    func register(on routes: APIRoutes) {
        let profile = [
            QueryParameter("sex", "female or male: for the energy and protein references; default the sex of the patient's profile"),
            QueryParameter(
                "age",
                "age in years (0 to 120): for the energy and protein references, and a child's sodium limit; default the age on each day from the date of birth of the patient's profile"
            ),
        ]
        routes.get(
            "v1/patients/:patientId/nutrition/days/:date", access: .patientData(.read),
            summary: "One day's nutrition: totals against the reference values, tips, and the day's records by meal", query: profile
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            guard let date = requestContext.parameters.get("date").flatMap(LocalDate.init) else {
                throw HTTPProblem(
                    status: .badRequest, error: "the path is invalid",
                    violations: [SchemaViolation(pointer: JSONPointer(tokens: ["date"]), message: "must be a date (YYYY-MM-DD)")])
            }
            let person = try await reference(request, patientID: patientID)
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            let entries = try await NutritionStore(context).entries(patientID: patientID, from: date, through: date)
            var response = try jsonResponse(
                Self.day(date.description, entries: entries, sex: person.sex, age: person.age(on: date), texts: texts, withMeals: true))
            response.headers[.contentLanguage] = texts.language
            return response
        }
        routes.get(
            "v1/patients/:patientId/nutrition/days", access: .patientData(.read),
            summary: "The daily nutrition series for a chart, oldest day first (days without a meal record left out)",
            query: [
                QueryParameter("from", "the first day (YYYY-MM-DD); default 29 days before to"),
                QueryParameter("to", "the last day included (YYYY-MM-DD); default today (UTC); at most 366 days after from"),
            ] + profile
        ) { request, requestContext in
            let patientID = try PatientID.fromPath(requestContext)
            let (first, last) = try Self.days(request, today: LocalDate(Date(), in: TimeZone(identifier: "UTC")!))
            let person = try await reference(request, patientID: patientID)
            let texts = tips.texts(acceptLanguage: request.headers[.acceptLanguage])
            let entries = try await NutritionStore(context).entries(patientID: patientID, from: first, through: last)
            let byDay = Dictionary(grouping: entries, by: \.day)
            let days = byDay.keys.sorted().map { day in
                Self.day(
                    day, entries: byDay[day] ?? [], sex: person.sex, age: LocalDate(day).flatMap(person.age(on:)), texts: texts, withMeals: false)
            }
            var response = try jsonResponse(Series(from: first.description, to: last.description, days: days))
            response.headers[.contentLanguage] = texts.language
            return response
        }
    }

    /// A meal record as stored, with its day.
    struct StoredEntry: Sendable {
        let day: String
        let meal: MealKind
        let entry: Entry
    }

    static func day(_ date: String, entries: [StoredEntry], sex: Sex?, age: Int?, texts: TipTexts, withMeals: Bool) -> Day {
        var totals = NutrientTotals()
        for stored in entries { totals.add(stored.entry.nutrients) }
        let analysis = DayAnalysis(totals: totals, sex: sex, age: age)
        let meals = MealKind.allCases.compactMap { kind -> Meal? in
            let ofKind = entries.filter { $0.meal == kind }.map(\.entry)
            return ofKind.isEmpty ? nil : Meal(meal: kind, entries: ofKind)
        }
        return Day(
            date: date, mealCount: totals.entryCount, totals: totals.sums, saltG: totals.saltG,
            incomplete: Nutrient.allCases.filter(totals.incomplete.contains),
            checks: analysis.checks.map {
                Check(
                    nutrient: $0.nutrient, unit: $0.nutrient.unit, status: $0.status, value: $0.value, reference: $0.reference,
                    shareOfEnergy: $0.shareOfEnergy, source: $0.source, unknownBecause: $0.unknownBecause, estimate: $0.estimate)
            },
            severity: analysis.severity, tips: analysis.tips.map { Tip(key: $0.rawValue, text: texts.text($0.rawValue) ?? $0.rawValue) },
            ruleSetVersion: RuleSetVersion.current, meals: withMeals ? meals : nil)
    }

    /// Whom a day is compared with: the sex and age the request states (`?sex=`, `?age=`), else those of the patient's
    /// profile (`DemographicsStore`).
    func reference(_ request: Request, patientID: String) async throws -> PatientDemographics {
        let stated = try Self.profile(request)
        var person = try await DemographicsStore(context).demographics(patientID: patientID)
        person.sex = stated.sex ?? person.sex
        person.statedAge = stated.age
        return person
    }

    /// `?sex=` and `?age=`, each optional, or a 400 naming each one that is not one.
    static func profile(_ request: Request) throws -> (sex: Sex?, age: Int?) {
        let parameters = request.uri.queryParameters
        return try profile(sex: parameters.get("sex"), age: parameters.get("age"))
    }

    /// `profile(_:)` on the parameters' text, apart from the request so the rule can be read and tested alone.
    static func profile(sex sexText: String?, age ageText: String?) throws -> (sex: Sex?, age: Int?) {
        var violations: [SchemaViolation] = []
        var sex: Sex?
        var age: Int?
        if let text = sexText {
            sex = Sex(rawValue: text)
            if sex == nil { violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["sex"]), message: "must be female or male")) }
        }
        if let text = ageText {
            age = Int(text).flatMap { (0...120).contains($0) ? $0 : nil }
            if age == nil {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["age"]), message: "must be a whole number from 0 to 120"))
            }
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return (sex, age)
    }

    /// `?from=` and `?to=` as days, `to` included; or a 400 naming each one that is not a date, and `to` when it is
    /// before `from` or more than `maximumDays` after it.
    static func days(_ request: Request, today: LocalDate) throws -> (LocalDate, LocalDate) {
        let parameters = request.uri.queryParameters
        return try days(from: parameters.get("from"), to: parameters.get("to"), today: today)
    }

    /// `days(_:today:)` on the parameters' text, apart from the request so the bounds can be read and tested alone.
    static func days(from fromText: String?, to toText: String?, today: LocalDate) throws -> (LocalDate, LocalDate) {
        var violations: [SchemaViolation] = []
        func read(_ text: String?, _ name: String) -> LocalDate? {
            guard let text else { return nil }
            guard let day = LocalDate(text) else {
                violations.append(SchemaViolation(pointer: JSONPointer(tokens: [name]), message: "must be a date (YYYY-MM-DD)"))
                return nil
            }
            return day
        }
        let to = read(toText, "to")
        let from = read(fromText, "from")
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        // Without an end: today, or the longest series after a start (not beyond today unless the start is).
        let last = to ?? from.map { min($0.addingDays(maximumDays - 1), max(today, $0)) } ?? today
        let first = from ?? last.addingDays(-29)
        if last < first {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["to"]), message: "must not be before from"))
        } else if last > first.addingDays(maximumDays - 1) {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: ["to"]), message: "must be at most \(maximumDays) days after from"))
        }
        guard violations.isEmpty else { throw HTTPProblem(status: .badRequest, error: "the query is invalid", violations: violations) }
        return (first, last)
    }
}
