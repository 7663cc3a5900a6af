import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import ScoringService
import Testing

/// The patient's profile over HTTP against the real database and broker: written by the patient and by institutions'
/// HL7 v2 and FHIR messages, each change a revision with its source; the name on released reports; only sex and date
/// of birth leaving ingest, on `caretide.patients`; the melanoma rule and the diet analysis taking them when a request
/// does not say.
@Suite(.serialized, .stoppingStacks) struct ProfileTests {
    static let ada =
        #"{"name": {"family": "Okafor", "given": ["Ada"]}, "sex": "female", "birthDate": "1968-04-02", "language": "en", "timeZone": "Europe/London"}"#

    static func revisions(_ url: String) async throws -> [[String: Any]] { try await HTTP.get(url + "/revisions").items() }

    static func put(_ url: String, _ json: String, ifMatch: String) async throws -> HTTP.Reply {
        try await HTTP.send(
            method: "PUT", url, body: Data(json.utf8), as: .owner, headers: ["Content-Type": "application/json", "If-Match": ifMatch])
    }

    @Test(
        "a profile written by the patient (ETag, If-Match, every bad field named) and by an institution's HL7 PID and FHIR Patient, each a revision with its source; released reports name the patient; the topic carries sex and date of birth alone"
    )
    func doorsAndReports() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        let probe = try KafkaProbe(stack.kafka, topic: Topic.patients.name)

