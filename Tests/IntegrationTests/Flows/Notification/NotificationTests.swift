import CaretideDomain
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

/// Notifications for every recipient: the care team hears of a patient's findings while the patient's grant is in
/// force, consultants advise, patients hear of results as they are released, and each reads and marks only their own
/// inbox.
@Suite(.serialized, .stoppingStacks) struct NotificationTests {
    static let services = [IngestService.definition, ScoringService.definition, NotificationService.definition]
    static let consultant = Caller.identity(Identity(subject: "dr-care", role: .consultant))
    static let otherConsultant = Caller.identity(Identity(subject: "dr-other", role: .consultant))

    static func urgentReading(_ ingest: String, patient: String) async throws {
        let reply = try await HTTP.post(
            ingest + "/v1/patients/\(patient)/measurements/blood-pressure",
            json: #"{"measurementId": "\#(UUID())", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#)
        #expect(reply.status == 201, "\(reply.text)")
    }

    @Test(
        "a consultant with the patient's grant is told of an urgent finding, reads and acknowledges it in their own inbox, and loses it when the grant is revoked"
    )
    func careTracking() async throws {
        let stack = try await TestStack.start(Self.services)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/patients/p-care/care-team/dr-care", json: "{}").status == 200)
        try await eventually("notification applied the grant") {
            try await HTTP.get(notification + "/v1/patients/p-care/alerts", as: Self.consultant).status == 200
        }
        try await Self.urgentReading(ingest, patient: "p-care")

        // One notification for the patient, one for the consultant, both urgent, both on the alerts topic.
        let raised = try await alerts.receive(2).compactMap { try EventCodec().decode($0.value).payload(as: AlertRaised.self) }
        #expect(Set(raised.map { "\($0.recipientRole?.rawValue ?? "")/\($0.recipientID ?? "")" }) == ["patient/p-care", "consultant/dr-care"])
        #expect(raised.allSatisfy { $0.severity == .urgent && $0.category == "hypertensiveCrisis" })

        let inbox = try await HTTP.get(notification + "/v1/inbox", as: Self.consultant).items()
        #expect(inbox.count == 1 && inbox.first?["patientId"] as? String == "p-care" && inbox.first?["severity"] as? String == "urgent")
        let unread = try await HTTP.get(notification + "/v1/inbox/unread-count", as: Self.consultant).json() as? [String: Any]
        #expect(unread?["unread"] as? Int == 1 && unread?["urgent"] as? Int == 1)
        #expect(try await HTTP.get(notification + "/v1/inbox", as: Self.otherConsultant).items().isEmpty)

        // Marked on the server: every device sees it. Nobody else can mark it.
        let id = try #require(inbox.first?["notificationId"] as? String)
        #expect(try await HTTP.send(method: "POST", notification + "/v1/inbox/\(id)/acknowledge", as: Self.otherConsultant).status == 404)
        #expect(
            try await HTTP.send(
                method: "POST", notification + "/v1/inbox/\(id)/acknowledge", as: .identity(Identity(subject: "p-care", role: .patient))
            ).status == 404)
        let acknowledged = try await HTTP.send(method: "POST", notification + "/v1/inbox/\(id)/acknowledge", as: Self.consultant)
        let acknowledgedBody = try acknowledged.json() as? [String: Any]
        #expect(acknowledged.status == 200 && acknowledgedBody?["acknowledgedAt"] != nil)
        let afterwards = try await HTTP.get(notification + "/v1/inbox/unread-count", as: Self.consultant).json() as? [String: Any]
        #expect(afterwards?["unread"] as? Int == 0)
        #expect(try await HTTP.get(notification + "/v1/inbox", as: Self.consultant).items().first?["acknowledged"] as? Bool == true)
        #expect(try await HTTP.get(notification + "/v1/inbox?unread=true", as: Self.consultant).items().isEmpty)
        // The patient's own inbox is theirs: their notification, unread.
        let own = try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-care", role: .patient))).items()
        #expect(own.count == 1 && own.first?["read"] as? Bool == false)

        // Revoked: what the consultant was told about the patient goes with the grant.
        #expect(try await HTTP.send(method: "DELETE", ingest + "/v1/patients/p-care/care-team/dr-care").status == 204)
        try await eventually("the consultant's inbox no longer shows the patient") {
            try await HTTP.get(notification + "/v1/inbox", as: Self.consultant).items().isEmpty
        }
        await alerts.close()
        try await stack.shutdown()
    }

