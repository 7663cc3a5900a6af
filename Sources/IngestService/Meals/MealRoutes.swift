import CaretideDomain
import CaretideIdentity
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Hummingbird

/// What a patient ate, recorded as any other record (`RecordRoutes`: idempotent by the client's id, corrections as
/// revisions, deletions as tombstones in the offline sync feed):
/// - `POST   /v1/patients/{patientId}/meals`: record (re-sending the same mealId is harmless)
/// - `PUT    /v1/patients/{patientId}/meals/{mealId}`: record or correct
/// - `DELETE /v1/patients/{patientId}/meals/{mealId}`: delete (the day is analysed again without it)
/// - `GET    /v1/patients/{patientId}/meals`: current meal records, oldest first
/// Each is resolved against the food table when it is written (`MealResolution`): the event carries the food's name,
/// the release and the nutrients of the amount eaten.
struct MealRoutes: Sendable {
    let records: RecordRoutes
    let definition: RecordDefinition

    init(records: RecordRoutes, catalogue: FoodCatalogue) {
        self.records = records
        definition = Self.definition(catalogue: catalogue)
    }

    static func definition(catalogue: FoodCatalogue) -> RecordDefinition {
        RecordDefinition(
            kind: .meal, request: MealRequest.self, named: .id(in: "mealId") { $0.mealId },
            event: { request, _ in try MealResolution.event(request, table: catalogue.current) },
            observedAt: \.eatenAt, observedAtField: "/eatenAt",
            deletion: { id, at in MealDeleted(mealID: UUID(uuidString: id)!, deletedAt: at) },
            // No clinical rule assesses a single meal: scoring analyses the day it belongs to.
            rule: { _, _ in nil })
    }

    func register(on routes: APIRoutes) {
        routes.post(
            "v1/patients/:patientId/meals", access: .patientData(.write),
            summary: "Record what the patient ate (a food of the food table, grams or a portion); re-sending the same mealId stores nothing new",
            body: [.meal]
        ) { request, context in
            try await records.create(definition, request: request, context: context, completing: inProfileTimeZone)
        }
        routes.put(
            "v1/patients/:patientId/meals/:mealId", access: .patientData(.write),
            summary: "Record or correct a meal record (a correction is the next revision)", body: [.meal]
        ) { request, context in
            try await records.put(
                definition, id: try Self.mealID(context), request: request, context: context, completing: inProfileTimeZone)
        }
        routes.delete(
            "v1/patients/:patientId/meals/:mealId", access: .patientData(.write),
            summary: "Delete a meal record; its day is analysed again without it"
        ) { _, context in
            let patientID = try PatientID.fromPath(context)
            return try jsonResponse(
                try await records.delete(definition, patientID: patientID, recordID: try Self.mealID(context), origin: context.origin))
        }
        routes.get(
            "v1/patients/:patientId/meals", access: .patientData(.read), summary: "The patient's current meal records, oldest first",
            query: Period.queryParameters.map { QueryParameter($0.name, $0.description + "; of when the meal was eaten") }, paged: true
        ) { request, context in
            let patientID = try PatientID.fromPath(context)
            return try jsonResponse(
                try await records.list(patientID: patientID, kinds: [.meal], period: try Period.from(request), page: .from(request)))
        }
    }

    /// A meal counts in the day of the time zone it was eaten in: the app's, when it sends one (as Apple Health and
    /// Health Connect records carry theirs, which follows a patient who travels), else the patient's profile's, else
    /// UTC. The zone taken is written into the record, so its day does not move if the profile changes later.
    var inProfileTimeZone: RecordRoutes.Completion {
        { [context = records.context] body, patientID in
            guard Self.lacksTimeZone(body), let zone = try await Self.profileTimeZone(patientID: patientID, context: context) else { return body }
            return Self.body(body, inTimeZone: zone)
        }
    }

    /// Whether a meal's body names no time zone (and so takes the profile's).
    static func lacksTimeZone(_ body: JSONValue) -> Bool { body["timeZone"] == nil }

    /// The body with `zone` as its time zone, unless it names one.
    static func body(_ body: JSONValue, inTimeZone zone: String) -> JSONValue {
        lacksTimeZone(body) ? body.merging(["timeZone": .string(zone)]) : body
    }

