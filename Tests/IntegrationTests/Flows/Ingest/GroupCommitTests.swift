import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// Concurrent single writes sharing transactions (`GroupCommit`, `RecordWriter`), against the real service and
/// PostgreSQL: each answered with its own outcome, a refusal failing no other write, each stored and audited once.
@Suite(.serialized, .stoppingStacks) struct GroupCommitTests {
    @Test(
        "concurrent POSTs through the group commit: one whose id another patient holds is refused alone; each other stored, announced and audited once"
    )
    func concurrentWrites() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let ingest = stack.baseURL(IngestService.name)
        func reading(_ id: String) -> String {
            #"{"measurementId": "\#(id)", "takenAt": "2026-11-20T08:00:00Z", "systolic": 128, "diastolic": 82}"#
        }
        let taken = UUID().uuidString.lowercased()
        #expect(try await HTTP.post(ingest + "/v1/patients/p-gc-owner/measurements/blood-pressure", json: reading(taken)).status == 201)
        let commitsBefore = await HTTP.metric(ingest, #"caretide_group_commits_total{group_commit="records"}"#) ?? 0
        let writesBefore = await HTTP.metric(ingest, #"caretide_group_committed_writes_total{group_commit="records"}"#) ?? 0

        // 24 new readings of 8 patients and, among them, a reading of another patient with the taken id, six in flight at
        // a time: as many as the test client has connections to a host. More would wait in the client's own queue, where
        // its 10-s timeout runs too, and time out there when the whole suite loads the machine.
        let ids = (0..<24).map { _ in UUID().uuidString.lowercased() }
        let requests = ids.enumerated().map { index, id in (id, "p-gc-\(index % 8)", id) } + [("taken", "p-gc-other", taken)]
        let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
            var statuses: [String: Int] = [:]
            for (index, (name, patient, id)) in requests.enumerated() {
                if index >= 6, let (done, status) = try await group.next() { statuses[done] = status }
                group.addTask {
                    (name, try await HTTP.post(ingest + "/v1/patients/\(patient)/measurements/blood-pressure", json: reading(id)).status)
                }
            }
            for try await (name, status) in group { statuses[name] = status }
            return statuses
        }
        #expect(statuses["taken"] == 409)
        #expect(ids.allSatisfy { statuses[$0] == 201 }, "\(statuses.values.sorted())")

        let commits = (await HTTP.metric(ingest, #"caretide_group_commits_total{group_commit="records"}"#) ?? 0) - commitsBefore
        let writes = (await HTTP.metric(ingest, #"caretide_group_committed_writes_total{group_commit="records"}"#) ?? 0) - writesBefore
        // How many shared a transaction depends on how they arrived: only that none took more than one.
        #expect(writes == 25, "every write went through the group commit, the refused one too")
        #expect(commits >= 1 && commits <= writes)

        let (stored, events, audited) = try await stack.withDatabase(schema: "ingest") { database, logger in
            func count(_ sql: PostgresQuery) async throws -> Int {
                try await database.client.query(sql, logger: logger).collectAll().first?.decode(Int.self) ?? -1
            }
            return (
                try await count("SELECT count(*) FROM records WHERE patient_id LIKE 'p-gc-%' AND patient_id <> 'p-gc-owner'"),
                try await count("SELECT count(DISTINCT last_event_id) FROM records WHERE patient_id LIKE 'p-gc-%'"),
                try await count("SELECT count(*) FROM access_audit WHERE patient_id LIKE 'p-gc-%' AND action = 'write'")
            )
        }
        #expect(stored == 24, "the refused reading left nothing behind")
        #expect(events == 25, "each record its own event")
        #expect(audited == 26, "every request audited once: the first, the 24, and the refusal")
    }
}