    @Test(
        "alert fatigue: a second attention finding of the same kind and category the same day does not alert again; another category or an urgent one does"
    )
    func oneAttentionAlertPerCategoryAndDay() async throws {
        let stack = try await TestStack.start(Self.services)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let patient = Caller.identity(Identity(subject: "p-fatigue", role: .patient))
        for (systolic, diastolic) in [(150, 95), (152, 96), (134, 84), (190, 100)] {
            let reply = try await HTTP.post(
                ingest + "/v1/patients/p-fatigue/measurements/blood-pressure",
                json: #"{"measurementId": "\#(UUID())", "systolic": \#(systolic), "diastolic": \#(diastolic), "takenAt": "2026-11-20T08:00:00Z"}"#,
                as: patient)
            #expect(reply.status == 201)
        }
        // The crisis is the last reading of the patient's partition: once it is in, the others were decided.
        func readings() async throws -> [[String: Any]] {
            try await HTTP.get(notification + "/v1/inbox", as: patient).items().filter { $0["kind"] as? String == "bloodPressure" }
        }
        try await eventually("the crisis is in the inbox") { try await readings().contains { $0["severity"] as? String == "urgent" } }
        let categories = try await readings().compactMap { $0["category"] as? String }
        #expect(categories.sorted() == ["hypertensiveCrisis", "stage1Hypertension", "stage2Hypertension"])
        // Every reading was still assessed: the finding is on record, only the repeated alert is held back.
        let assessed = try await HTTP.get(stack.baseURL(ScoringService.name) + "/v1/patients/p-fatigue/assessments?kind=bloodPressure", as: patient)
            .items()
        #expect(assessed.count == 4)
        try await stack.shutdown()
    }

    @Test("a consultant's advice reaches the patient's inbox with its text; the alerts topic says only that advice arrived")
    func advice() async throws {
        let stack = try await TestStack.start(Self.services)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let url = notification + "/v1/patients/p-advice/advice"
        let advice = #"{"text": "Measure twice a week and bring the readings to your next visit.", "severity": "attention"}"#
        // Without a grant, and from the patient, refused.
        #expect(try await HTTP.post(url, json: advice, as: Self.consultant).status == 403)
        #expect(try await HTTP.post(url, json: advice).status == 403)
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/patients/p-advice/care-team/dr-care", json: "{}").status == 200)
        var receipt: HTTP.Reply?
        try await eventually("notification applied the grant") {
            let answer = try await HTTP.post(url, json: advice, as: Self.consultant)
            if answer.status == 201 { receipt = answer }
            return answer.status == 201
        }
        #expect(try await HTTP.post(url, json: #"{"text": ""}"#, as: Self.consultant).status == 400)

        let inbox = try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-advice", role: .patient))).items()
        #expect(inbox.count == 1 && inbox.first?["kind"] as? String == "advice" && inbox.first?["severity"] as? String == "attention")
        // The receipt names the notification the patient has (its id is made from the advice and the patient).
        let notificationID = try #require(receipt?.json() as? [String: Any])["notificationId"] as? String
        #expect(notificationID != nil && inbox.first?["notificationId"] as? String == notificationID)
        #expect(inbox.first?["text"] as? String == "Measure twice a week and bring the readings to your next visit.")
        let published = try await alerts.receive(1)
        #expect(!String(decoding: published[0].value, as: UTF8.self).contains("Measure twice"))
        #expect(try EventCodec().decode(published[0].value).payload(as: AlertRaised.self)?.kind == "advice")
        // The advice was audited as a write by the consultant.
        let log = try await HTTP.get(notification + "/v1/patients/p-advice/access-log").items()
        #expect(log.contains { $0["subject"] as? String == "dr-care" && $0["action"] as? String == "write" })
        await alerts.close()
        try await stack.shutdown()
    }

    @Test(
        "the patient is told when a report is released, and again when a revision is, with the count out of range; the care team hears of the finding at once"
    )
    func resultsReady() async throws {
        let stack = try await TestStack.start(Self.services)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/patients/p-ready/care-team/dr-care", json: "{}").status == 200)
        try await eventually("notification applied the grant") {
            try await HTTP.get(notification + "/v1/patients/p-ready/alerts", as: Self.consultant).status == 200
        }
        #expect(
            try await HTTP.send(
                method: "PUT", ingest + "/v1/institutions/st-mary/release-rules",
                json: #"{"rules": [{"testCode": "*", "abnormalOnly": true, "release": "hold", "reason": "discuss first"}]}"#
            ).status == 200)
        func report(_ glucose: Double, _ haemoglobin: Double) -> String {
            #"{"patientId": "p-ready", "reportedAt": "2026-11-21T06:10:00Z", "items": [{"code": "2345-7", "name": "Glucose", "value": \#(glucose), "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99}, {"code": "718-7", "name": "Haemoglobin", "value": \#(haemoglobin), "unit": "g/dL", "referenceLow": 12, "referenceHigh": 15.5}]}"#
        }
        let patient = Caller.identity(Identity(subject: "p-ready", role: .patient))
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/institutions/st-mary/exam-results/R-1", json: report(182, 11)).status == 201)
        // Held: the consultant hears of the finding, the patient of nothing yet.
        try await eventually("the consultant is told of the finding") {
            try await HTTP.get(notification + "/v1/inbox", as: Self.consultant).items().first?["kind"] as? String == "examResult"
        }
        #expect(try await HTTP.get(notification + "/v1/inbox", as: patient).items().isEmpty)

