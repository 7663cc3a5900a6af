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
import Testing

/// The classifier contract end to end, through the broker: ingest announces each photo with a signed link; a
/// STAND-IN classifier process (scripts/test-support/stand-in-classifier, which classifies nothing) fetches each photo
/// and answers; scoring checks the answer, stores it with its certainty and tells the patient, and the care team of a
/// suspicious one at once; answers from an unregistered model, about an unknown photo, or with a probability outside
/// 0–1 are dead-lettered with the reason.
@Suite(.serialized, .stoppingStacks)
struct PhotoClassificationTests {
    static let model = ClassifierModels.Model(name: "stand-in-not-a-classifier", version: "1")

    @Test("a classifier's answers reach the patient with their certainty and warning, a suspicious one the care team; refusals are dead-lettered")
    func contract() async throws {
        let stack = try await TestStack.start([
            IngestService.definition,
            ScoringService.definition(tips: TipCatalog(), printer: PDFPrinter(browser: nil), classifiers: ClassifierModels([Self.model])),
            NotificationService.definition,
        ])
        let (ingest, scoring, notification) = (
            stack.baseURL(IngestService.name), stack.baseURL(ScoringService.name), stack.baseURL(NotificationService.name)
        )
        let patient = Caller.identity(Identity(subject: "p-mole", role: .patient))
        let consultant = Caller.identity(Identity(subject: "dr-derm", role: .consultant))
        #expect(try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-mole/care-team/dr-derm", json: "{}").status == 200)
        // notification looks the care team up when an answer arrives: the grant is there before any answer can be.
        try await eventually("notification has the grant") {
            try await HTTP.get("\(notification)/v1/patients/p-mole/lesion-follow-ups", as: consultant).status == 200
        }
        let photos = ingest + "/v1/patients/p-mole/photos"
        let (thigh, forearm, back) = (UUID(), UUID(), UUID())
        for (id, file, query) in [
            (thigh, "sharp.jpg", "bodySite=thigh&side=right&takenAt=2026-11-01T10:00:00Z"),
            (forearm, "sharp.png", "bodySite=forearm&side=left&takenAt=2026-11-01T10:01:00Z"),
            (back, "sharp.heic", "bodySite=upperBack&takenAt=2026-11-01T10:02:00Z"),
        ] {
            #expect(try await PhotoTests.upload(photos, id, file, query: query).status == 201)
        }

        // scoring has read the three announcements (an answer that outran one would be dead-lettered, to be replayed).
        try await eventually("scoring knows the photos") {
            try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll("SELECT count(*)::int FROM known_photos", as: Int.self, logger: logger)
            } == [3]
        }
        // The stand-in classifier, a process of its own, with a token of its own.
        let token = try await TestIdentity.shared.token(for: Identity(subject: "stand-in", role: .service, scopes: [ServiceScope.photosClassify]))
        let standIn = try await Subprocess.run(
            Paths.packageRoot.appendingPathComponent("scripts/test-support/stand-in-classifier").path,
            [
                "--brokers", stack.broker.bootstrapServers, "--ingest", ingest, "--token", token, "--model", Self.model.name, "--model-version",
                Self.model.version, "--probabilities", "thigh=0.82,forearm=0.4,upperBack=0.1", "--photos", "3",
            ])
        #expect(standIn.status == 0, "\(standIn.output)")

        // The patient hears of all three, each with its category; the consultant of the suspicious one alone.
        try await eventually("the patient is told of the three answers") {
            try await HTTP.get(notification + "/v1/inbox", as: patient).items().filter { $0["kind"] as? String == "lesionPhoto" }.count == 3
        }
        let told = try await HTTP.get(notification + "/v1/inbox", as: patient).items().filter { $0["kind"] as? String == "lesionPhoto" }
        #expect(Set(told.compactMap { $0["category"] as? String }) == ["suspicious", "uncertain", "notSuspicious"])
        try await eventually("the consultant is told of the suspicious one") {
            try await HTTP.get(notification + "/v1/inbox", as: consultant).items().contains { $0["kind"] as? String == "lesionPhoto" }
        }
        let consultantTold = try await HTTP.get(notification + "/v1/inbox", as: consultant).items().filter { $0["kind"] as? String == "lesionPhoto" }
        #expect(consultantTold.map { $0["category"] as? String } == ["suspicious"])

