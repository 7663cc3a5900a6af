import CaretideIdentity
import CaretideKafka
import CaretideSchemas
import CaretideTestSupport
import Foundation
import IngestService
import NotificationService
import ScoringService
import Testing

/// Consent: a consultant reads a patient's data on every service that serves it only while the patient's grant is
/// in force, and the patient sees who read it.
@Suite(.serialized, .stoppingStacks) struct CareTeamTests {
    static let services = [IngestService.definition, ScoringService.definition, NotificationService.definition]
    static let consultant = Caller.identity(Identity(subject: "dr-1", role: .consultant))

    /// The patient-data reads of the three services, for `patient`.
    static func reads(_ stack: TestStack, patient: String) -> [String] {
        [
            stack.baseURL(IngestService.name) + "/v1/patients/\(patient)/measurements",
            stack.baseURL(ScoringService.name) + "/v1/patients/\(patient)/assessments",
            stack.baseURL(NotificationService.name) + "/v1/patients/\(patient)/alerts",
        ]
    }

    static func statuses(_ urls: [String], as caller: Caller) async throws -> [Int] {
        var statuses: [Int] = []
        for url in urls { statuses.append(try await HTTP.get(url, as: caller).status) }
        return statuses
    }

    @Test("a grant opens the patient's data to the consultant on every service; a revocation closes it again within seconds")
    func grantAndRevoke() async throws {
        let stack = try await TestStack.start(Self.services)
        let careTeam = try KafkaProbe(stack.kafka, topic: Topic.careTeam.name)
        let ingest = stack.baseURL(IngestService.name)
        let reading = try await HTTP.post(
            ingest + "/v1/patients/patient-7/measurements/blood-pressure",
            json: #"{"measurementId": "\#(UUID())", "systolic": 182, "diastolic": 95, "takenAt": "2026-11-21T07:55:00Z"}"#)
        #expect(reading.status == 201)
        let reads = Self.reads(stack, patient: "patient-7")
        #expect(try await Self.statuses(reads, as: Self.consultant) == [403, 403, 403])

        // Only the patient grants: not the consultant, not another patient.
        let grantURL = ingest + "/v1/patients/patient-7/care-team/dr-1"
        #expect(try await HTTP.send(method: "PUT", grantURL, json: "{}", as: Self.consultant).status == 403)
        #expect(try await HTTP.send(method: "PUT", grantURL, json: "{}", as: .identity(Identity(subject: "patient-8", role: .patient))).status == 403)
        let granted = try await HTTP.send(method: "PUT", grantURL, json: "{}")
        #expect(granted.status == 200, "\(granted.text)")
        let events = try await careTeam.receive(1)
        #expect(events[0].key == "patient-7")
        #expect(events[0].headers[EventHeader.eventType] == "care-team.granted")
        try await eventually("every service applied the grant") {
            try await Self.statuses(reads, as: Self.consultant) == [200, 200, 200]
        }
        // The reading's alert comes to notification after scoring's assessment, which may be later than the grant.
        try await eventually("the reading's alert reached notification") { try await HTTP.get(reads[2], as: Self.consultant).items().count == 1 }
        // Another consultant, and the same consultant on another patient, stay out.
        #expect(try await Self.statuses(reads, as: .identity(Identity(subject: "dr-2", role: .consultant))) == [403, 403, 403])
        #expect(try await Self.statuses(Self.reads(stack, patient: "patient-8"), as: Self.consultant) == [403, 403, 403])
        let team = try await HTTP.get(ingest + "/v1/patients/patient-7/care-team").items()
        #expect(team.map { $0["consultantId"] as? String } == ["dr-1"])

        #expect(try await HTTP.send(method: "DELETE", grantURL).status == 204)
        #expect(try await careTeam.receive(1)[0].headers[EventHeader.eventType] == "care-team.revoked")
        let revokedAt = ContinuousClock.now
        try await eventually("every service applied the revocation") {
            try await Self.statuses(reads, as: Self.consultant) == [403, 403, 403]
        }
        let lag = ContinuousClock.now - revokedAt
        print("revocation effective on every service after \(lag)")
        // Revoking again changes nothing and announces nothing: the next event on the patient's partition is the grant
        // made after it.
        #expect(try await HTTP.send(method: "DELETE", grantURL).status == 204)
        #expect(try await HTTP.send(method: "PUT", ingest + "/v1/patients/patient-7/care-team/dr-3", json: "{}").status == 200)
        let next = try await careTeam.receive(1)[0]
        #expect(next.headers[EventHeader.eventType] == "care-team.granted" && next.key == "patient-7")
        // Writes are audited in their own transactions, with the answer they got.
        let log = try await HTTP.get(ingest + "/v1/patients/patient-7/access-log?limit=500").items()
        let writes = log.filter { ["write", "consent"].contains($0["action"] as? String) && $0["outcome"] as? String == "allowed" }
        #expect(
            writes.map { "\($0["action"] ?? "") \($0["status"] ?? "")" }.sorted() == [
                "consent 200", "consent 200", "consent 204", "consent 204", "write 201",
            ])
        await careTeam.close()
        try await stack.shutdown()
    }

