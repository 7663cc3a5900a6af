import CaretideIdentity
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import Testing

/// An institution's patient finds their results: the institution registers them under its own id and hands them an
/// activation code; reports sent meanwhile wait; the patient redeems the code with their date of birth and every
/// report, those that waited and those sent later through any door, is theirs.
@Suite(.serialized, .stoppingStacks) struct InstitutionLinkTests {
    static let registration = #"{"name": {"family": "Doe", "given": ["Jane"]}, "sex": "female", "birthDate": "1970-01-01"}"#

    static func report(_ patient: String, glucose: Double) -> String {
        #"{"patientId": "\#(patient)", "reportedAt": "2026-11-22T06:10:00Z", "items": [{"code": "2345-7", "name": "Glucose", "value": \#(glucose), "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99}]}"#
    }

    static func redeem(_ base: String, _ patient: String, code: String, birthDate: String) async throws -> HTTP.Reply {
        try await HTTP.post(
            "\(base)/v1/patients/\(patient)/institution-links", json: #"{"activationCode": "\#(code)", "birthDate": "\#(birthDate)"}"#)
    }

    static func visible(_ base: String, _ patient: String) async throws -> Set<String> {
        Set(try await HTTP.get("\(base)/v1/patients/\(patient)/exam-results").items().compactMap { $0["examId"] as? String })
    }

    @Test(
        "reports for a registered patient wait; the code with the right date of birth links them and delivers them; later ones arrive through HL7 v2")
    func linkAndDeliver() async throws {
        let stack = try await TestStack.start([IngestService.definition, NotificationService.definition])
        let base = stack.baseURL(IngestService.name)
        let notification = stack.baseURL(NotificationService.name)
        let staff = Caller.identity(Identity(subject: "staff-1", role: .institution, institutionID: "st-mary"))
        let patientURL = "\(base)/v1/institutions/st-mary/patients/patient-0001"

        let registered = try await HTTP.send(method: "PUT", patientURL, json: Self.registration)
        #expect(registered.status == 201)
        let answer = try #require(try registered.json() as? [String: Any])
        let code = try #require(answer["activationCode"] as? String)
        #expect(code.count == 17 && answer["linked"] as? Bool == false)

        // Sent before the link: held, visible to the institution, nobody's yet.
        let held = try await HTTP.send(
            method: "PUT", "\(base)/v1/institutions/st-mary/exam-results/E1", json: Self.report("patient-0001", glucose: 182))
        #expect(held.status == 202 && held.text.contains(#""waiting""#))
        #expect((try await HTTP.get(patientURL).json() as? [String: Any])?["waitingExamIds"] as? [String] == ["E1"])
        #expect(try await Self.visible(base, "patient-0001").isEmpty)

        // A wrong date of birth and a wrong code get the same refusal, which names neither.
        let wrongBirth = try await Self.redeem(base, "p-jane", code: code, birthDate: "1970-01-02")
        let wrongCode = try await Self.redeem(base, "p-jane", code: "AAAAA-BBBBB-CCCCC", birthDate: "1970-01-01")
        #expect(wrongBirth.status == 422 && wrongCode.status == 422)
        #expect((try wrongBirth.json() as? [String: Any])?["error"] as? String == (try wrongCode.json() as? [String: Any])?["error"] as? String)

        // The right pair links, typed as a person would (lower case, spaces), and delivers what waited.
        let typed = code.lowercased().replacingOccurrences(of: "-", with: " ")
        let linked = try await Self.redeem(base, "p-jane", code: typed, birthDate: "1970-01-01")
        #expect(linked.status == 201)
        let link = try #require(try linked.json() as? [String: Any])
        #expect(link["institutionId"] as? String == "st-mary" && link["deliveredReports"] as? Int == 1)
        #expect((link["registered"] as? [String: Any])?["birthDate"] as? String == "1970-01-01")
        #expect(try await Self.visible(base, "p-jane") == ["E1"])
        // With the report, who the institution registered, for the patient to confirm it is them (age when reported).
        let shown = try await HTTP.get("\(base)/v1/patients/p-jane/exam-results").items().first?["patient"] as? [String: Any]
        #expect(shown?["name"] as? String == "Jane Doe" && shown?["sex"] as? String == "female" && shown?["age"] as? Int == 56)
        #expect((try await HTTP.get(patientURL).json() as? [String: Any])?["waitingExamIds"] as? [String] == [])
        // Redeeming again changes nothing; another patient cannot use the spent code.
        #expect(try await Self.redeem(base, "p-jane", code: code, birthDate: "1970-01-01").status == 200)
        #expect(try await Self.redeem(base, "p-other", code: code, birthDate: "1970-01-01").status == 422)

        // Later results under the institution's id reach the patient through every door: here HL7 v2 (PID-3).
        let (status, acknowledgement) = try await ExamResultBatchTests.hl7("\(base)/v1/institutions/st-mary/hl7v2", ExamResultBatchTests.hl7Fixture)
        #expect(status == 200 && acknowledgement.count == 2 && acknowledgement[1] == "MSA|AA|MSG00001")
        #expect(try await Self.visible(base, "p-jane") == ["E1", "LAB-2026-0001", "LAB-2026-0002"])
        // "This is not me": the report is withdrawn from the patient, and the institution reads the dispute.
        let notMine = "\(base)/v1/patients/p-jane/exam-results/st-mary/LAB-2026-0002/not-mine"
        let disowned = try await HTTP.send(method: "POST", notMine)
        #expect(disowned.status == 200 && disowned.text.contains(#""deleted""#))
        #expect(try await Self.visible(base, "p-jane") == ["E1", "LAB-2026-0001"])
        #expect((try await HTTP.get(patientURL).json() as? [String: Any])?["disputedExamIds"] as? [String] == ["LAB-2026-0002"])
        #expect(try await HTTP.send(method: "POST", notMine).status == 200)
        // The institution is told in its inbox, once, with no value or name.
        try await eventually("the institution hears of the dispute") {
            try await HTTP.get(notification + "/v1/inbox", as: staff).items().contains { $0["kind"] as? String == "examResultDisputed" }
        }
        let told = try await HTTP.get(notification + "/v1/inbox", as: staff).items().filter { $0["kind"] as? String == "examResultDisputed" }
        #expect(told.count == 1 && told.first?["category"] as? String == "notMine")
        #expect(try await HTTP.send(method: "POST", "\(base)/v1/patients/p-other/exam-results/st-mary/E1/not-mine").status == 404)
        // The registration's details are the institution's; the patient's own profile takes nothing from PID-5/7/8.
        #expect(try await HTTP.get("\(base)/v1/patients/p-jane/profile").status == 404)

        // The patient sees the link; ending it makes later reports wait again.
        let links = try #require(try await HTTP.get("\(base)/v1/patients/p-jane/institution-links").json() as? [[String: Any]])
        #expect(links.map { $0["institutionPatientId"] as? String } == ["patient-0001"])
        #expect(try await HTTP.send(method: "DELETE", "\(base)/v1/patients/p-jane/institution-links/st-mary").status == 204)
        #expect(
            try await HTTP.send(method: "PUT", "\(base)/v1/institutions/st-mary/exam-results/E2", json: Self.report("patient-0001", glucose: 90))
                .status == 202)
        #expect(try await Self.visible(base, "p-jane") == ["E1", "LAB-2026-0001"])
        // A waiting report entered in error is dropped before anyone saw it.
        #expect(try await HTTP.send(method: "POST", "\(base)/v1/institutions/st-mary/exam-results/E2/entered-in-error").status == 200)
        #expect((try await HTTP.get(patientURL).json() as? [String: Any])?["waitingExamIds"] as? [String] == [])
        // FHIR's door too: the subject's identifier is the registration's id, so the report waits (202 Accepted).
        let fhir = try await HTTP.send(
            method: "POST", "\(base)/v1/institutions/st-mary/fhir", body: ExamResultBatchTests.fhirFixture, as: .owner,
            headers: ["Content-Type": "application/fhir+json"])
        #expect(fhir.status == 200 && fhir.text.contains("202 Accepted"))
        #expect((try await HTTP.get(patientURL).json() as? [String: Any])?["waitingExamIds"] as? [String] == ["LAB-2026-0101"])

        // Another institution can neither see nor register this one's patients.
        let other = Caller.identity(Identity(subject: "staff-x", role: .institution, institutionID: "other"))
        #expect(try await HTTP.get(patientURL, as: other).status == 403)
        try await stack.shutdown()
    }

