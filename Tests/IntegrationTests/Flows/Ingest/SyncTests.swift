import CaretideIdentity
import CaretideRuntime
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import IngestService
import PostgresNIO
import Testing

/// Offline sync against the real service and PostgreSQL: the changes feed in commit order with tombstones, uploads of
/// offline changes from two devices, a writer that commits late, and cursors that outlive the kept tombstones.
@Suite(.serialized, .stoppingStacks) struct SyncTests {
    static let takenAt = "2026-11-20T08:00:00Z"

    static func reading(_ id: String, systolic: Int) -> [String: Any] {
        ["measurementId": id, "takenAt": takenAt, "systolic": systolic, "diastolic": 80]
    }

    static func json(_ object: Any) -> String { String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self) }

    struct Feed {
        let changes: [[String: Any]]
        let nextCursor: String
        let hasMore: Bool
    }

    static func feed(_ base: String, patient: String, cursor: String? = nil, limit: Int = 500, device: String? = nil) async throws -> Feed {
        var url = "\(base)/v1/patients/\(patient)/changes?limit=\(limit)"
        if let cursor { url += "&cursor=\(cursor)" }
        if let device { url += "&device=\(device)" }
        let reply = try await HTTP.get(url)
        #expect(reply.status == 200, "\(reply.text)")
        let object = try #require(try reply.json() as? [String: Any])
        return Feed(
            changes: object["changes"] as? [[String: Any]] ?? [], nextCursor: object["nextCursor"] as? String ?? "",
            hasMore: object["hasMore"] as? Bool ?? true)
    }

    /// Reads the whole feed after `cursor`, page by page.
    static func readAll(_ base: String, patient: String, after cursor: String? = nil, limit: Int = 500) async throws -> ([[String: Any]], String) {
        var changes: [[String: Any]] = []
        var cursor = cursor
        while true {
            let page = try await feed(base, patient: patient, cursor: cursor, limit: limit)
            changes += page.changes
            cursor = page.nextCursor
            if !page.hasMore { return (changes, page.nextCursor) }
        }
    }

    static func upload(_ base: String, patient: String, _ changes: [[String: Any]]) async throws -> (
        status: Int, results: [[String: Any]], checkpoint: String?
    ) {
        let reply = try await HTTP.post("\(base)/v1/patients/\(patient)/changes", json: json(["changes": changes]))
        let object = try? reply.json() as? [String: Any]
        return (reply.status, object?["results"] as? [[String: Any]] ?? [], object?["checkpoint"] as? String)
    }

    @Test("the feed lists each record's newest state in commit order, deletions as tombstones, page by page")
    func feedInCommitOrder() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let base = stack.baseURL(IngestService.name)
        let ids = (0..<10).map { _ in UUID().uuidString.lowercased() }
        for (offset, id) in ids.enumerated() {
            let reply = try await HTTP.post(
                "\(base)/v1/patients/p-feed/measurements/blood-pressure", json: Self.json(Self.reading(id, systolic: 120 + offset)))
            #expect(reply.status == 201)
        }
        let (first, cursor) = try await Self.readAll(base, patient: "p-feed")
        #expect(first.map { $0["id"] as? String } == ids)
        #expect(
            first.allSatisfy {
                $0["type"] as? String == "measurement" && $0["kind"] as? String == "blood-pressure" && $0["deleted"] as? Bool == false
            })

        // A correction and a deletion move their records to the end of the feed, in the order they committed.
        #expect(
            try await HTTP.send(
                method: "PUT", "\(base)/v1/patients/p-feed/measurements/blood-pressure/\(ids[0])",
                json: Self.json(Self.reading(ids[0], systolic: 150))
            ).status == 200)
        #expect(try await HTTP.send(method: "DELETE", "\(base)/v1/patients/p-feed/measurements/blood-pressure/\(ids[1])").status == 200)
        let (after, _) = try await Self.readAll(base, patient: "p-feed", after: cursor)
        #expect(after.map { $0["id"] as? String } == [ids[0], ids[1]])
        #expect((after[0]["record"] as? [String: Any])?["systolic"] as? Int == 150 && after[0]["revision"] as? Int == 2)
        #expect(after[1]["deleted"] as? Bool == true && after[1]["record"] == nil && after[1]["deletedAt"] is String)

        // From the start, in pages of one and of three: each record once, in commit order, the last page saying no more.
        for limit in [1, 3] {
            let (paged, _) = try await Self.readAll(base, patient: "p-feed", limit: limit)
            #expect(paged.map { $0["id"] as? String } == Array(ids[2...]) + [ids[0], ids[1]])
        }

        // Another patient's feed is not this one's, and a cursor of another kind is refused.
        #expect(try await Self.feed(base, patient: "p-other").changes.isEmpty)
        #expect(try await HTTP.get("\(base)/v1/patients/p-feed/changes", as: .identity(.init(subject: "p-other", role: .patient))).status == 403)
        let foreign = PageRequest.Cursor(position: "5", id: "x").encoded
        #expect(try await HTTP.get("\(base)/v1/patients/p-feed/changes?cursor=\(foreign)").status == 400)
        #expect(try await HTTP.get("\(base)/v1/patients/p-feed/changes?device=bad%20id").status == 400)
        try await stack.shutdown()
    }

    @Test("a change whose transaction started first and committed last is not skipped by a reader in between")
    func lateCommitIsNotSkipped() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let base = stack.baseURL(IngestService.name)
        let early = UUID().uuidString.lowercased()
        #expect(
            try await HTTP.post("\(base)/v1/patients/p-late/measurements/blood-pressure", json: Self.json(Self.reading(early, systolic: 120))).status
                == 201)
        let (_, cursor) = try await Self.readAll(base, patient: "p-late")

        // A slow writer: takes the patient's next change number and writes its record, then waits before committing.
        let slow = UUID().uuidString.lowercased()
        let committed = try await stack.withDatabase(schema: "ingest") { database, logger in
            try await database.transaction { connection in
                try await connection.query(
                    """
                    WITH change AS (UPDATE patient_changes SET last_seq = last_seq + 1 WHERE patient_id = 'p-late' RETURNING last_seq)
                    INSERT INTO records (record_type, record_id, patient_id, revision, body, observed_at, last_event_id, change_seq)
                    SELECT 'measurement:blood-pressure', \(slow), 'p-late', 1, \(Self.json(Self.reading(slow, systolic: 130)))::jsonb, now(), \(UUID()),
                           change.last_seq FROM change
                    """, logger: logger)
                // Meanwhile a request writes another reading of the same patient, and a device reads the feed.
                let later = UUID().uuidString.lowercased()
                let request = Task {
                    try await HTTP.post("\(base)/v1/patients/p-late/measurements/blood-pressure", json: Self.json(Self.reading(later, systolic: 140)))
                }
                // The request is waiting behind the slow writer's lock on the patient's change number before the feed is read.
                try await eventually("the request waits for the slow writer") {
                    try await database.client.fetchAll(
                        """
                        SELECT count(*)::int FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%patient_changes%'
                        """, as: Int.self, logger: logger
                    ).first ?? 0 >= 1
                }
                let during = try await Self.feed(base, patient: "p-late", cursor: cursor)
                #expect(during.changes.isEmpty, "a reader sees neither the uncommitted change nor the one waiting behind it")
                return (later, request)
            }
        }
        let (later, request) = committed
        #expect(try await request.value.status == 201)
        let (after, _) = try await Self.readAll(base, patient: "p-late", after: cursor)
        #expect(after.map { $0["id"] as? String } == [slow, later], "the late commit comes first: it took its number first")
        try await stack.shutdown()
    }

    @Test(
        "two devices upload 200 offline changes: the last writer wins, stale writes are conflicts, deletions win, and the feed replays the end state")
    func twoDevicesConverge() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let base = stack.baseURL(IngestService.name)
        let patient = "p-sync"
        let ids = (0..<40).map { _ in UUID().uuidString.lowercased() }
        let start = Date(timeIntervalSinceNow: -30 * 86_400)  // a month offline
        func at(_ minutes: Int) -> String { Timestamp.format(start.addingTimeInterval(Double(minutes) * 60)) }
        func change(_ id: String, minute: Int, systolic: Int? = nil, deleted: Bool = false) -> [String: Any] {
            var item: [String: Any] = ["kind": "blood-pressure", "id": id, "updatedAt": at(minute)]
            if deleted { item["deleted"] = true } else { item["record"] = Self.reading(id, systolic: systolic!) }
            return item
        }
        // The model: per id, the newest body unless deleted.
        var expected: [String: Int?] = [:]

        // Device A creates all 40 and edits the first 20 (100 changes in two uploads).
        var deviceA = ids.map { change($0, minute: 0, systolic: 120) }
        deviceA += ids.prefix(20).map { change($0, minute: 10, systolic: 130) }
        let firstA = try await Self.upload(base, patient: patient, Array(deviceA.prefix(40)))
        #expect(firstA.status == 200)
        #expect(firstA.results.allSatisfy { $0["status"] as? String == "recorded" })
        let secondA = try await Self.upload(base, patient: patient, Array(deviceA.suffix(20)))
        #expect(secondA.results.allSatisfy { $0["status"] as? String == "corrected" && $0["revision"] as? Int == 2 })
        for id in ids { expected[id] = 120 }
        for id in ids.prefix(20) { expected[id] = 130 }

        // Device B, offline since before A's edits: edits ids 10..<30 at minute 5 (stale for 10..<20, newer for
        // 20..<30), deletes 30..<40, and re-sends 0..<10 unchanged as of minute 0 (100 changes).
        var deviceB = ids[10..<30].map { change($0, minute: 5, systolic: 125) }
        deviceB += ids[30..<40].map { change($0, minute: 5, deleted: true) }
        deviceB += ids[0..<10].map { change($0, minute: 0, systolic: 120) }
        deviceB += ids[0..<10].map { _ in change(UUID().uuidString.lowercased(), minute: 5, deleted: true) }  // deletions of records never stored
        let fresh = (0..<50).map { _ in UUID().uuidString.lowercased() }
        deviceB += fresh.enumerated().map { offset, id in change(id, minute: 6, systolic: 100 + offset) }
        let b = try await Self.upload(base, patient: patient, deviceB)
        #expect(b.status == 200)
        #expect(b.results.count == 100)
        let statuses = b.results.map { $0["status"] as? String ?? "" }
        #expect(statuses[0..<10].allSatisfy { $0 == "conflict" }, "older than A's edit: \(statuses[0..<10])")
        #expect(b.results[0]["reason"] as? String == "stale")
        #expect((b.results[0]["stored"] as? [String: Any])?["revision"] as? Int == 2)
        #expect(statuses[10..<20].allSatisfy { $0 == "corrected" })
        #expect(statuses[20..<30].allSatisfy { $0 == "deleted" })
        #expect(statuses[30..<40].allSatisfy { $0 == "conflict" }, "their old value, older than A's edit: \(statuses[30..<40])")
        #expect(statuses[40..<50].allSatisfy { $0 == "deleted" })
        #expect(statuses[50..<100].allSatisfy { $0 == "recorded" })
        for id in ids[20..<30] { expected[id] = 125 }
        for id in ids[30..<40] { expected[id] = .some(nil) }
        for (offset, id) in fresh.enumerated() { expected[id] = 100 + offset }

        // A deleted record stays deleted: A's later edit of one is a conflict.
        let late = try await Self.upload(base, patient: patient, [change(ids[30], minute: 20, systolic: 160)])
        #expect(late.results.first?["status"] as? String == "conflict" && late.results.first?["reason"] as? String == "deleted")

        // A fresh device reading the feed from the start gets exactly the model.
        let (all, _) = try await Self.readAll(base, patient: patient, limit: 37)
        var seen: [String: Int?] = [:]
        for entry in all {
            let id = entry["id"] as! String
            #expect(seen[id] == nil, "each record once")
            seen[id] = entry["deleted"] as? Bool == true ? .some(nil) : (entry["record"] as? [String: Any])?["systolic"] as? Int
        }
        #expect(seen == expected)
        try await stack.shutdown()
    }

    @Test("an upload refuses each bad change naming its fields, applies the rest, and needs the patient's own token")
    func uploadValidation() async throws {
        let stack = try await TestStack.start([IngestService.definition])
        let base = stack.baseURL(IngestService.name)
        let good = UUID().uuidString.lowercased()
        let twice = UUID().uuidString.lowercased()
        let future = Timestamp.format(Date(timeIntervalSinceNow: 3600))
        let changes: [[String: Any]] = [
            ["kind": "blood-pressure", "id": good, "updatedAt": "2026-11-20T08:00:00Z", "record": Self.reading(good, systolic: 120)],
            ["kind": "blood-pressure", "id": twice, "updatedAt": future, "record": Self.reading(twice, systolic: 400)],
            ["kind": "blood-pressure", "id": twice, "updatedAt": "2026-11-20T08:00:00Z", "deleted": true],
            ["kind": "pulse", "id": UUID().uuidString.lowercased(), "updatedAt": "2026-11-20T08:00:00Z"],
            [
                "kind": "blood-pressure", "id": UUID().uuidString.lowercased(), "updatedAt": "2026-11-20T08:00:00Z",
                "record": Self.reading(good, systolic: 120),
            ],
        ]
        let answer = try await Self.upload(base, patient: "p-upload", changes)
        #expect(answer.status == 200)
        #expect(answer.results.map { $0["status"] as? String } == ["recorded", "refused", "refused", "refused", "refused"])
        func pointers(_ index: Int) -> [String] {
            (answer.results[index]["violations"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
        }
        #expect(Set(pointers(1)) == ["/changes/1/updatedAt", "/changes/1/record/systolic"])
        #expect(pointers(2) == ["/changes/2/id"])
        #expect(pointers(3) == ["/changes/3/record"])
        #expect(pointers(4) == ["/changes/4/record/measurementId"])
        #expect(answer.checkpoint != nil)

        // The whole body is checked first: too many changes, or none, is a 400.
        let tooMany = (0..<1_001).map { _ in
            ["kind": "pulse", "id": UUID().uuidString.lowercased(), "updatedAt": "2026-11-20T08:00:00Z", "deleted": true]
        }
        #expect(try await Self.upload(base, patient: "p-upload", tooMany).status == 400)
        #expect(try await Self.upload(base, patient: "p-upload", []).status == 400)
        let other = try await HTTP.post(
            "\(base)/v1/patients/p-upload/changes", json: Self.json(["changes": [changes[0]]]),
            as: .identity(.init(subject: "p-else", role: .patient)))
        #expect(other.status == 403)
        try await stack.shutdown()
    }

    @Test("tombstones past their retention go, and a cursor from before them is told to resync; a device that read past them lets them go sooner")
    func resyncAfterPurge() async throws {
        // Tombstones are kept a day; the purge runs every second.
        let settings = SyncSettings(tombstoneRetention: .seconds(86_400), purgeInterval: .seconds(1))
        let stack = try await TestStack.start([IngestService.definition(sync: settings)])
        let base = stack.baseURL(IngestService.name)
        let (kept, gone) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        for id in [kept, gone] {
            #expect(
                try await HTTP.post("\(base)/v1/patients/p-purge/measurements/blood-pressure", json: Self.json(Self.reading(id, systolic: 120)))
                    .status == 201)
        }
        let oldCursor = try await Self.feed(base, patient: "p-purge", device: "phone").nextCursor
        #expect(try await HTTP.send(method: "DELETE", "\(base)/v1/patients/p-purge/measurements/blood-pressure/\(gone)").status == 200)

        // Within the day, the tombstone stays while the phone has not read past it: two purge rounds later (the
        // second started after the deletion), it is still there.
        let rounds = #"caretide_periodic_job_rounds_total{periodic_job="sync tombstone purge"}"#
        let atDeletion = await HTTP.metric(base, rounds) ?? 0
        try await eventually("two purge rounds after the deletion") { (await HTTP.metric(base, rounds) ?? 0) >= atDeletion + 2 }
        let pending = try await Self.feed(base, patient: "p-purge", cursor: oldCursor, device: "phone")
        #expect(pending.changes.map { $0["id"] as? String } == [gone])
        // The phone asks again from after the tombstone: it has read past it, so the purge may take it.
        _ = try await Self.feed(base, patient: "p-purge", cursor: pending.nextCursor, device: "phone")
        try await eventually("the tombstone is purged") {
            try await HTTP.get("\(base)/v1/patients/p-purge/changes?cursor=\(oldCursor)").status == 410
        }
        let reply = try await HTTP.get("\(base)/v1/patients/p-purge/changes?cursor=\(oldCursor)")
        #expect((try reply.json() as? [String: Any])?["resyncRequired"] as? Bool == true)
        // A resync from the start gives the current state; the phone's own cursor still works.
        #expect(try await Self.readAll(base, patient: "p-purge").0.map { $0["id"] as? String } == [kept])
        #expect(try await HTTP.get("\(base)/v1/patients/p-purge/changes?cursor=\(pending.nextCursor)").status == 200)
        try await stack.shutdown()
    }
}
