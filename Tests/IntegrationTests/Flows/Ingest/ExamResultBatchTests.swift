import CaretideIdentity
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// A day's exam reports in one request: a result per report, revisions on re-upload, refusals that refuse only
/// themselves.
@Suite(.serialized, .stoppingStacks) struct ExamResultBatchTests {
    static func report(_ patient: String, glucose: Double) -> [String: Any] {
        [
            "patientId": patient, "reportedAt": "2026-11-22T06:10:00Z",
            "items": [["code": "2345-7", "name": "Glucose", "value": glucose, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99]],
        ]
    }

    static func upload(_ url: String, _ reports: [[String: Any]]) async throws -> (Int, [[String: Any]]) {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["reports": reports]), as: UTF8.self)
        let reply = try await HTTP.post(url, json: body)
        return (reply.status, ((try? reply.json()) as? [String: Any])?["results"] as? [[String: Any]] ?? [])
    }

    @Test("each report gets its own result: accepted, duplicate, corrected or refused naming its fields")
    func resultPerReport() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/institutions/st-mary/exam-results"
        let (status, first) = try await Self.upload(
            url,
            [
                ["examId": "LAB-1", "report": Self.report("p-a", glucose: 182)],
                ["examId": "LAB-2", "report": Self.report("p-b", glucose: 90)],
                ["examId": "LAB-3", "report": ["patientId": "p-c", "reportedAt": "2026-11-22T06:10:00Z", "items": []]],
                ["examId": "LAB-1", "report": Self.report("p-a", glucose: 100)],
                ["examId": "LAB-4", "report": Self.report("p-d", glucose: 95).merging(["reportedAt": "2099-01-01T00:00:00Z"]) { $1 }],
            ])
        #expect(status == 200)
        #expect(first.map { $0["status"] as? String } == ["accepted", "accepted", "refused", "refused", "refused"])
        func pointers(_ result: [String: Any]) -> [String] {
            (result["violations"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
        }
        #expect(pointers(first[2]) == ["/reports/2/report/items"])
        #expect(pointers(first[3]) == ["/reports/3/examId"])
        #expect(pointers(first[4]) == ["/reports/4/report/reportedAt"])

        // Again: the same report is a duplicate; a changed one is the next revision.
        let (_, again) = try await Self.upload(
            url,
            [
                ["examId": "LAB-1", "report": Self.report("p-a", glucose: 182)],
                ["examId": "LAB-2", "report": Self.report("p-b", glucose: 250)],
            ])
        #expect(again.map { $0["status"] as? String } == ["duplicate", "corrected"])
        #expect(again[1]["revision"] as? Int == 2)
        let stored = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query("SELECT count(*) FROM records WHERE record_type = 'exam-result'", logger: logger).collectAll().first?
                .decode(Int.self)
        }
        #expect(stored == 2)

        // The whole body is checked first; another institution's staff cannot upload here.
        #expect(try await Self.upload(url, []).0 == 400)
        let foreign = try await HTTP.post(
            url, json: #"{"reports": [{"examId": "X", "report": {}}]}"#,
            as: .identity(.init(subject: "staff-of-other", role: .institution, institutionID: "other")))
        #expect(foreign.status == 403)
        try await stack.shutdown()
    }

    static let hl7Fixture = try! String(
        contentsOf: Paths.packageRoot.appendingPathComponent("Tests/IngestServiceTests/Fixtures/oru-r01-lipids-glucose.hl7"),
        encoding: .utf8)

    static func hl7(_ url: String, _ message: String) async throws -> (Int, [String]) {
        let reply = try await HTTP.send(
            method: "POST", url, body: Data(message.utf8), as: .owner, headers: ["Content-Type": "x-application/hl7-v2+er7"])
        return (reply.status, reply.text.split(separator: "\r").map(String.init))
    }

    @Test("an HL7 v2 ORU^R01 over HTTP is stored as exam reports and acknowledged AA; errors are AE with nothing stored; other messages AR")
    func hl7v2() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/institutions/st-mary/hl7v2"
        func stored() async throws -> Int? {
            try await stack.withDatabase(schema: "ingest") { database, logger in
                try await database.client.query("SELECT count(*) FROM records WHERE record_type = 'exam-result'", logger: logger).collectAll().first?
                    .decode(Int.self)
            }
        }

        let bad = Self.hl7Fixture.replacingOccurrences(of: "OBX|2|NM|2085-9", with: "OBX|2|ST|2085-9")
        let (badStatus, rejected) = try await Self.hl7(url, bad)
        #expect(badStatus == 200)
        #expect(rejected.count == 3 && rejected[1] == "MSA|AE|MSG00001" && rejected[2].hasPrefix("ERR||OBX^6^2|102^"))
        #expect(try await stored() == 0, "a message is taken whole or not at all")

        let (status, accepted) = try await Self.hl7(url, Self.hl7Fixture)
        #expect(status == 200)
        #expect(accepted.count == 2 && accepted[1] == "MSA|AA|MSG00001")
        #expect(try await stored() == 2)
        // Sent again (a lab that did not get the ACK): the same reports, nothing new.
        #expect(try await Self.hl7(url, Self.hl7Fixture).1[1] == "MSA|AA|MSG00001")
        #expect(try await stored() == 2)

        let admission = Self.hl7Fixture.replacingOccurrences(of: "ORU^R01^ORU_R01", with: "ADT^A01^ADT_A01")
        let (_, refused) = try await Self.hl7(url, admission)
        #expect(refused[1] == "MSA|AR|MSG00001" && refused[2].contains("|200^Unsupported message type^HL70357|"))
        let (_, garbage) = try await Self.hl7(url, "hello")
        #expect(garbage.count == 3 && garbage[1] == "MSA|AR|")

        // A lab that retries with an Idempotency-Key gets the first ACK again, as an ACK: a kept answer keeps its
        // media type (found by the HTTP fuzzing, which saw a replayed ACK labelled JSON).
        let headers = ["Content-Type": "x-application/hl7-v2+er7", "Idempotency-Key": "lab-\(UUID())"]
        let first = try await HTTP.send(method: "POST", url, body: Data(Self.hl7Fixture.utf8), as: .owner, headers: headers)
        let replayed = try await HTTP.send(method: "POST", url, body: Data(Self.hl7Fixture.utf8), as: .owner, headers: headers)
        #expect(replayed.header("Idempotent-Replayed") == "true" && replayed.body == first.body)
        #expect(replayed.header("Content-Type") == first.header("Content-Type"))
        #expect(replayed.header("Content-Type")?.hasPrefix("x-application/hl7-v2+er7") == true)
        try await stack.shutdown()
    }

    static let fhirFixture = try! Data(
        contentsOf: Paths.packageRoot.appendingPathComponent("Tests/IngestServiceTests/Fixtures/fhir-r4-bundle-lipids.json"))

    @Test(
        "a FHIR R4 Bundle is stored as an exam report and answered with a transaction-response; an unmappable one is a 422 OperationOutcome; entered-in-error retracts"
    )
    func fhir() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/institutions/st-mary/fhir"
        func send(_ body: Data) async throws -> (Int, [String: Any]) {
            let reply = try await HTTP.send(method: "POST", url, body: body, as: .owner, headers: ["Content-Type": "application/fhir+json"])
            return (reply.status, (try? reply.json() as? [String: Any]) ?? [:])
        }
        func stored() async throws -> [String] {
            try await stack.withDatabase(schema: "ingest") { database, logger in
                try await database.client.query(
                    "SELECT record_id || ':' || revision || ':' || (deleted_at IS NOT NULL) FROM records WHERE record_type = 'exam-result'",
                    logger: logger
                ).collectAll().map { try $0.decode(String.self) }
            }
        }

        let unmappable = String(decoding: Self.fhirFixture, as: UTF8.self).replacingOccurrences(of: "\"valueQuantity\"", with: "\"valueRatio\"")
        let (badStatus, outcome) = try await send(Data(unmappable.utf8))
        #expect(badStatus == 422)
        #expect(outcome["resourceType"] as? String == "OperationOutcome")
        let expressions = (outcome["issue"] as? [[String: Any]] ?? []).compactMap { ($0["expression"] as? [String])?.first }
        #expect(expressions == ["Bundle.entry[2].resource.value", "Bundle.entry[3].resource.value"])
        #expect(try await stored().isEmpty)

        let (status, answer) = try await send(Self.fhirFixture)
        #expect(status == 200)
        #expect(answer["type"] as? String == "transaction-response")
        let responses = (answer["entry"] as? [[String: Any]] ?? []).map { $0["response"] as? [String: Any] ?? [:] }
        #expect(responses.count == 4)
        #expect(
            responses[1]["status"] as? String == "201 Created" && responses[1]["location"] as? String == "DiagnosticReport/LAB-2026-0101/_history/1")
        #expect(try await stored() == ["st-mary/LAB-2026-0101:1:false"])

        // The DiagnosticReport's status is the first in the file.
        var retraction = String(decoding: Self.fhirFixture, as: UTF8.self)
        retraction.replaceSubrange(retraction.range(of: "\"status\": \"final\"")!, with: "\"status\": \"entered-in-error\"")
        #expect(retraction.contains("entered-in-error"))
        #expect(try await send(Data(retraction.utf8)).0 == 200)
        #expect(try await stored() == ["st-mary/LAB-2026-0101:1:true"])
        try await stack.shutdown()
    }
}