        #expect(try await HTTP.send(method: "POST", ingest + "/v1/institutions/st-mary/exam-results/R-1/release").status == 200)
        try await eventually("the patient is told the results are ready") {
            try await HTTP.get(notification + "/v1/inbox", as: patient).items().first?["kind"] as? String == "examResultReady"
        }
        let ready = try await HTTP.get(notification + "/v1/inbox", as: patient).items()
        #expect(ready.count == 1 && ready.first?["category"] as? String == "released" && ready.first?["outOfRangeCount"] as? Int == 2)

        // A normal revision is released at once: revised, nothing out of range.
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/institutions/st-mary/exam-results/R-1", json: report(90, 13)).status == 200)
        try await eventually("the patient is told of the revision") {
            try await HTTP.get(notification + "/v1/inbox", as: patient).items().first?["category"] as? String == "revised"
        }
        #expect(try await HTTP.get(notification + "/v1/inbox", as: patient).items().first?["outOfRangeCount"] as? Int == 0)

        // Entered in error: the results-ready notices are withdrawn.
        #expect(try await HTTP.send(method: "POST", ingest + "/v1/institutions/st-mary/exam-results/R-1/entered-in-error").status == 200)
        try await eventually("the notices are withdrawn") { try await HTTP.get(notification + "/v1/inbox", as: patient).items().isEmpty }
        #expect(
            try await HTTP.get(notification + "/v1/inbox?withdrawn=true", as: patient).items().allSatisfy {
                $0["withdrawn"] as? String == "enteredInError"
            })
        try await stack.shutdown()
    }

    @Test("during quiet hours a notification reaches the inbox at once and its announcement waits until they end; urgent ones go through")
    func quietHours() async throws {
        let stack = try await TestStack.start([
            IngestService.definition, ScoringService.definition, NotificationService.definition(reminderCheck: .milliseconds(200)),
        ])
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let patient = Caller.identity(Identity(subject: "p-quiet", role: .patient))
        // Quiet from an hour ago to an hour from now, on the patient's clock.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Kolkata")!
        func local(_ date: Date) -> String {
            String(format: "%02d:%02d", calendar.component(.hour, from: date), calendar.component(.minute, from: date))
        }
        let preferences =
            #"{"timeZone": "Asia/Kolkata", "quietHours": {"from": "\#(local(Date().addingTimeInterval(-3600)))", "to": "\#(local(Date().addingTimeInterval(3600)))"}}"#
        #expect(try await HTTP.send(method: "PUT", notification + "/v1/inbox/preferences", json: preferences, as: patient).status == 200)
        #expect(try await HTTP.get(notification + "/v1/inbox/preferences", as: patient).text.contains("Asia/Kolkata"))
        #expect(
            try await HTTP.send(method: "PUT", notification + "/v1/inbox/preferences", json: #"{"timeZone": "Nowhere/Land"}"#, as: patient).status
                == 400)

        // Stage 2 (attention): in the inbox at once, not announced.
        #expect(
            try await HTTP.post(
                ingest + "/v1/patients/p-quiet/measurements/blood-pressure",
                json: #"{"measurementId": "\#(UUID())", "systolic": 150, "diastolic": 95, "takenAt": "2026-11-20T08:00:00Z"}"#
            ).status == 201)
        try await eventually("the notification is in the inbox") { try await HTTP.get(notification + "/v1/inbox", as: patient).items().count == 1 }
        // Crisis (urgent): announced at once.
        try await Self.urgentReading(ingest, patient: "p-quiet")
        let first = try await alerts.receive(1)
        #expect(try EventCodec().decode(first[0].value).payload(as: AlertRaised.self)?.severity == .urgent)
        #expect(try await alerts.drain(for: .seconds(2)).isEmpty)

        // When the quiet hours end, the held announcement leaves, once.
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query("UPDATE held_alerts SET deliver_at = now() - interval '1 second'", logger: logger)
        }
        let released = try await alerts.receive(1)
        #expect(try EventCodec().decode(released[0].value).payload(as: AlertRaised.self)?.severity == .attention)
        #expect(try await alerts.drain(for: .seconds(2)).isEmpty)
        await alerts.close()
        try await stack.shutdown()
    }

    @Test("an urgent finding no consultant acknowledges in time escalates to the on-call channel, once; an acknowledged one does not")
    func escalation() async throws {
        let stack = try await TestStack.start([
            IngestService.definition, ScoringService.definition, NotificationService.definition(reminderCheck: .milliseconds(200)),
        ])
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        for patient in ["p-late", "p-seen"] {
            #expect(try await HTTP.send(method: "PUT", ingest + "/v1/patients/\(patient)/care-team/dr-care", json: "{}").status == 200)
        }
        try await eventually("notification applied the grants") {
            let statuses = [
                try await HTTP.get(notification + "/v1/patients/p-late/alerts", as: Self.consultant).status,
                try await HTTP.get(notification + "/v1/patients/p-seen/alerts", as: Self.consultant).status,
            ]
            return statuses == [200, 200]
        }
        try await Self.urgentReading(ingest, patient: "p-late")
        try await Self.urgentReading(ingest, patient: "p-seen")
        _ = try await alerts.receive(4)
        // The consultant acknowledges one of the two in time.
        let seen = try #require(
            try await HTTP.get(notification + "/v1/inbox", as: Self.consultant).items().first { $0["patientId"] as? String == "p-seen" })
        #expect(
            try await HTTP.send(
                method: "POST", notification + "/v1/inbox/\(seen["notificationId"] as? String ?? "")/acknowledge", as: Self.consultant
            ).status == 200)
        // Thirty minutes pass.
        try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query("UPDATE escalations SET due_at = now() - interval '1 second'", logger: logger)
        }
        let escalated = try await alerts.receive(1).compactMap { try EventCodec().decode($0.value) }
        let alert = try #require(escalated.first?.payload(as: AlertRaised.self))
        #expect(escalated.first?.patientID == "p-late")
        #expect(alert.kind == "escalation" && alert.recipientRole == .onCall && alert.recipientID == "on-call" && alert.severity == .urgent)
        #expect(try await alerts.drain(for: .seconds(2)).isEmpty)
        let outcomes = try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.query("SELECT patient_id, outcome FROM escalations ORDER BY patient_id", logger: logger).collectAll()
                .map { try $0.decode((String, String).self) }
        }
        #expect(outcomes.map { "\($0.0):\($0.1)" } == ["p-late:escalated", "p-seen:acknowledged"])
        await alerts.close()
        try await stack.shutdown()
    }

    @Test(
        "the alerts contract: keyed by recipient, one id per source and recipient, each recipient's messages numbered without gaps under concurrency")
    func alertsContract() async throws {
        let stack = try await TestStack.start(Self.services)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/patients/p-seq/care-team/dr-care", json: "{}").status == 200)
        try await eventually("notification applied the grant") {
            try await HTTP.get(notification + "/v1/patients/p-seq/alerts", as: Self.consultant).status == 200
        }
        // Twenty readings at once, then one corrected: twenty raised for each recipient, then a withdrawal and a
        // raise for each.
        let ids = (0..<20).map { _ in UUID().uuidString.lowercased() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask {
                    let reply = try await HTTP.post(
                        ingest + "/v1/patients/p-seq/measurements/blood-pressure",
                        json: #"{"measurementId": "\#(id)", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#)
                    #expect(reply.status == 201)
                }
            }
            try await group.waitForAll()
        }
        #expect(
            try await HTTP.send(
                method: "PUT", ingest + "/v1/patients/p-seq/measurements/blood-pressure/\(ids[0])",
                json: #"{"measurementId": "\#(ids[0])", "systolic": 185, "diastolic": 100, "takenAt": "2026-11-20T08:00:00Z"}"#
            ).status == 200)
        // At least 22 each (care-tracking flags about the run of readings may add more), collected until quiet.
        let messages = try await alerts.receive(44, timeout: .seconds(120)) + (try await alerts.drain(for: .seconds(3)))
        for recipient in ["p-seq", "dr-care"] {
            let mine = messages.filter { $0.key == recipient }
            let sequences = try mine.map { message -> Int in
                let event = try EventCodec().decode(message.value)
                return event.payload(as: AlertRaised.self)?.sequence ?? event.payload(as: AlertWithdrawn.self)?.sequence ?? 0
            }
            // In the order they arrive in the recipient's partition: 1, 2, 3… with no gap.
            #expect(sequences.count >= 22 && sequences == Array(1...sequences.count), "\(recipient): \(sequences)")
        }
        // A withdrawal names the alert it withdraws, for the same recipient.
        let withdrawals = try messages.compactMap { try EventCodec().decode($0.value).payload(as: AlertWithdrawn.self) }
        let raised = try messages.compactMap { try EventCodec().decode($0.value).payload(as: AlertRaised.self) }
        #expect(
            withdrawals.count == 2
                && withdrawals.allSatisfy { withdrawal in
                    raised.contains { $0.alertID == withdrawal.alertID && $0.recipientID == withdrawal.recipientID }
                })
        // The id is made from the source and the recipient: anyone can recompute it to de-duplicate.
        #expect(
            raised.allSatisfy {
                $0.alertID
                    == UUID.named(
                        "notification/\($0.sourceEventID.uuidString.lowercased())/\($0.recipientRole?.rawValue ?? "")/\($0.recipientID ?? "")")
            })
        await alerts.close()
        try await stack.shutdown()
    }

    @Test("an operator's broadcast reaches every known patient's inbox once, an area's subscribers, or listed patients; nobody else may send one")
    func broadcasts() async throws {
        let stack = try await TestStack.start([NotificationService.definition(reminderCheck: .milliseconds(200))])
        let notification = stack.baseURL(NotificationService.name)
        let operatorCaller = Caller.identity(Identity(subject: "ops-1", role: .operator))
        // Patients notification-service knows: by their preferences and reminders.
        for patient in ["p-b1", "p-b2", "p-b3"] {
            #expect(
                try await HTTP.send(
                    method: "PUT", notification + "/v1/inbox/preferences", json: #"{"timeZone": "UTC"}"#,
                    as: .identity(Identity(subject: patient, role: .patient))
                ).status == 200)
        }
        #expect(
            try await HTTP.post(
                notification + "/v1/patients/p-b4/reminders",
                json: #"{"topic": "weight", "repeats": "weekly", "startsOn": "2030-01-01", "at": "08:00", "timeZone": "UTC"}"#
            ).status == 201)
        let url = notification + "/v1/broadcasts"
        let everyone =
            #"{"broadcastId": "6f1d2c3b-0000-4000-8000-00000000b001", "kind": "healthInformation", "text": "Flu vaccination is open from Monday.", "audience": {"all": true}}"#
        #expect(try await HTTP.post(url, json: everyone, as: .identity(Identity(subject: "p-b1", role: .patient))).status == 403)
        #expect(try await HTTP.post(url, json: #"{"kind": "gossip", "text": "x", "audience": {}}"#, as: operatorCaller).status == 400)
        #expect(try await HTTP.post(url, json: everyone, as: operatorCaller).status == 202)
        #expect(try await HTTP.post(url, json: everyone, as: operatorCaller).status == 200)
        try await eventually("the broadcast is delivered") {
            (try await HTTP.get(url + "/6f1d2c3b-0000-4000-8000-00000000b001", as: operatorCaller).json() as? [String: Any])?["completed"] as? Bool
                == true
        }
        let status = try await HTTP.get(url + "/6f1d2c3b-0000-4000-8000-00000000b001", as: operatorCaller).json() as? [String: Any]
        #expect(status?["delivered"] as? Int == 4)
        for patient in ["p-b1", "p-b2", "p-b3", "p-b4"] {
            let inbox = try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: patient, role: .patient))).items()
            #expect(
                inbox.count == 1 && inbox.first?["kind"] as? String == "broadcast"
                    && inbox.first?["text"] as? String == "Flu vaccination is open from Monday.")
            #expect(inbox.first?["title"] as? String == "Health information")
        }
        // Listed patients only.
        let listed = #"{"kind": "activity", "text": "Guided walk on Saturday.", "audience": {"patientIds": ["p-b2", "p-new"]}}"#
        #expect(try await HTTP.post(url, json: listed, as: operatorCaller).status == 202)
        try await eventually("the listed patients have it") {
            try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-new", role: .patient))).items().count == 1
        }
        // An activity is titled as one, not as health information.
        let activity = try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-new", role: .patient))).items().first
        #expect(activity?["title"] as? String == "Activity" && (activity?["body"] as? String)?.contains("activity") == true)
        #expect(try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-b1", role: .patient))).items().count == 1)
        #expect(try await HTTP.get(notification + "/v1/inbox", as: .identity(Identity(subject: "p-b2", role: .patient))).items().count == 2)
        try await stack.shutdown()
    }
}
