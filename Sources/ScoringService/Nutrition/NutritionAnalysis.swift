import CaretideDomain
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import Foundation

/// What a meal event sets off, in its transaction: the days whose meals changed are added up again and published as
/// `nutrition.assessed`, and a day at or above the sodium limit looks for a persisting pattern
/// (`SodiumPattern`) in a patient whose blood pressure stands at stage 2 or worse: a care-tracking flag, once per
/// episode (keyed by its first day), for the consultants with a grant.
enum NutritionAnalysis {
    static func recorded(_ meal: MealRecorded, event: ValidatedEvent, patientID: String, context: HandlerContext) async throws {
        let days = try await NutritionStore(context).record(meal, patientID: patientID)
        try await analyse(days: days, event: event, patientID: patientID, context: context)
    }

    static func deleted(_ deletion: MealDeleted, event: ValidatedEvent, patientID: String, context: HandlerContext) async throws {
        let days = try await NutritionStore(context).delete(deletion, patientID: patientID)
        try await analyse(days: days, event: event, patientID: patientID, context: context)
    }

    private static func analyse(days: [String], event: ValidatedEvent, patientID: String, context: HandlerContext) async throws {
        let store = NutritionStore(context)
        // The sex and age of the patient's profile, when ingest announced them; else the adult limits, and energy and
        // protein left unknown.
        let known = try await DemographicsStore(context).demographics(patientID: patientID)
        for day in days.sorted() {
            let analysed = try await store.analyse(patientID: patientID, day: day)
            let age = LocalDate(day).flatMap(known.age(on:))
            let analysis = DayAnalysis(totals: analysed.totals, sex: known.sex, age: age)
            try await context.publish(
                context.envelope(
                    for: NutritionAssessed(
                        date: day, mealCount: analysed.totals.entryCount, totals: analysed.totals.sums, saltG: analysed.totals.saltG,
                        incomplete: Nutrient.allCases.filter(analysed.totals.incomplete.contains), checks: analysis.checks.map(NutritionCheck.init),
                        severity: analysis.severity, tips: analysis.tips.map(\.rawValue), ruleSetVersion: RuleSetVersion.current,
                        sourceEventID: event.eventID),
                    causedBy: event))
            let limit = DietaryReference.sodiumLimitMg(sex: known.sex, age: age)
            if (analysed.totals.sums.sodiumMg ?? 0) >= limit {
                try await lookForPattern(
                    day: day, limit: limit, analysisID: analysed.analysisID, event: event, patientID: patientID, context: context)
            }
        }
    }

    /// Flags each episode of high-sodium days that the changed day belongs to, if the patient's blood pressure stands
    /// at stage 2 or worse and the episode was not flagged before.
    private static func lookForPattern(
        day: String, limit: Double, analysisID: UUID, event: ValidatedEvent, patientID: String, context: HandlerContext
    ) async throws {
        let store = NutritionStore(context)
        guard let pressure = try await store.currentBloodPressure(patientID: patientID), pressure >= .stage2Hypertension,
            let changed = LocalDate(day)
        else { return }
        // Every window holding the changed day lies within a week either side; an episode that began earlier is found
        // by its first window's start, so look back far enough to see where it began.
        let lookBack = changed.addingDays(-8 * SodiumPattern.windowDays)
        let highDays = try await store.daysAtOrAbove(
            sodiumMg: limit, patientID: patientID, from: lookBack.description, through: changed.addingDays(SodiumPattern.windowDays - 1).description)
        let dated = highDays.compactMap { row in LocalDate(row.day).map { (day: $0, first: row.first, last: row.last) } }
        for episode in SodiumPattern.episodes(overLimitDays: Set(dated.map(\.day))) where episode.start <= changed && changed <= episode.end {
            let inEpisode = dated.filter { episode.start <= $0.day && $0.day <= episode.end }
            guard let first = inEpisode.map(\.first).min(), let last = inEpisode.map(\.last).max() else { continue }
            let candidate = CareTrackingFlagStore.Candidate(
                patientID: patientID, rule: .persistentHighSodium, patternKey: episode.start.description,
                sameKeys: episode.start.description...episode.end.description, triggeringID: analysisID, firstObservedAt: first,
                lastObservedAt: last)
            guard let flagID = try await CareTrackingFlagStore(context).raise([candidate]).first ?? nil else { continue }
            try await context.publish(
                context.envelope(
                    for: CareTrackingFlagged(
                        flagID: flagID, rule: .persistentHighSodium, severity: .attention, tip: TipKey.trendPersistentHighSodium.rawValue,
                        ruleSetVersion: RuleSetVersion.current, firstObservedAt: first, lastObservedAt: last, triggeringAssessmentID: analysisID),
                    causedBy: event))
        }
    }
}