        // The patient's own door.
        let profile = "\(ingest)/v1/patients/p-prof/profile"
        #expect(try await HTTP.get(profile).status == 404)
        let created = try await HTTP.send(method: "PUT", profile, json: Self.ada)
        #expect(created.status == 201 && created.header("ETag") == #""1""#)
        let read = try await HTTP.get(profile)
        let answer = try #require(try read.json() as? [String: Any])
        #expect(read.header("ETag") == #""1""# && answer["revision"] as? Int == 1)
        let stored = try #require(answer["profile"] as? [String: Any])
        #expect((stored["name"] as? [String: Any])?["family"] as? String == "Okafor" && stored["birthDate"] as? String == "1968-04-02")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/London")!
        let expectedAge = calendar.dateComponents([.year], from: calendar.date(from: DateComponents(year: 1968, month: 4, day: 2))!, to: Date()).year
        #expect(answer["age"] as? Int == expectedAge)
        #expect((answer["source"] as? [String: Any])?["role"] as? String == "patient")
        let again = try await HTTP.send(method: "PUT", profile, json: Self.ada)
        #expect(again.status == 200 && again.text.contains(#""unchanged""#))
        let moved = Self.ada.replacingOccurrences(of: "Europe/London", with: "America/New_York")
        #expect(try await Self.put(profile, moved, ifMatch: #""0""#).status == 412)
        let changed = try await Self.put(profile, moved, ifMatch: #""1""#)
        #expect(changed.status == 200 && changed.header("ETag") == #""2""#)
        #expect(try await Self.put(profile, moved, ifMatch: "yesterday").status == 400)
        let bad = try await HTTP.send(method: "PUT", profile, json: #"{"birthDate": "1970-02-30", "timeZone": "Mars/Olympus_Mons"}"#)
        #expect(bad.status == 422 && bad.text.contains(#""/birthDate""#) && bad.text.contains(#""/timeZone""#))
        // What the schema refuses is a 400 naming each field, before the checks above.
        let unknown = try await HTTP.send(method: "PUT", profile, json: #"{"sex": "x", "surname": "Okafor"}"#)
        #expect(unknown.status == 400 && unknown.text.contains(#""/sex""#) && unknown.text.contains("not a known field"))
        #expect(try await HTTP.send(method: "PUT", profile, json: #"{"birthDate": "2999-01-01"}"#).status == 422)
        #expect(try await Self.revisions(profile).map { $0["revision"] as? Int } == [2, 1])
        // Nobody else reads it: another patient, a consultant without a grant.
        #expect(try await HTTP.get(profile, as: .identity(Identity(subject: "p-other", role: .patient))).status == 403)
        #expect(try await HTTP.get(profile, as: .identity(Identity(subject: "dr-who", role: .consultant))).status == 403)

        // An institution's HL7 v2 message: PID-5 Doe^Jane, PID-7 19700101, PID-8 F; the same message again changes nothing.
        let hl7 = "\(ingest)/v1/institutions/st-mary/hl7v2"
        #expect(try await ExamResultBatchTests.hl7(hl7, ExamResultBatchTests.hl7Fixture).1[1] == "MSA|AA|MSG00001")
        #expect(try await ExamResultBatchTests.hl7(hl7, ExamResultBatchTests.hl7Fixture).1[1] == "MSA|AA|MSG00001")
        let jane = "\(ingest)/v1/patients/patient-0001/profile"
        var history = try await Self.revisions(jane)
        #expect(history.count == 1)
        #expect(
            (history.first?["source"] as? [String: String]) == [
                "role": "institution", "subject": "st-mary", "institutionId": "st-mary", "format": "hl7v2",
            ])
        let fromPID = try #require(history.first?["profile"] as? [String: Any])
        #expect(fromPID["sex"] as? String == "female" && fromPID["birthDate"] as? String == "1970-01-01")
        #expect((fromPID["name"] as? [String: Any])?["given"] as? [String] == ["Jane"])

        // A FHIR Patient in a Bundle: its official name, gender and birthDate; the fields it lacks are kept.
        var bundle = String(decoding: ExamResultBatchTests.fhirFixture, as: UTF8.self)
        bundle = bundle.replacingOccurrences(
            of: #""active": true"#,
            with:
                #""active": true, "name": [{"use": "old", "family": "Roe"}, {"use": "official", "family": "Doe", "given": ["Janet", "Mary"]}], "birthDate": "1970-01-02""#
        )
        let fhir = try await HTTP.send(
            method: "POST", "\(ingest)/v1/institutions/st-mary/fhir", body: Data(bundle.utf8), as: .owner,
            headers: ["Content-Type": "application/fhir+json"])
        #expect(fhir.status == 200)
        history = try await Self.revisions(jane)
        #expect(history.count == 2 && (history.first?["source"] as? [String: Any])?["format"] as? String == "fhir")
        let fromFHIR = try #require(history.first?["profile"] as? [String: Any])
        #expect((fromFHIR["name"] as? [String: Any])?["given"] as? [String] == ["Janet", "Mary"] && fromFHIR["sex"] as? String == "female")
        #expect(fromFHIR["birthDate"] as? String == "1970-01-02")

        // The released reports (no release rules: at once) are headed by who they are about, aged when reported.
        let reports = try await HTTP.get("\(ingest)/v1/patients/patient-0001/exam-results").items()
        #expect(reports.count == 3)
        for report in reports {
            let patient = try #require(report["patient"] as? [String: Any])
            #expect(patient["name"] as? String == "Janet Mary Doe" && patient["sex"] as? String == "female" && patient["age"] as? Int == 56)
        }

        // On the topic: one change of sex or date of birth each (p-prof's first revision; Jane's PID, then the FHIR
        // birthDate), ids and those two fields only; the time-zone change made none.
        let events = try await probe.receive(3)
        let codec = EventCodec()
        let changes = try events.map { try #require(try codec.decode($0.value).payload(as: PatientDemographicsChanged.self)) }
        #expect(changes.map(\.birthDate) == ["1968-04-02", "1970-01-01", "1970-01-02"])
        #expect(changes.map(\.profileRevision) == [1, 1, 2])
        for event in events {
            let text = String(decoding: event.value, as: UTF8.self)
            #expect(!text.contains("Okafor") && !text.contains("Doe") && !text.contains("Europe/London"))
        }
        #expect(try await probe.drain(for: .seconds(1)).isEmpty)
    }

    @Test("the melanoma rule and the diet analysis take age and sex from the profile when the request does not give them")
    func rulesTakeTheProfile() async throws {
        let stack = try await TestStack.start([FoodFixture.ingestDefinition(), ScoringService.definition])
        let (ingest, scoring) = (stack.baseURL(IngestService.name), stack.baseURL(ScoringService.name))
        try await FoodFixture.importFoods(stack)
        #expect(
            try await HTTP.send(
                method: "PUT", "\(ingest)/v1/patients/p-rules/profile", json: #"{"sex": "female", "birthDate": "1986-01-10"}"#
            ).status == 201)

        // Melanoma: age and sex left out, taken from the profile and said so; without a profile, refused naming both.
        let factors =
            #"{"fitzpatrickSkinType": 2, "eyeColour": "brownOrBlack", "hairColour": "darkBrownOrBlack", "commonMoles": "upTo15", "atypicalMoleCount": 0, "freckling": "noneOrFew", "familyHistory": "none", "personalHistory": "none", "immunosuppression": [], "sunburnHistory": false}"#
        let risk = try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-rules/melanoma-risk-profiles/\(UUID())", json: factors)
        #expect(risk.status == 201)
        #expect((try risk.json() as? [String: Any]).flatMap { ($0["assessment"] as? [String: Any])?["fromProfile"] as? [String] } == ["age", "sex"])
        let without = try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-none/melanoma-risk-profiles/\(UUID())", json: factors)
        #expect(without.status == 422 && without.text.contains("/age") && without.text.contains("/sex"))
        // An empty form names every field at once: the ten the schema requires, and age and sex, which neither it nor
        // a profile gives; with a profile, only the ten. The calculator, reading nobody's profile, names all twelve.
        func named(_ reply: HTTP.Reply) throws -> Set<String> {
            Set(((try reply.json() as? [String: Any])?["violations"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String })
        }
        let ten: Set<String> = [
            "/fitzpatrickSkinType", "/eyeColour", "/hairColour", "/commonMoles", "/atypicalMoleCount", "/freckling", "/familyHistory",
            "/personalHistory", "/immunosuppression", "/sunburnHistory",
        ]
        let empty = try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-none/melanoma-risk-profiles/\(UUID())", json: "{}")
        #expect(empty.status == 400)
        #expect(try named(empty) == ten.union(["/age", "/sex"]))
        let emptyWithProfile = try await HTTP.send(method: "PUT", "\(ingest)/v1/patients/p-rules/melanoma-risk-profiles/\(UUID())", json: "{}")
        #expect(emptyWithProfile.status == 400)
        #expect(try named(emptyWithProfile) == ten)
        let calculator = try await HTTP.send(method: "POST", "\(ingest)/v1/melanoma-risk/calculate", json: "{}")
        #expect(calculator.status == 400)
        #expect(try named(calculator) == ten.union(["/age", "/sex"]))
        // A child's age is refused with the reason.
        let child = try await HTTP.send(
            method: "POST", "\(ingest)/v1/melanoma-risk/calculate", json: String(factors.dropLast()) + #", "age": 9, "sex": "female"}"#)
        #expect(child.status == 422 && child.text.contains("for adults"))

        // Diet: the day's energy and protein references for a woman of 40, with no query; the query still wins.
        let meal = FoodFixture.meal(food: "01001", grams: 10, at: "2026-11-20T12:00:00Z")
        #expect(try await HTTP.send(method: "POST", "\(ingest)/v1/patients/p-rules/meals", json: meal).status == 201)
        try await eventually("scoring knows the profile and the meal") {
            let day = try await DietTests.day(scoring, "p-rules", "2026-11-20")
            return day["mealCount"] as? Int == 1 && DietTests.check(day, "protein")?["reference"] as? Double == 46
        }
        let day = try await DietTests.day(scoring, "p-rules", "2026-11-20")
        #expect(DietTests.check(day, "energy")?["reference"] as? Double != nil)
        let asked = try await DietTests.day(scoring, "p-rules", "2026-11-20", query: "?sex=male")
        #expect(DietTests.check(asked, "protein")?["reference"] as? Double == 56)
    }
}