    @Test("a grant with an expiry lapses by itself; one already lapsed is refused with 422")
    func expiry() async throws {
        let stack = try await TestStack.start(Self.services)
        let grantURL = stack.baseURL(IngestService.name) + "/v1/patients/patient-9/care-team/dr-1"
        let past = try await HTTP.send(method: "PUT", grantURL, json: #"{"expiresAt": "2020-01-01T00:00:00Z"}"#)
        #expect(past.status == 422)
        #expect(past.text.contains("/expiresAt"))
        let reads = Self.reads(stack, patient: "patient-9")
        // Both consultants are granted without an expiry first, and seen granted on every service. Only then is dr-1's
        // grant given an expiry a moment away: the test never has to catch a short grant while it is still in force,
        // so a slow consumer makes it wait longer but cannot make it fail.
        let other = stack.baseURL(IngestService.name) + "/v1/patients/patient-9/care-team/dr-warm"
        #expect(try await HTTP.send(method: "PUT", other, json: "{}").status == 200)
        #expect(try await HTTP.send(method: "PUT", grantURL, json: "{}").status == 200)
        let warm = Caller.identity(Identity(subject: "dr-warm", role: .consultant))
        try await eventually("both grants applied on every service", timeout: .seconds(60)) {
            let both = (try await Self.statuses(reads, as: warm), try await Self.statuses(reads, as: Self.consultant))
            return both == ([200, 200, 200], [200, 200, 200])
        }

        let soon = Timestamp.format(Date().addingTimeInterval(2))
        #expect(try await HTTP.send(method: "PUT", grantURL, json: #"{"expiresAt": "\#(soon)"}"#).status == 200)
        try await eventually("the grant lapsed", timeout: .seconds(60)) { try await Self.statuses(reads, as: Self.consultant) == [403, 403, 403] }
        #expect(try await Self.statuses(reads, as: warm) == [200, 200, 200])
        try await stack.shutdown()
    }

    @Test("the patient reads who accessed their data, newest first and paged; refusals included; nobody else may read it")
    func accessLog() async throws {
        let stack = try await TestStack.start([ScoringService.definition])
        let audit = try KafkaProbe(stack.kafka, topic: Topic.audit.name)
        let scoring = stack.baseURL(ScoringService.name)
        let assessments = scoring + "/v1/patients/patient-5/assessments"
        #expect(try await HTTP.get(assessments).status == 200)
        #expect(try await HTTP.get(assessments, as: Self.consultant).status == 403)
        #expect(try await HTTP.get(assessments, as: .identity(Identity(subject: "ops-1", role: .operator))).status == 403)

        let log = scoring + "/v1/patients/patient-5/access-log"
        #expect(try await HTTP.get(log, as: Self.consultant).status == 403)
        #expect(
            try await HTTP.get(scoring + "/v1/patients/patient-6/access-log", as: .identity(Identity(subject: "patient-5", role: .patient))).status
                == 403)
        let first = try #require(try await HTTP.get(log + "?limit=2").json() as? [String: Any])
        let items = try #require(first["items"] as? [[String: Any]])
        // Newest first: the consultant's refused look at the log itself, the operator's refusal.
        #expect(items.map { $0["subject"] as? String } == ["dr-1", "ops-1"])
        #expect(items.map { $0["outcome"] as? String } == ["refused", "refused"])
        #expect(
            items.map { $0["operation"] as? String } == [
                "GET /v1/patients/:patientId/access-log", "GET /v1/patients/:patientId/assessments",
            ])
        let cursor = try #require(first["nextCursor"] as? String)
        // Reading the first page is recorded too, but after the cursor's position: the next page goes on from there.
        let second = try #require(try await HTTP.get(log + "?limit=2&cursor=\(cursor)").json() as? [String: Any])
        let rest = try #require(second["items"] as? [[String: Any]])
        #expect(rest.map { $0["subject"] as? String } == ["dr-1", "patient-5"])
        #expect(rest.map { $0["outcome"] as? String } == ["refused", "allowed"])
        #expect(rest.last?["action"] as? String == "read")
        #expect(rest.last?["status"] as? Int == 200)
        #expect(second["nextCursor"] == nil)
        #expect(try await HTTP.get(log + "?limit=0").status == 400)
        #expect(try await HTTP.get(log + "?cursor=not-a-cursor").status == 400)

        // The same records on the audit topic, keyed by the patient concerned; ids only.
        let events = try await audit.receive(9)
        #expect(Set(events.map(\.key)) == ["patient-5", "patient-6"])
        let decoded = try events.filter { $0.key == "patient-5" }.map {
            try #require(try EventCodec().decode($0.value).payload(as: AccessRecorded.self))
        }
        #expect(decoded.count == 8)
        #expect(Set(decoded.map(\.subject)) == ["patient-5", "dr-1", "ops-1"])
        await audit.close()
        try await stack.shutdown()
    }
}
