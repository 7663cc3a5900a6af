import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import PostgresNIO
import ScoringService
import Synchronization
import Testing

/// The follow-up clock of a suspicious or uncertain skin photo, end to end with the stand-in classifier and a clock
/// the test moves by weeks: opened and told to the patient and the care team, reminders half-way, the care team
/// alerted when two weeks pass with nothing booked or found, a positive check-up starting 30 days for treatment, an
/// appointment stopping the clock and its cancellation starting it again, and each finding closing what it ends.
@Suite(.serialized, .stoppingStacks)
struct LesionFollowUpTests {
    /// A clock only the test moves.
    final class TestClock: Sendable {
        private let time: Mutex<Date>
        init(_ start: Date) { time = Mutex(start) }
        var now: Date { time.withLock { $0 } }
        func set(_ date: Date) { time.withLock { $0 = date } }
        var wallClock: WallClock { WallClock { [self] in now } }
    }

    static let day: TimeInterval = 86_400
    static let consultant = Caller.identity(Identity(subject: "dr-derm", role: .consultant))
    static let staff = Caller.identity(Identity(subject: "staff-1", role: .institution, institutionID: "st-mary"))

    @Test("a suspicious or uncertain answer opens a two-week check-up clock; reminders, escalation, findings and appointments move it")
    func clock() async throws {
        // Whole seconds: the dates the service answers are compared with these.
        let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let clock = TestClock(start)
        let model = PhotoClassificationTests.model
        let stack = try await TestStack.start([
            IngestService.definition,
            ScoringService.definition(tips: TipCatalog(), printer: PDFPrinter(browser: nil), classifiers: ClassifierModels([model])),
            NotificationService.definition(reminderCheck: .milliseconds(200), clock: clock.wallClock),
        ])
        let (ingest, notification) = (stack.baseURL(IngestService.name), stack.baseURL(NotificationService.name))
        let mole = Caller.identity(Identity(subject: "p-mole", role: .patient))
        let other = Caller.identity(Identity(subject: "p-other", role: .patient))
        for patient in ["p-mole", "p-other"] {
            #expect(
                try await HTTP.send(
                    method: "PUT", "\(ingest)/v1/patients/\(patient)/care-team/dr-derm", json: "{}",
                    as: .identity(Identity(subject: patient, role: .patient))
                ).status == 200)
        }
        // The care team is told when a follow-up opens, so notification must know it first: the grant reaches it on its
        // own topic, and under load after the photos' answers could.
        for patient in ["p-mole", "p-other"] {
            try await eventually("notification knows \(patient)'s care team") {
                try await HTTP.get("\(notification)/v1/patients/\(patient)/lesion-follow-ups", as: Self.consultant).status == 200
            }
        }
        for (patient, file, query) in [
            ("p-mole", "sharp.jpg", "bodySite=thigh&side=right&takenAt=2026-11-01T10:00:00Z"),
            ("p-mole", "sharp.png", "bodySite=forearm&side=left&takenAt=2026-11-01T10:01:00Z"),
            ("p-mole", "sharp.heic", "bodySite=upperBack&takenAt=2026-11-01T10:02:00Z"),
            ("p-other", "sharp.jpg", "bodySite=lowerLeg&side=left&takenAt=2026-11-01T10:03:00Z"),
        ] {
            let reply = try await PhotoTests.upload("\(ingest)/v1/patients/\(patient)/photos", UUID(), file, query: query)
            #expect(reply.status == 201, "\(reply.text)")
        }
        try await eventually("scoring knows the photos") {
            try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll("SELECT count(*)::int FROM known_photos", as: Int.self, logger: logger)
            } == [4]
        }
        let token = try await TestIdentity.shared.token(for: Identity(subject: "stand-in", role: .service, scopes: [ServiceScope.photosClassify]))
        let standIn = try await Subprocess.run(
            Paths.packageRoot.appendingPathComponent("scripts/test-support/stand-in-classifier").path,
            [
                "--brokers", stack.broker.bootstrapServers, "--ingest", ingest, "--token", token, "--model", model.name, "--model-version",
                model.version, "--probabilities", "thigh=0.82,forearm=0.4,upperBack=0.1,lowerLeg=0.7", "--photos", "4",
            ])
        #expect(standIn.status == 0, "\(standIn.output)")

        // Opened for the suspicious and the uncertain answers (not the reassuring one), due in two weeks.
        func followUps(_ patient: String, as caller: Caller) async throws -> [String: [String: Any]] {
            let items = try await HTTP.get("\(notification)/v1/patients/\(patient)/lesion-follow-ups", as: caller).items()
            return Dictionary(items.map { ($0["category"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        }
        try await eventually("three follow-ups are open") {
            let (mine, others) = (try await followUps("p-mole", as: mole), try await followUps("p-other", as: other))
            return mine.count == 2 && others.count == 1
        }
        let opened = try await followUps("p-mole", as: Self.consultant)
        #expect(Set(opened.keys) == ["suspicious", "uncertain"])
        for followUp in opened.values {
            #expect(followUp["stage"] as? String == "checkUp" && followUp["status"] as? String == "open", "\(followUp)")
            #expect(Timestamp.parse(followUp["dueAt"] as? String ?? "") == start.addingTimeInterval(14 * Self.day), "\(followUp)")
        }
        let thigh = try #require(opened["suspicious"]?["followUpId"] as? String)
        let forearm = try #require(opened["uncertain"]?["followUpId"] as? String)
        let shin = try #require(try await followUps("p-other", as: other)["suspicious"]?["followUpId"] as? String)

        func told(_ caller: Caller, _ category: String) async throws -> [[String: Any]] {
            try await HTTP.get("\(notification)/v1/inbox?limit=100", as: caller).items().filter {
                $0["kind"] as? String == "lesionFollowUp" && $0["category"] as? String == category
            }
        }
        try await eventually("the patient and the care team are told") {
            let (patient, team) = (try await told(mole, "checkUpOpened"), try await told(Self.consultant, "checkUpOpened"))
            return patient.count == 2 && team.count == 3
        }
        #expect(try await told(mole, "checkUpOpened").allSatisfy { ($0["body"] as? String ?? "").contains("within two weeks") })

        // Half-way: the patients are reminded.
        clock.set(start.addingTimeInterval(7 * Self.day + 60))
        try await eventually("each open follow-up reminds its patient") {
            let (mine, others) = (try await told(mole, "checkUpReminder"), try await told(other, "checkUpReminder"))
            return mine.count == 2 && others.count == 1
        }

        // A consultant's finding: the uncertain mole is benign, and the follow-up closes. Only a consultant of the
        // care team records one; a finding that does not follow from the stage is refused.
        let findings = { (id: String) in "\(notification)/v1/patients/p-mole/lesion-follow-ups/\(id)/findings" }
        #expect(try await HTTP.post(findings(forearm), json: #"{"finding": "benign"}"#, as: mole).status == 403)
        #expect(try await HTTP.post(findings(forearm), json: #"{"finding": "maybe"}"#, as: Self.consultant).status == 400)
        #expect(try await HTTP.post(findings(thigh), json: #"{"finding": "treated"}"#, as: Self.consultant).status == 409)
        #expect(try await HTTP.post(findings(UUID().uuidString), json: #"{"finding": "benign"}"#, as: Self.consultant).status == 404)
        let benign = try await HTTP.post(findings(forearm), json: #"{"finding": "benign"}"#, as: Self.consultant)
        #expect(benign.status == 201)
        let closed = try #require(try benign.json() as? [String: Any])
        #expect(closed["status"] as? String == "closed" && closed["outcome"] as? String == "benign")
        #expect(try await HTTP.post(findings(forearm), json: #"{"finding": "benign"}"#, as: Self.consultant).status == 200)
        #expect(try await HTTP.post(findings(forearm), json: #"{"finding": "positive"}"#, as: Self.consultant).status == 409)

        // Two weeks pass with nothing booked: the care team is alerted, urgently, about each open one; the second
        // reminder, overtaken, is not sent.
        clock.set(start.addingTimeInterval(14 * Self.day + 60))
        try await eventually("the care team is alerted of both overdue check-ups") {
            try await told(Self.consultant, "checkUpOverdue").count == 2
        }
        let overdue = try await told(Self.consultant, "checkUpOverdue")
        #expect(Set(overdue.compactMap { $0["aboutId"] as? String }) == [thigh, shin])
        #expect(overdue.allSatisfy { $0["severity"] as? String == "urgent" })
        #expect(try await told(mole, "checkUpReminder").count == 2)
        #expect(try await followUps("p-mole", as: mole)["suspicious"]?["status"] as? String == "overdue")

        // Both check-ups find the moles positive: 30 days for treatment start.
        let treatmentStart = clock.now
        for (patient, id) in [("p-mole", thigh), ("p-other", shin)] {
            let reply = try await HTTP.post(
                "\(notification)/v1/patients/\(patient)/lesion-follow-ups/\(id)/findings", json: #"{"finding": "positive"}"#, as: Self.consultant)
            #expect(reply.status == 201)
            let followUp = try #require(try reply.json() as? [String: Any])
            #expect(followUp["stage"] as? String == "treatment" && followUp["status"] as? String == "open")
            #expect(Timestamp.parse(followUp["dueAt"] as? String ?? "") == treatmentStart.addingTimeInterval(30 * Self.day))
        }
        try await eventually("the patients are told treatment is due") {
            let (mine, others) = (try await told(mole, "treatmentOpened"), try await told(other, "treatmentOpened"))
            return mine.count == 1 && others.count == 1
        }

        // p-mole books an appointment before the date: their clock stops; p-other's runs on.
        let slotStarts = Date().addingTimeInterval(20 * Self.day)
        let slot =
            #"{"service": "dermatology", "startsAt": "\#(Timestamp.format(slotStarts))", "endsAt": "\#(Timestamp.format(slotStarts.addingTimeInterval(1800)))"}"#
        #expect(try await HTTP.send(method: "PUT", "\(notification)/v1/institutions/st-mary/slots/derm-1", json: slot, as: Self.staff).status == 201)
        let booking = try await HTTP.post(
            "\(notification)/v1/patients/p-mole/appointments", json: #"{"institutionId": "st-mary", "slotId": "derm-1"}"#, as: mole)
        #expect(booking.status == 201)
        let appointment = try #require((try booking.json() as? [String: Any])?["appointmentId"] as? String)
        #expect(try await followUps("p-mole", as: mole)["suspicious"]?["status"] as? String == "appointmentBooked")

        clock.set(treatmentStart.addingTimeInterval(15 * Self.day + 60))
        try await eventually("p-other is reminded of treatment") { try await told(other, "treatmentReminder").count == 1 }
        #expect(try await told(mole, "treatmentReminder").isEmpty)

        clock.set(treatmentStart.addingTimeInterval(30 * Self.day + 60))
        try await eventually("the care team is alerted of p-other's overdue treatment") {
            try await told(Self.consultant, "treatmentOverdue").count == 1
        }
        #expect(try await told(Self.consultant, "treatmentOverdue").map { $0["aboutId"] as? String } == [shin])

        // The appointment is cancelled: p-mole's clock runs again, and it has run out.
        #expect(try await HTTP.send(method: "DELETE", "\(notification)/v1/patients/p-mole/appointments/\(appointment)", as: mole).status == 204)
        try await eventually("the care team is alerted of p-mole's overdue treatment") {
            try await told(Self.consultant, "treatmentOverdue").count == 2
        }

        // Treated: the follow-up closes.
        let treated = try await HTTP.post(findings(thigh), json: #"{"finding": "treated"}"#, as: Self.consultant)
        #expect(treated.status == 201)
        let done = try #require(try treated.json() as? [String: Any])
        #expect(done["status"] as? String == "closed" && done["outcome"] as? String == "treated")
        #expect((done["findings"] as? [[String: Any]])?.compactMap { $0["finding"] as? String } == ["positive", "treated"])
        // Nobody else reads them: another patient, and a consultant without a grant.
        #expect(try await HTTP.get("\(notification)/v1/patients/p-mole/lesion-follow-ups", as: other).status == 403)
        #expect(
            try await HTTP.get(
                "\(notification)/v1/patients/p-mole/lesion-follow-ups", as: .identity(Identity(subject: "dr-other", role: .consultant))
            ).status == 403)
        try await stack.shutdown()
    }
}
