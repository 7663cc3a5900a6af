import CaretideDomain
import CaretideIdentity
import CaretideKafka
import CaretideNutrition
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Testing

/// The diet module end to end: the food table imported and searched, meals recorded, corrected, deleted and synced
/// offline, each day analysed by scoring, and a persisting pattern flagged to the care team once.
@Suite(.serialized, .stoppingStacks) struct DietTests {
    static func day(_ scoring: String, _ patient: String, _ date: String, query: String = "", as caller: Caller = .owner) async throws
        -> [String: Any]
    {
        try #require(try await HTTP.get("\(scoring)/v1/patients/\(patient)/nutrition/days/\(date)\(query)", as: caller).json() as? [String: Any])
    }

    static func totals(_ day: [String: Any]) -> [String: Double] { day["totals"] as? [String: Double] ?? [:] }

    static func check(_ day: [String: Any], _ nutrient: String) -> [String: Any]? {
        (day["checks"] as? [[String: Any]])?.first { $0["nutrient"] as? String == nutrient }
    }

    @Test("the food table searched as a user types; a day's meals added up as the table says, corrected, deleted and synced offline")
    func foodsMealsAndDays() async throws {
        let stack = try await TestStack.start([FoodFixture.ingestDefinition(), ScoringService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let scoring = stack.baseURL(ScoringService.name)
        let meals = "\(ingest)/v1/patients/p-diet/meals"

        // Before any import: no table to search, and a meal cannot be resolved.
        #expect(try await HTTP.get("\(ingest)/v1/foods?q=bean").status == 404)
        let early = try await HTTP.send(method: "POST", meals, json: FoodFixture.meal(food: "01001", grams: 10, at: "2026-11-20T08:00:00Z"))
        #expect(early.status == 422 && early.text.contains("/foodId"))

        try await FoodFixture.importFoods(stack)
        let nutrition = try KafkaProbe(stack.kafka, topic: Topic.nutrition.name)

        // Search: every match holds the word, in blocks by food group; paged; the release and its licence named.
        let beans = try #require(try await HTTP.get("\(ingest)/v1/foods?q=Bean").json() as? [String: Any])
        let groups = try #require(beans["groups"] as? [[String: Any]])
        let categories = groups.compactMap { $0["category"] as? String }
        #expect(Set(categories).count == categories.count && categories.count >= 3)
        #expect(categories.contains("Legumes and Legume Products") && categories.contains("Soups, Sauces, and Gravies"))
        let names = groups.flatMap { ($0["foods"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(names.count == beans["total"] as? Int && names.allSatisfy { $0.lowercased().contains("bean") })
        #expect(((beans["release"] as? [String: Any])?["licence"] as? String)?.contains("Public domain") == true)
        // Small pages: the first holds the best of the first three groups, one each; the pages together hold every
        // match once.
        var pages: [[String: Any]] = []
        var cursor: String?
        repeat {
            let url = "\(ingest)/v1/foods?q=bean&limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try #require(try await HTTP.get(url).json() as? [String: Any])
            pages.append(page)
            cursor = page["nextCursor"] as? String
        } while cursor != nil && pages.count < 20
        let firstGroups = try #require(pages.first?["groups"] as? [[String: Any]])
        #expect(firstGroups.compactMap { $0["category"] as? String } == Array(categories.prefix(3)))
        #expect(firstGroups.allSatisfy { ($0["foods"] as? [Any])?.count == 1 })
        let paged = pages.flatMap { page in
            (page["groups"] as? [[String: Any]] ?? []).flatMap { ($0["foods"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        }
        #expect(paged.count == names.count && Set(paged) == Set(names))
        // A page as long as the number of groups holds every group's best: a grouped screen is complete.
        let nine = try #require(try await HTTP.get("\(ingest)/v1/foods?q=bean&limit=9").json() as? [String: Any])
        #expect((nine["groups"] as? [[String: Any]])?.compactMap { $0["category"] as? String } == categories)
        let apple = try #require(try await HTTP.get("\(ingest)/v1/foods?q=apple").json() as? [String: Any])
        let firstApple = ((apple["groups"] as? [[String: Any]])?.first?["foods"] as? [[String: Any]])?.first?["name"] as? String
        #expect(firstApple == "Apples, raw, with skin")
        #expect(try await HTTP.get("\(ingest)/v1/foods?q=%20").status == 400)
        let butter = try #require(try await HTTP.get("\(ingest)/v1/foods/01001").json() as? [String: Any])
        #expect((butter["per100g"] as? [String: Double])?["sodiumMg"] == 643)
        #expect(
            (butter["portions"] as? [[String: Any]])?.contains { $0["description"] as? String == "1 cup" && $0["grams"] as? Double == 227 } == true)
        #expect(try await HTTP.get("\(ingest)/v1/foods/99999").status == 404)

        // Every bad input refused, naming its field; nothing stored.
        for (body, status, field) in [
            (FoodFixture.meal(food: "99999", grams: 10, at: "2026-11-20T08:00:00Z"), 422, "/foodId"),
            (FoodFixture.meal(food: "01001", portion: ("9", 1), at: "2026-11-20T08:00:00Z"), 422, "/portion/id"),
            (FoodFixture.meal(food: "01001", grams: 10, portion: ("1", 1), at: "2026-11-20T08:00:00Z"), 422, "/portion"),
            (FoodFixture.meal(food: "01001", at: "2026-11-20T08:00:00Z"), 422, "/grams"),
            (FoodFixture.meal(food: "01001", grams: 5_001, at: "2026-11-20T08:00:00Z"), 400, "/grams"),
            // A count past the schema's bound: once an infinite gram total that the refusal's message trapped on.
            (FoodFixture.meal(food: "02047", portion: ("3", 1e308), at: "2026-11-20T08:00:00Z"), 400, "/portion/count"),
            (FoodFixture.meal(food: "02047", portion: ("3", 20), at: "2026-11-20T08:00:00Z"), 422, "/portion/count"),
            (FoodFixture.meal(food: "01001", grams: -5, at: "2026-11-20T08:00:00Z"), 400, "/grams"),
            (FoodFixture.meal(food: "01001", grams: 10, at: "2099-01-01T08:00:00Z"), 422, "/eatenAt"),
            (FoodFixture.meal(food: "01001", grams: 10, at: "2026-11-20T08:00:00Z", zone: "Mars/Olympus"), 422, "/timeZone"),
        ] {
            let refused = try await HTTP.send(method: "POST", meals, json: body)
            #expect(refused.status == status && refused.text.contains(field), "\(body): \(refused.status) \(refused.text)")
        }
        #expect(try await HTTP.get(meals).items().isEmpty)

        // A day: butter and oats at breakfast, a teaspoon of salt at lunch, and an apple at 22:30 in New York, which is
        // already the 21st in UTC and counts toward the 20th, the day it was eaten on.
        let (butterID, oatsID, saltID, appleID) = (UUID(), UUID(), UUID(), UUID())
        for body in [
            FoodFixture.meal(butterID, food: "01001", grams: 10, meal: "breakfast", at: "2026-11-20T13:00:00Z", zone: "America/New_York"),
            FoodFixture.meal(oatsID, food: "08120", grams: 40, meal: "breakfast", at: "2026-11-20T13:05:00Z", zone: "America/New_York"),
            FoodFixture.meal(saltID, food: "02047", portion: ("1", 1), at: "2026-11-20T17:00:00Z", zone: "America/New_York"),
            FoodFixture.meal(appleID, food: "09003", portion: ("4", 1), meal: "snack", at: "2026-11-21T03:30:00Z", zone: "America/New_York"),
        ] {
            #expect(try await HTTP.send(method: "POST", meals, json: body).status == 201)
        }
        // The same meal again (an app retrying) is a duplicate, stored once.
        let again = FoodFixture.meal(butterID, food: "01001", grams: 10, meal: "breakfast", at: "2026-11-20T13:00:00Z", zone: "America/New_York")
        #expect(try await HTTP.send(method: "POST", meals, json: again).status == 200)
        try await eventually("the day analysed") { try await Self.day(scoring, "p-diet", "2026-11-20")["mealCount"] as? Int == 4 }

        // The totals by hand from the fixture's values per 100 g (NUT_DATA.txt):
        // butter 10 g: 717 kcal, 643 mg sodium, 51.368 g saturated fat; oats 40 g: 379 kcal, 6 mg, 1.110 g;
        // salt 1 tsp = 6 g: 0 kcal, 38,758 mg; apple 1 medium = 182 g: 52 kcal, 1 mg, 0.028 g.
        var day = try await Self.day(scoring, "p-diet", "2026-11-20")
        var totals = Self.totals(day)
        #expect(abs((totals["energyKcal"] ?? 0) - (717 * 0.1 + 379 * 0.4 + 0 + 52 * 1.82)) < 1e-9)
        #expect(abs((totals["sodiumMg"] ?? 0) - (643 * 0.1 + 6 * 0.4 + 38_758 * 0.06 + 1 * 1.82)) < 1e-9)
        #expect(abs((totals["saturatedFatG"] ?? 0) - (51.368 * 0.1 + 1.110 * 0.4 + 0 + 0.028 * 1.82)) < 1e-9)
        #expect(abs((day["saltG"] as? Double ?? 0) - (totals["sodiumMg"] ?? 0) * 2.5 / 1000) < 1e-9)
        #expect(Self.check(day, "sodium")?["status"] as? String == "atOrAboveLimit")
        // The apple's sugars (19 g, a quarter of the day's energy) are not free sugars: no sugar warning, and the check
        // says its value is an estimate of free sugars.
        #expect(Self.check(day, "sugars")?["status"] as? String == "belowLimit")
        #expect((Self.check(day, "sugars")?["estimate"] as? String)?.contains("free sugars") == true)
        #expect((totals["sugarsG"] ?? 0) > 18 && (totals["freeSugarsG"] ?? 1) < 1)
        #expect((day["tips"] as? [[String: Any]])?.contains { ($0["key"] as? String)?.contains("ugars") == true } == false)
        #expect(
            (day["tips"] as? [[String: Any]])?.contains {
                $0["key"] as? String == "nutrition.sodiumAbove" && ($0["text"] as? String)?.isEmpty == false
            } == true)
        #expect(Self.check(day, "energy")?["status"] as? String == "unknown" && Self.check(day, "energy")?["unknownBecause"] != nil)
        let mealsOfDay = (day["meals"] as? [[String: Any]])?.compactMap { $0["meal"] as? String }
        #expect(mealsOfDay == ["breakfast", "lunch", "snack"])
        let withProfile = try await Self.day(scoring, "p-diet", "2026-11-20", query: "?sex=female&age=40")
        #expect(
            Self.check(withProfile, "energy")?["reference"] as? Double != nil && Self.check(withProfile, "protein")?["reference"] as? Double == 46)
        #expect(try await HTTP.get("\(scoring)/v1/patients/p-diet/nutrition/days/2026-11-20?sex=other&age=300").text.contains("/age"))
        #expect((try await Self.day(scoring, "p-diet", "2026-11-21"))["mealCount"] as? Int == 0)

        // A correction (a pinch of salt, not a teaspoon) and a deletion each change the day.
        let corrected = try await HTTP.send(
            method: "PUT", "\(meals)/\(saltID)",
            json: FoodFixture.meal(saltID, food: "02047", grams: 1, at: "2026-11-20T17:00:00Z", zone: "America/New_York"))
        #expect(try corrected.status == 200 && (corrected.json() as? [String: Any])?["status"] as? String == "corrected")
        try await eventually("the correction analysed") {
            abs((Self.totals(try await Self.day(scoring, "p-diet", "2026-11-20"))["sodiumMg"] ?? 0) - (64.3 + 2.4 + 387.58 + 1.82)) < 1e-9
        }
        #expect(try await HTTP.send(method: "DELETE", "\(meals)/\(appleID)").status == 200)
        try await eventually("the deletion analysed") { try await Self.day(scoring, "p-diet", "2026-11-20")["mealCount"] as? Int == 3 }
        day = try await Self.day(scoring, "p-diet", "2026-11-20")
        totals = Self.totals(day)
        #expect(abs((totals["energyKcal"] ?? 0) - (71.7 + 151.6)) < 1e-9 && Self.check(day, "sodium")?["status"] as? String == "belowLimit")

        // Offline: a new meal on the 21st, the butter deleted, and a stale change to the oats, in one upload; one change
        // naming an unknown food is refused alone.
        let bananaID = UUID()
        let upload = try await HTTP.send(
            method: "POST", "\(ingest)/v1/patients/p-diet/changes",
            json: """
                {"changes": [
                  {"kind": "meal", "id": "\(bananaID)", "updatedAt": "2026-11-21T08:00:00Z",
                   "record": \(FoodFixture.meal(bananaID, food: "09040", grams: 118, meal: "breakfast", at: "2026-11-21T08:00:00Z"))},
                  {"kind": "meal", "id": "\(butterID)", "updatedAt": "2026-11-21T08:01:00Z", "deleted": true},
                  {"kind": "meal", "id": "\(oatsID)", "updatedAt": "2026-11-20T00:00:00Z",
                   "record": \(FoodFixture.meal(oatsID, food: "08120", grams: 80, meal: "breakfast", at: "2026-11-20T13:05:00Z"))},
                  {"kind": "meal", "id": "\(UUID())", "updatedAt": "2026-11-21T08:02:00Z",
                   "record": \(FoodFixture.meal(food: "99999", grams: 10, at: "2026-11-21T08:00:00Z"))}
                ]}
                """)
        let results = try #require((upload.json() as? [String: Any])?["results"] as? [[String: Any]])
        #expect(results.map { $0["status"] as? String } == ["recorded", "deleted", "conflict", "refused"])
        #expect((results[3]["violations"] as? [[String: Any]])?.first?["pointer"] as? String == "/changes/3/record/foodId")
        let feed = try #require((try await HTTP.get("\(ingest)/v1/patients/p-diet/changes").json() as? [String: Any])?["changes"] as? [[String: Any]])
        #expect(feed.filter { $0["type"] as? String == "meal" }.count == 5)
        #expect(feed.contains { $0["id"] as? String == butterID.uuidString.lowercased() && $0["deleted"] as? Bool == true })
        try await eventually("the upload analysed") { try await Self.day(scoring, "p-diet", "2026-11-20")["mealCount"] as? Int == 2 }

        // The daily series for a chart: only days with meals, oldest first.
        let series = try #require(
            try await HTTP.get("\(scoring)/v1/patients/p-diet/nutrition/days?from=2026-11-19&to=2026-11-22").json() as? [String: Any])
        #expect((series["days"] as? [[String: Any]])?.compactMap { $0["date"] as? String } == ["2026-11-20", "2026-11-21"])
        #expect(try await HTTP.get("\(scoring)/v1/patients/p-diet/nutrition/days?from=2026-11-19&to=2027-12-01").status == 400)

        // Each change of a day was announced on caretide.nutrition, ids and numbers only.
        let announced = try await nutrition.receive(5).map { try EventCodec().decode($0.value) }
        #expect(announced.allSatisfy { $0.eventType == .nutritionAssessed && $0.patientID == "p-diet" })

        // A consultant reads the meals and the analysis while the patient's grant is in force, and not before.
        let consultant = Caller.identity(Identity(subject: "dr-diet", role: .consultant))
        #expect(try await HTTP.get(meals, as: consultant).status == 403)
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-diet/care-team/dr-diet", json: "{}").status == 200)
        try await eventually("the grant seen by scoring") {
            try await HTTP.get("\(scoring)/v1/patients/p-diet/nutrition/days/2026-11-20", as: consultant).status == 200
        }
        #expect(try await HTTP.get(meals, as: consultant).items().count == 3)
        await nutrition.close()
    }

    @Test("a new import is swapped in while ingest serves, with no search refused; releases beyond the number kept are deleted")
    func importWhileServing() async throws {
        let stack = try await TestStack.start([FoodFixture.ingestDefinition()])
        try await FoodFixture.importFoods(stack)
        let ingest = stack.baseURL(IngestService.name)
        func served() async throws -> Int? {
            ((try await HTTP.get("\(ingest)/v1/foods?q=butter").json() as? [String: Any])?["release"] as? [String: Any])?["number"] as? Int
        }
        // Searches run throughout the imports below; each must be answered from one release or the next.
        let searches = Task { () -> [Int] in
            var statuses: [Int] = []
            while !Task.isCancelled {
                guard let status = try? await HTTP.get("\(ingest)/v1/foods?q=butter").status else { break }
                statuses.append(status)
            }
            return statuses
        }
        let table = try StandardReference.load(directory: FoodFixture.directory)
        var reports: [FoodStore.ImportReport] = []
        for _ in 0..<3 {
            let report = try await stack.withDatabase(schema: "ingest") { database, logger in
                try await FoodStore.importTable(table, keep: 3, database: database, logger: logger)
            }
            reports.append(report)
            try await eventually("release \(report.releaseNumber) served") { try await served() == Int(report.releaseNumber) }
        }
        searches.cancel()
        let statuses = await searches.value
        #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        // The fourth import keeps three: the first is deleted with its foods.
        #expect(reports.map(\.deletedReleases) == [0, 0, 1])
        let kept = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.fetchAll("SELECT release_number FROM food_releases ORDER BY 1", as: Int64.self, logger: logger)
        }
        #expect(kept == reports.map(\.releaseNumber))
    }

    @Test("a meal sent without its time zone counts in the profile's, by POST and by offline upload; one that names its zone keeps it")
    func mealInTheProfileTimeZone() async throws {
        let stack = try await TestStack.start([FoodFixture.ingestDefinition(), ScoringService.definition])
        try await FoodFixture.importFoods(stack)
        let (ingest, scoring) = (stack.baseURL(IngestService.name), stack.baseURL(ScoringService.name))
        let meals = "\(ingest)/v1/patients/p-diet-zone/meals"
        #expect(
            try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-diet-zone/profile", json: #"{"timeZone": "Pacific/Auckland"}"#).status
                == 201)
        // 20:00 UTC on the 20th is 09:00 on the 21st in Auckland (UTC+13 in November).
        #expect(
            try await HTTP.post(meals, json: FoodFixture.meal(food: "01001", grams: 10, meal: "breakfast", at: "2026-11-20T20:00:00Z")).status == 201)
        let offline = UUID()
        let upload = try await HTTP.send(
            method: "POST", "\(ingest)/v1/patients/p-diet-zone/changes",
            json:
                #"{"changes": [{"kind": "meal", "id": "\#(offline)", "updatedAt": "2026-11-20T21:00:00Z", "record": \#(FoodFixture.meal(offline, food: "08120", grams: 40, meal: "breakfast", at: "2026-11-20T21:00:00Z"))}]}"#
        )
        #expect((try upload.json() as? [String: Any]).flatMap { $0["results"] as? [[String: Any]] }?.first?["status"] as? String == "recorded")
        #expect(
            try await HTTP.post(
                meals, json: FoodFixture.meal(food: "09003", portion: ("4", 1), meal: "snack", at: "2026-11-20T20:30:00Z", zone: "UTC")
            )
            .status == 201)
        let zones = try await HTTP.get(meals).items().compactMap { $0["timeZone"] as? String }
        #expect(zones.sorted() == ["Pacific/Auckland", "Pacific/Auckland", "UTC"], "\(zones)")
        try await eventually("both days analysed") {
            let (twentyFirst, twentieth) = (
                try await Self.day(scoring, "p-diet-zone", "2026-11-21"), try await Self.day(scoring, "p-diet-zone", "2026-11-20")
            )
            return twentyFirst["mealCount"] as? Int == 2 && twentieth["mealCount"] as? Int == 1
        }
    }

