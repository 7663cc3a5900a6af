import CaretideDomain
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import Foundation
import Logging
import PostgresNIO

/// The SQL of the diet analysis: meals as their events gave them, and each patient's days analysed from them.
/// Days are calendar dates (`yyyy-MM-dd`), passed and read as text.
struct NutritionStore: ServiceStore {
    let session: StoreSession

    /// Keeps a meal's newest revision; the days whose meals changed (the meal's day, and the day it left when a
    /// correction moved it). A revision already kept, older, or of a deleted meal changes nothing.
    func record(_ meal: MealRecorded, patientID: String) async throws -> [String] {
        let mealID = meal.mealID
        let existing = try await session.fetchAll(
            "SELECT revision, deleted, day::text FROM meal_entries WHERE patient_id = \(patientID) AND meal_id = \(mealID) FOR UPDATE",
            as: (Int, Bool, String).self
        ).first
        guard Self.replaces(meal.revision, kept: existing.map { (revision: $0.0, deleted: $0.1) }) else { return [] }
        let nutrients = try CaretideJSON.encodeToString(meal.nutrients)
        let portion = try meal.portion.map { try CaretideJSON.encodeToString($0) }
        try await session.query(
            """
            INSERT INTO meal_entries (patient_id, meal_id, revision, day, eaten_at, time_zone, meal, food_id, food_name, food_release, grams,
                                      portion, nutrients)
            VALUES (\(patientID), \(mealID), \(meal.revision), \(meal.localDate)::date, \(meal.eatenAt), \(meal.timeZone), \(meal.meal.rawValue),
                    \(meal.foodID), \(meal.foodName), \(meal.foodRelease), \(meal.grams), \(portion)::jsonb, \(nutrients)::jsonb)
            ON CONFLICT (patient_id, meal_id) DO UPDATE SET
                revision = excluded.revision, day = excluded.day, eaten_at = excluded.eaten_at, time_zone = excluded.time_zone,
                meal = excluded.meal, food_id = excluded.food_id, food_name = excluded.food_name, food_release = excluded.food_release,
                grams = excluded.grams, portion = excluded.portion, nutrients = excluded.nutrients
            """)
        return Array(Set([meal.localDate] + (existing.map { [$0.2] } ?? [])))
    }

    /// Whether a meal's `revision` replaces what is kept of it: a first revision does, a newer one does; the same one
    /// again (a redelivery) or an older one arriving late does not, and no revision brings a deleted meal back.
    static func replaces(_ revision: Int, kept: (revision: Int, deleted: Bool)?) -> Bool {
        guard let kept else { return true }
        return !kept.deleted && revision > kept.revision
    }

    /// Marks the meal deleted; its day, when it stood.
    func delete(_ deleted: MealDeleted, patientID: String) async throws -> [String] {
        try await session.fetchAll(
            """
            UPDATE meal_entries SET deleted = true
            WHERE patient_id = \(patientID) AND meal_id = \(deleted.mealID) AND NOT deleted
            RETURNING day::text
            """, as: String.self)
    }

    /// The day's standing meals added up and stored as its analysis: what `NutritionAnalysis` publishes.
    struct AnalysedDay {
        let analysisID: UUID
        let totals: NutrientTotals
    }

    func analyse(patientID: String, day: String) async throws -> AnalysedDay {
        let rows = try await session.fetchAll(
            """
            SELECT nutrients::text, eaten_at FROM meal_entries
            WHERE patient_id = \(patientID) AND day = \(day)::date AND NOT deleted
            """, as: (String, Date).self)
        var totals = NutrientTotals()
        for (nutrients, _) in rows { totals.add(try Self.nutrients(nutrients)) }
        let analysisID = UUID.timeOrdered()
        let times = rows.map(\.1)
        try await session.query(
            """
            INSERT INTO nutrition_days (patient_id, day, analysis_id, meal_count, totals, incomplete, sodium_mg, first_eaten_at, last_eaten_at)
            VALUES (\(patientID), \(day)::date, \(analysisID), \(rows.count), \(try CaretideJSON.encodeToString(totals.sums))::jsonb,
                    \(totals.incomplete.map(\.rawValue).sorted()), \(totals.sums.sodiumMg ?? 0), \(times.min()), \(times.max()))
            ON CONFLICT (patient_id, day) DO UPDATE SET
                analysis_id = excluded.analysis_id, meal_count = excluded.meal_count, totals = excluded.totals,
                incomplete = excluded.incomplete, sodium_mg = excluded.sodium_mg, first_eaten_at = excluded.first_eaten_at,
                last_eaten_at = excluded.last_eaten_at, analysed_at = now()
            """)
        return AnalysedDay(analysisID: analysisID, totals: totals)
    }

    /// The days from `first` to `last` (inclusive) on which the patient's sodium reached `limit`, each with its first and
    /// last meal's time.
    func daysAtOrAbove(sodiumMg limit: Double, patientID: String, from first: String, through last: String) async throws
        -> [(day: String, first: Date, last: Date)]
    {
        try await session.fetchAll(
            """
            SELECT day::text, first_eaten_at, last_eaten_at FROM nutrition_days
            WHERE patient_id = \(patientID) AND day BETWEEN \(first)::date AND \(last)::date AND sodium_mg >= \(limit) AND meal_count > 0
            """, as: (String, Date, Date).self
        ).map { (day: $0.0, first: $0.1, last: $0.2) }
    }

    /// The category of the patient's standing blood-pressure assessment observed last, if any.
    func currentBloodPressure(patientID: String) async throws -> BloodPressureCategory? {
        try await session.fetchAll(
            """
            SELECT category FROM assessments
            WHERE patient_id = \(patientID) AND kind = \(AssessmentKind.bloodPressure.rawValue) AND superseded_by IS NULL AND withdrawn_at IS NULL
            ORDER BY observed_at DESC LIMIT 1
            """, as: String.self
        ).first.flatMap(BloodPressureCategory.init(rawValue:))
    }

    static func nutrients(_ text: String) throws -> Nutrients {
        try JSONDecoder().decode(Nutrients.self, from: Data(text.utf8))
    }

    /// The patient's meal entries of the days `first` through `last`, in the order they were eaten.
    func entries(patientID: String, from first: LocalDate, through last: LocalDate) async throws -> [NutritionRoutes.StoredEntry] {
        let rows = try await session.fetchAll(
            """
            SELECT day::text, meal, meal_id, eaten_at, time_zone, food_id, food_name, food_release, grams, portion::text, nutrients::text
            FROM meal_entries
            WHERE patient_id = \(patientID) AND day BETWEEN \(first.description)::date AND \(last.description)::date AND NOT deleted
            ORDER BY day, eaten_at, meal_id
            """, as: (String, String, UUID, Date, String, String, String, String, Double, String?, String).self)
        return try rows.map { row in
            NutritionRoutes.StoredEntry(
                day: row.0, meal: MealKind(rawValue: row.1) ?? .snack,
                entry: NutritionRoutes.Entry(
                    mealId: row.2, eatenAt: row.3, timeZone: row.4, foodId: row.5, foodName: row.6, foodRelease: row.7, grams: row.8,
                    portion: try row.9.map { try JSONDecoder().decode(EatenPortion.self, from: Data($0.utf8)) },
                    nutrients: try Self.nutrients(row.10)))
        }
    }
}