    /// The patient's time zone from their profile, if they set one.
    static func profileTimeZone(patientID: String, context: ServiceContext) async throws -> String? {
        try await ProfileStore(context).current(patientID: patientID)?.profile.timeZone
    }

    static func mealID(_ context: some RequestContext) throws -> String {
        try context.uuidParameter("mealId", label: "meal id").uuidString.lowercased()
    }
}

/// A meal as the app sends it: a food of the table, and grams or a number of one of the food's portions.
struct MealRequest: SchemaBody {
    static let schema: RequestSchema = .meal
    struct Portion: Decodable, Sendable {
        let id: String
        let count: Double?
    }
    let mealId: UUID
    let foodId: String
    let grams: Double?
    let portion: Portion?
    let meal: MealKind
    let eatenAt: Date
    let timeZone: String?
}

/// A meal's request resolved against the food table into its event, or a 422 naming every field the
/// table cannot resolve: an unknown food, a portion the food does not have, grams and a portion both or neither, an
/// amount over `maximumGrams`, a time zone that is not one.
enum MealResolution {
    /// More than this at once is not a meal but a typing slip (5 kg). The request schema holds `grams` to it and a
    /// portion's `count` to `maximumPortionCount`; a portion's grams times its count can still exceed it.
    static let maximumGrams = 5_000
    static let maximumPortionCount = 1_000

    static func event(_ request: MealRequest, table: FoodCatalogue.Loaded?) throws -> MealRecorded {
        var violations: [SchemaViolation] = []
        func refuse(_ tokens: [String], _ message: String) {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: tokens), message: message))
        }

        let food: Food?
        if let table {
            food = table.food(request.foodId)
            if food == nil { refuse(["foodId"], "is not a food of \(table.release.name) (search with GET /v1/foods?q=)") }
        } else {
            food = nil
            refuse(["foodId"], "cannot be resolved: no food table has been imported yet")
        }

        var amount: Double?
        var portion: EatenPortion?
        switch (request.grams, request.portion) {
        case (.some, .some):
            refuse(["portion"], "give grams or a portion, not both")
        case (nil, nil):
            refuse(["grams"], "give grams or a portion")
        case (.some(let grams), nil):
            amount = grams
            if grams > Double(maximumGrams) { refuse(["grams"], "must be at most \(maximumGrams) g at once") }
        case (nil, .some(let given)):
            let count = given.count ?? 1
            if let food {
                if let known = food.portions.first(where: { $0.id == given.id }) {
                    portion = EatenPortion(id: known.id, description: known.description, count: count)
                    let total = known.grams * count
                    amount = total
                    // The total is only shown when it is a plain number: a count the schema did not stop (an old
                    // client's, a synced record's) may make it infinite, and an infinite gram count has no digits.
                    if !(total <= Double(maximumGrams)) {
                        let shown = total < 1e9 ? "\(Int(exactly: total.rounded()) ?? maximumGrams) g" : "more than \(maximumGrams) g"
                        refuse(["portion", "count"], "makes \(shown): at most \(maximumGrams) g at once")
                    }
                } else {
                    let listed = food.portions.map(\.id).joined(separator: ", ")
                    refuse(["portion", "id"], "is not a portion of this food (its portions: \(listed.isEmpty ? "none; give grams" : listed))")
                }
            }
        }

        let zoneName = request.timeZone ?? "UTC"
        let zone = TimeZone(identifier: zoneName)
        if zone == nil { refuse(["timeZone"], "is not an IANA time zone (for example Europe/Lisbon)") }

        guard violations.isEmpty, let table, let food, let amount, let zone else {
            throw HTTPProblem(status: .unprocessableContent, error: "the meal cannot be recorded", violations: violations)
        }
        return MealRecorded(
            mealID: request.mealId, eatenAt: request.eatenAt, timeZone: zoneName, localDate: LocalDate(request.eatenAt, in: zone).description,
            meal: request.meal, foodID: request.foodId, foodName: food.name, foodRelease: table.release.id, grams: amount, portion: portion,
            nutrients: food.nutrients(forGrams: amount))
    }

}