    @Test("sodium at or above the limit on 5 of 7 days flags a patient with stage 2 blood pressure once, however long it goes on")
    func persistentHighSodium() async throws {
        let stack = try await TestStack.start([FoodFixture.ingestDefinition(), ScoringService.definition, NotificationService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let scoring = stack.baseURL(ScoringService.name)
        try await FoodFixture.importFoods(stack)
        let scores = try KafkaProbe(stack.kafka, topic: Topic.scores.name)

        // The patient's consultant, told of care-tracking flags while the grant is in force.
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-salt/care-team/dr-salt", json: "{}").status == 200)
        let consultant = Caller.identity(Identity(subject: "dr-salt", role: .consultant))
        try await eventually("notification has the grant") {
            try await HTTP.get("\(stack.baseURL(NotificationService.name))/v1/patients/p-salt/alerts", as: consultant).status == 200
        }
        // Stage 2 for one patient, normal for the other; their assessments stand before the meals arrive.
        for (patient, systolic, diastolic) in [("p-salt", 170, 105), ("p-salt-normal", 118, 76)] {
            #expect(
                try await HTTP.send(
                    method: "POST", "\(ingest)/v1/patients/\(patient)/measurements/blood-pressure",
                    json: #"{"measurementId": "\#(UUID())", "systolic": \#(systolic), "diastolic": \#(diastolic), "takenAt": "2026-10-30T08:00:00Z"}"#
                ).status == 201)
            try await eventually("the blood pressure assessed") {
                try await HTTP.get("\(scoring)/v1/patients/\(patient)/assessments").items().count == 1
            }
        }
        func salt(_ patient: String, days: [Int]) async throws {
            for day in days {
                let body = FoodFixture.meal(food: "02047", portion: ("1", 1), at: String(format: "2026-11-%02dT12:00:00Z", day))
                #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/\(patient)/meals", json: body).status == 201)
            }
        }
        // Four days of seven: nothing; the fifth completes the pattern; two more days continue the same episode.
        try await salt("p-salt", days: [1, 2, 4, 5])
        try await salt("p-salt-normal", days: [1, 2, 4, 5, 6, 7])
        try await eventually("the four days analysed") {
            let series = try await HTTP.get("\(scoring)/v1/patients/p-salt/nutrition/days?from=2026-11-01&to=2026-11-07").json()
            return ((series as? [String: Any])?["days"] as? [Any])?.count == 4
        }
        try await salt("p-salt", days: [6, 7, 8])
        let flags = try await scores.receive(3).compactMap { try EventCodec().decode($0.value).payload(as: CareTrackingFlagged.self) }
        #expect(flags.map(\.rule) == [.persistentHighSodium] && flags.first?.tip == "trend.persistentHighSodium")
        // A day synced late, before the episode, moves its start earlier: still the same episode, not flagged again.
        let late = FoodFixture.meal(food: "02047", portion: ("1", 1), at: "2026-10-31T12:00:00Z")
        #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-salt/meals", json: late).status == 201)
        try await eventually("the late day analysed") {
            let series = try await HTTP.get("\(scoring)/v1/patients/p-salt/nutrition/days?from=2026-10-31&to=2026-11-08").json()
            return ((series as? [String: Any])?["days"] as? [Any])?.count == 8
        }
        let later = try await scores.drain(for: .seconds(3)).compactMap { try EventCodec().decode($0.value).payload(as: CareTrackingFlagged.self) }
        #expect(later.isEmpty)
        let notification = stack.baseURL(NotificationService.name)
        try await eventually("the flag in the patient's list") {
            try await HTTP.get("\(notification)/v1/patients/p-salt/alerts").items().filter { $0["kind"] as? String == "careTracking" }.count == 1
        }
        try await eventually("the flag in the consultant's inbox") {
            try await HTTP.get("\(notification)/v1/inbox", as: consultant).items().filter { $0["kind"] as? String == "careTracking" }.count == 1
        }
        #expect(
            try await HTTP.get("\(notification)/v1/patients/p-salt-normal/alerts").items().filter { $0["kind"] as? String == "careTracking" }.isEmpty)
        await scores.close()
    }
}
