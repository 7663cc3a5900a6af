import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// `Idempotency-Key` on POST, against the real service and PostgreSQL.
@Suite(.serialized, .stoppingStacks) struct IdempotencyTests {
    static func post(_ url: String, _ json: String, key: String?) async throws -> HTTP.Reply {
        try await HTTP.send(method: "POST", url, body: Data(json.utf8), as: .owner, headers: key.map { ["Idempotency-Key": $0] } ?? [:])
    }

    @Test("a retry with the same key gets the first answer and stores nothing; another body with it is a 422; a refusal is not kept")
    func retriesReplay() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/patients/p-idem/measurements/blood-pressure"
        let id = UUID().uuidString.lowercased()
        let body = #"{"measurementId": "\#(id)", "takenAt": "2026-11-20T08:00:00Z", "systolic": 150, "diastolic": 95}"#
        let key = "retry-\(UUID())"

        let first = try await Self.post(url, body, key: key)
        #expect(first.status == 201)
        #expect(first.header("Idempotent-Replayed") == nil)
        let again = try await Self.post(url, body, key: key)
        #expect(again.status == 201, "the first answer: running the write again would answer 200 'duplicate'")
        #expect(again.body == first.body)
        #expect(again.header("Idempotent-Replayed") == "true")
        // Without the key the same body is the record's own duplicate: proof the replay did not run the write again.
        #expect(try await Self.post(url, body, key: nil).status == 200)
        let audited = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.client.query(
                "SELECT count(*) FROM access_audit WHERE patient_id = 'p-idem' AND action = 'write'", logger: logger
            ).collectAll().first?.decode(Int.self)
        }
        #expect(audited == 3, "every access is audited, the replay too")

        let other = #"{"measurementId": "\#(UUID())", "takenAt": "2026-11-20T08:00:00Z", "systolic": 120, "diastolic": 80}"#
        let misuse = try await Self.post(url, other, key: key)
        #expect(misuse.status == 422)
        #expect(misuse.text.contains("Idempotency-Key"))

        // A refused request is not kept: the corrected retry with the same key is applied.
        let fresh = "fix-\(UUID())"
        let invalid = #"{"measurementId": "\#(UUID())", "takenAt": "2026-11-20T08:00:00Z", "systolic": 999, "diastolic": 80}"#
        #expect(try await Self.post(url, invalid, key: fresh).status == 400)
        #expect(try await Self.post(url, other, key: fresh).status == 201)

        #expect(try await Self.post(url, other, key: String(repeating: "k", count: 256)).status == 400)
        #expect(try await Self.post(url, other, key: "has space").status == 400)
        try await stack.shutdown()
    }

    @Test("an offline upload retried with its key answers the first results again")
    func uploadReplays() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let url = stack.baseURL(IngestService.name) + "/v1/patients/p-idem-sync/changes"
        let id = UUID().uuidString.lowercased()
        let upload = #"""
            {"changes": [{"kind": "pulse", "id": "\#(id)", "updatedAt": "2026-11-20T08:00:00Z",
                          "record": {"measurementId": "\#(id)", "takenAt": "2026-11-20T08:00:00Z", "beatsPerMinute": 72}}]}
            """#
        let first = try await Self.post(url, upload, key: "sync-1")
        let again = try await Self.post(url, upload, key: "sync-1")
        #expect(first.status == 200 && again.status == 200)
        #expect(again.body == first.body)
        #expect(first.text.contains(#""status":"recorded""#))
        try await stack.shutdown()
    }
}
