import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Testing

/// Reminders: set in the patient's own time zone, refused when the calendar cannot hold them, fired exactly once per
/// occurrence with two replicas running, caught up once (late) after downtime, and set by a melanoma risk category.
@Suite(.serialized, .stoppingStacks) struct ReminderTests {
    static func count(_ stack: TestStack, _ sql: String) async throws -> Int {
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collectAll().first?.decode(Int.self) ?? -1
        }
    }

    @Test("impossible dates and unknown zones are refused naming the field; a reminder lists its next occurrences")
    func validation() async throws {
        let stack = try await TestStack.start([NotificationService.definition(reminderCheck: .seconds(1))])
        let url = stack.baseURL(NotificationService.name) + "/v1/patients/p-rem/reminders"
        let leap = try await HTTP.post(
            url, json: #"{"topic": "skinCheck", "repeats": "monthly", "startsOn": "2023-02-29", "at": "09:00", "timeZone": "Europe/Lisbon"}"#)
        #expect(leap.status == 400 && leap.text.contains("/startsOn"))
        let zone = try await HTTP.post(
            url, json: #"{"topic": "skinCheck", "repeats": "weekly", "startsOn": "2026-12-01", "at": "09:00", "timeZone": "Mars/Olympus"}"#)
        #expect(zone.status == 400 && zone.text.contains("/timeZone"))
        let noDates = try await HTTP.post(url, json: #"{"topic": "glucose", "repeats": "onDates", "at": "07:00", "timeZone": "UTC"}"#)
        #expect(noDates.status == 400 && noDates.text.contains("/dates"))
        #expect(
            try await HTTP.post(
                url, json: #"{"topic": "skinCheck", "repeats": "weekly", "startsOn": "2026-12-01", "at": "25:00", "timeZone": "UTC"}"#
            ).status == 400)

        let id = UUID().uuidString.lowercased()
        let monthly =
            #"{"reminderId": "\#(id)", "topic": "skinCheck", "repeats": "monthly", "startsOn": "2030-01-31", "at": "01:30", "timeZone": "Europe/Lisbon"}"#
        let created = try await HTTP.post(url, json: monthly)
        #expect(created.status == 201)
        let next = (try created.json() as? [String: Any])?["next"] as? [String] ?? []
        // From the 31st: February's last day, then the 31st again; 31 March 2030 is Lisbon's spring-forward night, whose
        // 01:30 does not exist and is read with the winter offset.
        #expect(next == ["2030-01-31T01:30:00.000Z", "2030-02-28T01:30:00.000Z", "2030-03-31T01:30:00.000Z"])
        #expect(try await HTTP.post(url, json: monthly).status == 200)
        #expect(try await HTTP.get(url).items().count == 1)
        #expect(try await HTTP.post(url, json: monthly, as: .identity(Identity(subject: "p-else", role: .patient))).status == 403)
        #expect(try await HTTP.send(method: "DELETE", url + "/\(id)").status == 204)
        #expect(try await HTTP.get(url).items().isEmpty)
        try await stack.shutdown()
    }

    @Test("every two months from a month end; a one-off date already past is refused naming it; pause and resume")
    func everyTwoMonthsPastDatesAndPause() async throws {
        let stack = try await TestStack.start([NotificationService.definition(reminderCheck: .seconds(1))])
        let url = stack.baseURL(NotificationService.name) + "/v1/patients/p-rem2/reminders"
        let id = UUID().uuidString.lowercased()
        let created = try await HTTP.post(
            url,
            json:
                #"{"reminderId": "\#(id)", "topic": "skinCheck", "repeats": "everyTwoMonths", "startsOn": "2031-12-31", "at": "09:00", "timeZone": "UTC"}"#
        )
        #expect(created.status == 201)
        // From 31 December: the last day of February 2032 (a leap year), then 30 April (no 31st).
        #expect(
            (try created.json() as? [String: Any])?["next"] as? [String] == [
                "2031-12-31T09:00:00.000Z", "2032-02-29T09:00:00.000Z", "2032-04-30T09:00:00.000Z",
            ])

        // A one-off in the past, and listed dates of which one is past: refused, naming each, nothing stored.
        let once = try await HTTP.post(
            url, json: #"{"topic": "glucose", "repeats": "once", "startsOn": "2020-05-01", "at": "07:00", "timeZone": "UTC"}"#)
        #expect(once.status == 400 && once.text.contains("/startsOn") && once.text.contains("in the past"))
        let listed = try await HTTP.post(
            url, json: #"{"topic": "glucose", "repeats": "onDates", "dates": ["2031-01-01", "2020-05-01"], "at": "07:00", "timeZone": "UTC"}"#)
        #expect(listed.status == 400 && listed.text.contains("/dates/1") && !listed.text.contains("/dates/0"))
        #expect(try await HTTP.get(url).items().count == 1)

        // Paused: due at no time, and listed as paused; resumed: due again at its next occurrence; twice is harmless.
        let paused = try await HTTP.post(url + "/\(id)/pause", json: "{}")
        #expect(try paused.status == 200 && (paused.json() as? [String: Any])?["status"] as? String == "paused")
        let listedPaused = try #require(try await HTTP.get(url).items().first)
        #expect(listedPaused["pausedAt"] != nil && listedPaused["nextDueAt"] == nil)
        #expect(try await HTTP.post(url + "/\(id)/pause", json: "{}").status == 200)
        let resumed = try #require(try await HTTP.post(url + "/\(id)/resume", json: "{}").json() as? [String: Any])
        #expect(resumed["status"] as? String == "active" && resumed["nextDueAt"] as? String == "2031-12-31T09:00:00.000Z")
        let listedActive = try #require(try await HTTP.get(url).items().first)
        #expect(listedActive["pausedAt"] == nil && listedActive["nextDueAt"] as? String == "2031-12-31T09:00:00.000Z")
        #expect(try await HTTP.post(url + "/\(UUID())/pause", json: "{}").status == 404)
        #expect(try await HTTP.post(url + "/\(id)/pause", json: "{}", as: .identity(Identity(subject: "p-else", role: .patient))).status == 403)
        try await stack.shutdown()
    }

    @Test("two replicas fire each occurrence exactly once; after downtime every missed occurrence fires once, marked late")
    func exactlyOnce() async throws {
        let stack = try await TestStack.start([
            NotificationService.definition(reminderCheck: .milliseconds(200)), NotificationService.definition(reminderCheck: .milliseconds(200)),
        ])
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let url = stack.baseURL(NotificationService.name) + "/v1/patients/p-twice/reminders"
        let utc: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()
        // How a request writes an instant on a whole minute, in UTC: its date and its time of day.
        func written(_ instant: Date) -> (day: String, at: String) {
            let parts = utc.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
            return (String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!), String(format: "%02d:%02d", parts.hour!, parts.minute!))
        }
        // Instants on whole seconds, as SQL.
        func timestamps(_ instants: [Date]) -> String {
            instants.map { "to_timestamp(\(Int($0.timeIntervalSince1970)))" }.joined(separator: ", ")
        }
        // Schedules are written to the minute: this one, which has begun. The weekly reminder's occurrences the service
        // "was down" for fell due three weeks and an hour ago and every week since, the last an hour ago; its next
        // falls due in a week less an hour.
        let minute = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60)
        let week: TimeInterval = 7 * 86_400
        let missed = (0..<4).map { minute.addingTimeInterval(-3_600 - Double(3 - $0) * week) }
        let nextWeek = missed[3].addingTimeInterval(week)

        // Both set so that no round can fire either before the test has moved it: the once reminder falls due tomorrow,
        // and the weekly one, set now, waits for its next occurrence (the past ones are not fired for a reminder just
        // set). Had either fallen due first, a round could fire its first occurrence under the schedule it was set
        // with, and the occurrence key (reminder, 0) would then turn away the one the test means.
        let once = UUID()
        let weekly = UUID()
        let tomorrow = written(minute.addingTimeInterval(86_400))
        #expect(
            try await HTTP.post(
                url,
                json:
                    #"{"reminderId": "\#(once.uuidString.lowercased())", "topic": "bloodPressure", "repeats": "once", "startsOn": "\#(tomorrow.day)", "at": "\#(tomorrow.at)", "timeZone": "UTC"}"#
            ).status == 201)
        let first = written(missed[0])
        #expect(
            try await HTTP.post(
                url,
                json:
                    #"{"reminderId": "\#(weekly.uuidString.lowercased())", "topic": "skinCheck", "note": "Check the mole on the left shoulder", "repeats": "weekly", "startsOn": "\#(first.day)", "at": "\#(first.at)", "timeZone": "UTC"}"#
            ).status == 201)
        let today = written(minute).day
        try await stack.withDatabase(schema: "notification") { database, logger in
            // As if the service had been down for three weeks and an hour: the weekly reminder still waits for its
            // first occurrence.
            try await database.client.query(
                "UPDATE reminders SET next_index = 0, next_due_at = \(missed[0]) WHERE reminder_id = \(weekly)", logger: logger)
            // And the once reminder falls due at the start of this minute (one set for a coming minute would be refused
            // as past whenever the minute turned while its request was under way).
            try await database.client.query(
                "UPDATE reminders SET starts_on = \(today), next_due_at = \(minute) WHERE reminder_id = \(once)", logger: logger)
        }

        // The missed weeks are over an hour late whenever a round fires them. The once reminder fell due at most a
        // minute (and two requests) before the test set it so, and fires at the next round: on time, as this wait gives
        // up after a minute, well inside five.
        let fired = try await alerts.receive(5).compactMap { try EventCodec().decode($0.value).payload(as: AlertRaised.self) }
        let skinChecks = fired.filter { $0.category == "skinCheck" }
        #expect(skinChecks.count == 4 && skinChecks.allSatisfy { $0.late == true })
        #expect(fired.filter { $0.category == "bloodPressure" }.map(\.late) == [false])
        #expect(Set(fired.map(\.sourceEventID)).count == 5)

        // Nothing is due any more (the once reminder has ended, the weekly one waits for next week's), so no later round
        // can fire anything: the counts below are final, and checking them needs no wait for something not to come.
        #expect(try await Self.count(stack, "SELECT count(*)::int FROM reminders WHERE next_due_at <= now()") == 0)
        #expect(
            try await Self.count(stack, "SELECT count(*)::int FROM reminders WHERE next_index = 4 AND next_due_at = \(timestamps([nextWeek]))") == 1)
        #expect(try await Self.count(stack, "SELECT count(*)::int FROM reminder_occurrences") == 5)
        #expect(try await Self.count(stack, "SELECT count(*)::int FROM notifications WHERE kind = 'reminder'") == 5)
        // Each occurrence recorded late exactly when it fired more than five minutes after it fell due; the four late
        // ones are the missed weeks.
        let agreeing = "SELECT count(*)::int FROM reminder_occurrences WHERE late = (fired_at - due_at > interval '5 minutes')"
        #expect(try await Self.count(stack, agreeing) == 5)
        #expect(try await Self.count(stack, "SELECT count(*)::int FROM reminder_occurrences WHERE late AND due_at IN (\(timestamps(missed)))") == 4)
        let inbox = try await HTTP.get(
            stack.baseURL(NotificationService.name) + "/v1/inbox", as: .identity(Identity(subject: "p-twice", role: .patient))
        ).items()
        #expect(inbox.contains { $0["text"] as? String == "Check the mole on the left shoulder" })
        await alerts.close()
        try await stack.shutdown()
    }

    @Test(
        "a melanoma risk category sets its recommended self-check reminder, a new category replaces it, and withdrawing the profile that set it cancels it"
    )
    func melanomaSelfCheck() async throws {
        let stack = try await TestStack.start([IngestService.definition, ScoringService.definition, NotificationService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let notification = stack.baseURL(NotificationService.name)
        let patient = Caller.identity(Identity(subject: "p-skin", role: .patient))
        let profile =
            #"{"age": 46, "sex": "female", "fitzpatrickSkinType": 1, "eyeColour": "blueOrGrey", "hairColour": "red", "commonMoles": "over100", "atypicalMoleCount": 6, "freckling": "many", "familyHistory": "moreThanOneFirstDegreeRelative", "personalHistory": "melanoma", "immunosuppression": ["organTransplant"], "sunburnHistory": true}"#
        let higherID = UUID()
        let higher = try await HTTP.send(method: "PUT", ingest + "/v1/patients/p-skin/melanoma-risk-profiles/\(higherID)", json: profile)
        #expect(higher.status == 201)
        // The four optional factors were left out: the answer names them.
        let answer = try #require(try higher.json() as? [String: Any])["assessment"] as? [String: Any]
        #expect(
            answer?["unansweredFactors"] as? [String] == ["inflammatoryBowelDisease", "bodyMassIndex", "intermittentSunExposure", "sunbedUse"])
        let reminders = notification + "/v1/patients/p-skin/reminders"
        try await eventually("the self-check reminder is set") { try await HTTP.get(reminders).items().count == 1 }
        let reminder = try #require(try await HTTP.get(reminders).items().first)
        #expect(
            reminder["topic"] as? String == "skinCheck" && reminder["origin"] as? String == "melanomaRisk"
                && reminder["repeats"] as? String == "monthly")
        try await eventually("the higher category is in the patient's inbox") {
            try await HTTP.get(notification + "/v1/inbox", as: patient).items().count == 1
        }
        // A lower category, with every optional factor answered (sex other): still one reminder, every six months.
        let lower =
            #"{"age": 30, "sex": "other", "fitzpatrickSkinType": 4, "eyeColour": "brownOrBlack", "hairColour": "darkBrownOrBlack", "commonMoles": "upTo15", "atypicalMoleCount": 0, "freckling": "noneOrFew", "familyHistory": "none", "personalHistory": "none", "immunosuppression": [], "sunburnHistory": false, "inflammatoryBowelDisease": "none", "bodyMassIndex": 31, "intermittentSunExposure": false, "sunbedUse": "never"}"#
        let lowerID = UUID()
        let lowerAnswer = try await HTTP.send(method: "PUT", ingest + "/v1/patients/p-skin/melanoma-risk-profiles/\(lowerID)", json: lower)
        #expect(lowerAnswer.status == 201)
        #expect((try lowerAnswer.json() as? [String: Any])?["assessment"].flatMap { ($0 as? [String: Any])?["unansweredFactors"] as? [String] } == [])
        try await eventually("the reminder follows the new category") {
            try await HTTP.get(reminders).items().map { $0["repeats"] as? String } == ["everySixMonths"]
        }

        // Withdrawing the older (higher) profile: its alert is withdrawn, the reminder the newer one set stays.
        #expect(try await HTTP.send(method: "DELETE", ingest + "/v1/patients/p-skin/melanoma-risk-profiles/\(higherID)").status == 200)
        try await eventually("the higher category's alert is withdrawn") {
            try await HTTP.get(notification + "/v1/inbox?withdrawn=true", as: patient).items().contains {
                $0["withdrawn"] as? String == "profileWithdrawn"
            }
        }
        #expect(try await HTTP.get(reminders).items().map { $0["repeats"] as? String } == ["everySixMonths"])
        let scoring = stack.baseURL(ScoringService.name) + "/v1/patients/p-skin/melanoma-risk"
        #expect(try await HTTP.get(scoring).items().count == 1)

        // Withdrawing (resetting) the current profile cancels its reminder; an unknown profile is a 404, a second
        // withdrawal answers the first's receipt.
        #expect(try await HTTP.send(method: "DELETE", ingest + "/v1/patients/p-skin/melanoma-risk-profiles/\(lowerID)").status == 200)
        try await eventually("the self-check reminder is cancelled") { try await HTTP.get(reminders).items().isEmpty }
        try await eventually("no profile stands") { try await HTTP.get(scoring).items().isEmpty }
        #expect(try await HTTP.send(method: "DELETE", ingest + "/v1/patients/p-skin/melanoma-risk-profiles/\(lowerID)").status == 200)
        #expect(try await HTTP.send(method: "DELETE", ingest + "/v1/patients/p-skin/melanoma-risk-profiles/\(UUID())").status == 404)
        try await stack.shutdown()
    }
}