        // scoring keeps each answer with its certainty, |p − 0.5| × 2 × 100 %, and the tip's warning.
        let assessed = try await HTTP.get(scoring + "/v1/patients/p-mole/assessments?kind=lesionPhoto").items()
        var certainty: [String: Double] = [:]
        for item in assessed {
            let values = item["values"] as? [String: Any]
            certainty[item["subjectId"] as? String ?? ""] = values?["certaintyPercent"] as? Double
            #expect((item["tipText"] as? String ?? "").contains("can be wrong"), "\(item)")
        }
        #expect(
            certainty == [thigh.uuidString.lowercased(): 64, forearm.uuidString.lowercased(): 20, back.uuidString.lowercased(): 80])
        // The report's photo timeline: by body site, each with its answer and certainty, the two advising a
        // dermatologist marked.
        let report = try await HTTP.get(scoring + "/v1/patients/p-mole/report?from=2026-11-01&to=2026-11-02", as: patient)
        #expect(report.status == 200 && report.text.contains("<h2>Skin photos</h2>"))
        #expect(report.text.contains("Photos taken: 3. Answers advising a dermatologist, marked ▲: 2."))
        #expect(report.text.contains("thigh (right)") && report.text.contains("64 %") && report.text.contains("Not suspicious: keep watching it"))

        // Refused with the reason: a model nobody registered, a photo scoring never saw, a probability outside 0–1.
        let deadLetters = try KafkaProbe(stack.kafka, topic: Topic.deadLetter.name)
        let producer = try KafkaProducer(configuration: stack.kafka, logger: TestLogging.logger("classifier"))
        func answer(_ photo: UUID, model: String = Self.model.name, probability: String = "0.7") -> OutgoingMessage {
            OutgoingMessage(
                topic: Topic.photoClassifications.name, key: "p-mole",
                value: Array(
                    #"{"eventId": "\#(UUID())", "eventType": "lesion-photo.classified", "schemaVersion": 1, "occurredAt": "2026-11-01T08:00:00Z", "producer": "outside", "patientId": "p-mole", "payload": {"photoId": "\#(photo)", "model": "\#(model)", "modelVersion": "1", "melanomaProbability": \#(probability), "classifiedAt": "2026-11-24T08:00:00Z"}}"#
                        .utf8))
        }
        try await producer.send([answer(forearm, model: "unvalidated-net"), answer(UUID()), answer(forearm, probability: "1.5")])
        let dead = try await deadLetters.receive(3)
        // A schema's refusal comes before the lanes, so the order of the three is not fixed.
        let reasons = dead.map { $0.headers[EventHeader.deadLetterReason] ?? "" }
        #expect(reasons.filter { $0.contains("unvalidated-net 1 is not registered") }.count == 1, "\(reasons)")
        #expect(reasons.filter { $0.contains("no photo") && $0.contains("of this patient is known") }.count == 1, "\(reasons)")
        #expect(reasons.filter { $0.contains("/payload/melanomaProbability") }.count == 1, "\(reasons)")
        #expect(try await HTTP.get(scoring + "/v1/patients/p-mole/assessments?kind=lesionPhoto").items().count == 3)

        // Deleting the suspicious photo withdraws its assessment and the alerts about it.
        #expect(try await HTTP.send(method: "DELETE", "\(photos)/\(thigh)").status == 204)
        try await eventually("the consultant's alert is withdrawn") {
            try await HTTP.get(notification + "/v1/inbox?withdrawn=true", as: consultant).items().contains {
                $0["withdrawn"] as? String == "photoDeleted"
            }
        }
        #expect(try await HTTP.get(scoring + "/v1/patients/p-mole/assessments?kind=lesionPhoto&standing=true").items().count == 2)
        await deadLetters.close()
        await producer.shutdown()
        try await stack.shutdown()
    }
}
