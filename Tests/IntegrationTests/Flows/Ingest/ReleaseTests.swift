import CaretideIdentity
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// Exam reports reach their patients under their institution's rules: at once, after a delay, or after review.
@Suite(.serialized, .stoppingStacks) struct ReleaseTests {
    static func report(_ patient: String, code: String, name: String, value: Double, low: Double, high: Double) -> String {
        #"{"patientId": "\#(patient)", "reportedAt": "2026-11-22T06:10:00Z", "items": [{"code": "\#(code)", "name": "\#(name)", "value": \#(value), "unit": "u", "referenceLow": \#(low), "referenceHigh": \#(high), "comment": "Repeat in 3 months"}]}"#
    }

    static func visible(_ base: String, _ patient: String) async throws -> [String] {
        try await HTTP.get("\(base)/v1/patients/\(patient)/exam-results").items().compactMap { $0["examId"] as? String }
    }

    @Test("at once without rules; held abnormal results wait for a clinician; delayed ones come when due; the patient sees released reports only")
    func releases() async throws {
        let stack = try await TestStack.start([IngestService.definition(sync: .init(), releaseCheck: .seconds(1))])
        let base = stack.baseURL(IngestService.name)
        let exams = "\(base)/v1/institutions/st-mary/exam-results"

        // No rules: released at once, with each item's flag and the institution's advice.
        #expect(
            try await HTTP.send(
                method: "PUT", "\(exams)/E1", json: Self.report("p-rel", code: "2345-7", name: "Glucose", value: 182, low: 70, high: 99)
            ).status == 201)
        let first = try await HTTP.get("\(base)/v1/patients/p-rel/exam-results").items()
        #expect(first.map { $0["examId"] as? String } == ["E1"])
        let item = try #require((first.first?["items"] as? [[String: Any]])?.first)
        #expect(item["flag"] as? String == "H" && item["advice"] as? String == "Repeat in 3 months")
        // Each item links to the institution's explanation of its test (served by notification-service).
        #expect(item["explanationPath"] as? String == "/v1/institutions/st-mary/exam-tests/2345-7/explanation")

        let rules =
            #"{"rules": [{"testCode": "*", "release": "after", "afterHours": 2}, {"testCode": "*", "abnormalOnly": true, "release": "hold", "reason": "discussed first"}, {"testCode": "2345-7", "release": "immediately"}]}"#
        #expect(try await HTTP.send(method: "PUT", "\(base)/v1/institutions/st-mary/release-rules", json: rules).status == 200)
        #expect(try await HTTP.get("\(base)/v1/institutions/st-mary/release-rules").text.contains("discussed first"))

        // A normal glucose: at once. An abnormal haemoglobin: held. A normal haemoglobin: after two hours.
        _ = try await HTTP.send(
            method: "PUT", "\(exams)/E2", json: Self.report("p-rel", code: "2345-7", name: "Glucose", value: 90, low: 70, high: 99))
        _ = try await HTTP.send(
            method: "PUT", "\(exams)/E3", json: Self.report("p-rel", code: "718-7", name: "Haemoglobin", value: 9, low: 12, high: 15.5))
        _ = try await HTTP.send(
            method: "PUT", "\(exams)/E4", json: Self.report("p-rel", code: "718-7", name: "Haemoglobin", value: 13, low: 12, high: 15.5))
        #expect(Set(try await Self.visible(base, "p-rel")) == ["E1", "E2"])

        // A clinician releases the held one.
        let released = try await HTTP.send(method: "POST", "\(exams)/E3/release")
        #expect(released.status == 200 && released.text.contains(#""released""#))
        #expect(Set(try await Self.visible(base, "p-rel")) == ["E1", "E2", "E3"])
        #expect(try await HTTP.send(method: "POST", "\(exams)/E3/release").text.contains("already released"))
        #expect(try await HTTP.send(method: "POST", "\(exams)/E9/release").status == 404)

        // The delayed one comes when due (its time brought forward here rather than waiting two hours).
        try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query("UPDATE report_releases SET release_at = now() WHERE record_id = 'st-mary/E4'", logger: logger)
        }
        try await eventually("the delayed report is released") { Set(try await Self.visible(base, "p-rel")) == ["E1", "E2", "E3", "E4"] }

        // A correction is withheld until it is released in turn: the patient never sees a version known to be wrong.
        _ = try await HTTP.send(
            method: "PUT", "\(exams)/E3", json: Self.report("p-rel", code: "718-7", name: "Haemoglobin", value: 8.5, low: 12, high: 15.5))
        #expect(Set(try await Self.visible(base, "p-rel")) == ["E1", "E2", "E4"])

        // Rules are checked; another institution cannot set them; another patient cannot read these.
        let inconsistent = #"{"rules": [{"testCode": "*", "release": "after"}, {"testCode": "*", "release": "hold"}]}"#
        let refused = try await HTTP.send(method: "PUT", "\(base)/v1/institutions/st-mary/release-rules", json: inconsistent)
        #expect(refused.status == 422 && refused.text.contains("/rules/0/afterHours") && refused.text.contains("/rules/1"))
        let other = Caller.identity(Identity(subject: "staff-x", role: .institution, institutionID: "other"))
        #expect(try await HTTP.send(method: "PUT", "\(base)/v1/institutions/st-mary/release-rules", json: rules, as: other).status == 403)
        #expect(
            try await HTTP.get("\(base)/v1/patients/p-rel/exam-results", as: .identity(Identity(subject: "p-else", role: .patient))).status == 403)
        try await stack.shutdown()
    }
}
