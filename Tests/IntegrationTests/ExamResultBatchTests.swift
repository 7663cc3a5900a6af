import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// A day's exam reports in one request: a result per report, revisions on re-upload, refusals that refuse only
/// themselves.
@Suite(.serialized, .stoppingStacks) struct ExamResultBatchTests {
    static func report(_ patient: String, glucose: Double) -> [String: Any] {
        ["patientId": patient, "reportedAt": "2026-11-22T06:10:00Z",
         "items": [["code": "2345-7", "name": "Glucose", "value": glucose, "unit": "mg/dL", "referenceLow": 70, "referenceHigh": 99]]]
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
        let (status, first) = try await Self.upload(url, [
            ["examId": "LAB-1", "report": Self.report("p-a", glucose: 182)],
            ["examId": "LAB-2", "report": Self.report("p-b", glucose: 90)],
            ["examId": "LAB-3", "report": ["patientId": "p-c", "reportedAt": "2026-11-22T06:10:00Z", "items": []]],
            ["examId": "LAB-1", "report": Self.report("p-a", glucose: 100)],
            ["examId": "LAB-4", "report": Self.report("p-d", glucose: 95).merging(["reportedAt": "2099-01-01T00:00:00Z"]) { $1 }],
        ])
        #expect(status == 200)
        #expect(first.map { $0["status"] as? String } == ["accepted", "accepted", "refused", "refused", "refused"])
        func pointers(_ result: [String: Any]) -> [String] { (result["violations"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String } }
        #expect(pointers(first[2]) == ["/reports/2/report/items"])
        #expect(pointers(first[3]) == ["/reports/3/examId"])
        #expect(pointers(first[4]) == ["/reports/4/report/reportedAt"])

        // Again: the same report is a duplicate; a changed one is the next revision.
        let (_, again) = try await Self.upload(url, [
            ["examId": "LAB-1", "report": Self.report("p-a", glucose: 182)],
            ["examId": "LAB-2", "report": Self.report("p-b", glucose: 250)],
        ])
        #expect(again.map { $0["status"] as? String } == ["duplicate", "corrected"])
        #expect(again[1]["revision"] as? Int == 2)
        let stored = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query("SELECT count(*) FROM records WHERE record_type = 'exam-result'", logger: logger).collectAll().first?.decode(Int.self)
        }
        #expect(stored == 2)

        // The whole body is checked first; another institution's staff cannot upload here.
        #expect(try await Self.upload(url, []).0 == 400)
        let foreign = try await HTTP.post(url, json: #"{"reports": [{"examId": "X", "report": {}}]}"#,
            as: .identity(.init(subject: "staff-of-other", role: .institution, institutionID: "other")))
        #expect(foreign.status == 403)
        try await stack.shutdown()
    }
}