    @Test("a patient's failed redemptions are limited, in a burst too: past five, every attempt waits; a code locks after five wrong dates of birth")
    func attemptsAreLimited() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let base = stack.baseURL(IngestService.name)
        let registered = try await HTTP.send(method: "PUT", "\(base)/v1/institutions/st-anne/patients/mrn-7", json: Self.registration)
        let code = try #require((try registered.json() as? [String: Any])?["activationCode"] as? String)

        for _ in 0..<5 { #expect(try await Self.redeem(base, "p-guess", code: code, birthDate: "1980-05-05").status == 422) }
        // Even the right pair now waits: the limit is the patient's, before the code is read.
        let limited = try await Self.redeem(base, "p-guess", code: code, birthDate: "1970-01-01")
        #expect(limited.status == 429)
        let retryAfter = try #require(limited.header("Retry-After").flatMap { Int($0) })
        #expect(retryAfter > 0 && retryAfter <= 900)
        // The code took five wrong dates of birth: it is spent for everyone, and the institution must issue a new one.
        #expect(try await Self.redeem(base, "p-real", code: code, birthDate: "1970-01-01").status == 422)
        let view = try #require(try await HTTP.get("\(base)/v1/institutions/st-anne/patients/mrn-7").json() as? [String: Any])
        #expect(view["codeExpiresAt"] == nil && view["linked"] as? Bool == false)
        let reissued = try await HTTP.send(method: "PUT", "\(base)/v1/institutions/st-anne/patients/mrn-7", json: Self.registration)
        #expect(reissued.status == 200)
        let fresh = try #require((try reissued.json() as? [String: Any])?["activationCode"] as? String)
        #expect(fresh != code)
        #expect(try await Self.redeem(base, "p-real", code: fresh, birthDate: "1970-01-01").status == 201)

        // A burst of twelve guesses at once: the limit holds, five are judged and seven wait.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 {
                group.addTask {
                    try await Self.redeem(base, "p-burst", code: "AAAAA-BBBBB-CCC\(index % 10)\(index / 10)", birthDate: "1970-01-01").status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 422 }.count == 5 && statuses.filter { $0 == 429 }.count == 7)
        try await stack.shutdown()
    }
}
