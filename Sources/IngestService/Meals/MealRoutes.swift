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
            kind: .meal, event: MealRecorded.self,
            resolvedPayload: { body, _, revision in try MealResolution.payload(body, revision: revision, table: catalogue.current) },
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
            try await records.create(definition, idField: "mealId", request: request, context: context, completing: inProfileTimeZone)
        }
        routes.put(
            "v1/patients/:patientId/meals/:mealId", access: .patientData(.write),
            summary: "Record or correct a meal record (a correction is the next revision)", body: [.meal]
        ) { request, context in
            try await records.put(
                definition, id: try Self.mealID(context), idField: "mealId", request: request, context: context, completing: inProfileTimeZone)
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

/// A meal's request body resolved against the food table into its event's payload, or a 422 naming every field the
/// table cannot resolve: an unknown food, a portion the food does not have, grams and a portion both or neither, an
/// amount over `maximumGrams`, a time zone that is not one.
enum MealResolution {
    /// More than this at once is not a meal but a typing slip (5 kg). The request schema holds `grams` to it and a
    /// portion's `count` to `maximumPortionCount`; a portion's grams times its count can still exceed it.
    static let maximumGrams = 5_000
    static let maximumPortionCount = 1_000

    static func payload(_ body: JSONValue, revision: Int, table: FoodCatalogue.Loaded?) throws -> JSONValue {
        var violations: [SchemaViolation] = []
        func refuse(_ tokens: [String], _ message: String) {
            violations.append(SchemaViolation(pointer: JSONPointer(tokens: tokens), message: message))
        }

        let foodID = body["foodId"]?.stringValue ?? ""
        let food: Food?
        if let table {
            food = table.food(foodID)
            if food == nil { refuse(["foodId"], "is not a food of \(table.release.name) (search with GET /v1/foods?q=)") }
        } else {
            food = nil
            refuse(["foodId"], "cannot be resolved: no food table has been imported yet")
        }

        let grams = body["grams"]?.numberValue
        let portionBody = body["portion"]
        var amount: Double?
        var portion: EatenPortion?
        switch (grams, portionBody) {
        case (.some, .some):
            refuse(["portion"], "give grams or a portion, not both")
        case (nil, nil):
            refuse(["grams"], "give grams or a portion")
        case (.some(let grams), nil):
            amount = grams
            if grams > Double(maximumGrams) { refuse(["grams"], "must be at most \(maximumGrams) g at once") }
        case (nil, .some(let given)):
            let portionID = given["id"]?.stringValue ?? ""
            let count = given["count"]?.numberValue ?? 1
            if let food {
                if let known = food.portions.first(where: { $0.id == portionID }) {
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

        let zoneName = body["timeZone"]?.stringValue ?? "UTC"
        let zone = TimeZone(identifier: zoneName)
        if zone == nil { refuse(["timeZone"], "is not an IANA time zone (for example Europe/Lisbon)") }

        guard violations.isEmpty, let table, let food, let amount, let zone,
            let eatenAt = body["eatenAt"]?.stringValue.flatMap(Timestamp.parse)
        else {
            throw HTTPProblem(status: .unprocessableContent, error: "the meal cannot be recorded", violations: violations)
        }
        let nutrients = food.nutrients(forGrams: amount)
        var members: [String: JSONValue] = [
            "revision": .number(Double(revision)), "timeZone": .string(zoneName),
            "localDate": .string(LocalDate(eatenAt, in: zone).description), "foodName": .string(food.name),
            "foodRelease": .string(table.release.id), "grams": .number(amount),
            "nutrients": try CaretideJSON.parse(CaretideJSON.encode(nutrients)),
        ]
        if let portion {
            members["portion"] = .object(["id": .string(portion.id), "description": .string(portion.description), "count": .number(portion.count)])
        }
        return body.merging(members)
    }

}
