import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Services scale out. Two replicas of each consuming service, in one consumer group, share the
/// partitions; a replica killed or added under load makes the group rebalance, and nothing is lost or applied twice.
/// Two replicas of ingest-service over one database answer a reading sent to both with one Idempotency-Key as one
/// reading.
///
/// The broker stays up, but each test runs six or seven service processes: they are in SerialTests, which scripts/test
/// runs one test at a time after the rest, rather than beside everything else.
@Suite(.serialized, .stoppingStacks) struct ScaleOutTests {
    static let services = ["ingest-service", "scoring-service", "notification-service"]
    static let patients = 40

    @Test(
        "two replicas of each service share the partitions; a consumer killed or added under load is rebalanced around; nothing lost, nothing twice")
    func replicasShareAndRebalance() async throws {
        // Six partitions: with two or three members in a group, each member owns some (range assignment gives
        // three each to two members, two each to three), so every replica has work and a departure moves partitions.
        let stack = try await TestStack.start([], partitions: 6)
        let alerts = try KafkaProbe(stack.kafka, topic: Topic.alerts.name)
        // One environment for all: the replicas of a service share its schema and its consumer group. Three lanes
        // each, so that a partition's events keep their order across lanes while partitions move between members.
        var environment = try await stack.processEnvironment()
        environment["CONSUMER_LANES"] = "3"
        let replicas = ServiceReplicas(environment: environment)
        try await replicas.stopAllOnFailure {
            for service in Self.services {
                for number in 1...2 { try replicas.start("\(service)#\(number)") }
            }
            try await eventually("the replicas ready", timeout: .seconds(120)) { await replicas.allReady() }

            // Each client alternates between the two ingest replicas, a retry included, as behind a load balancer.
            let load = UrgentReadingLoad(
                ingest: ["ingest-service#1", "ingest-service#2"].map { replicas.baseURL($0) }, patients: Self.patients,
                patientPrefix: "p-scale-")
            try await load.progress("at the start", in: stack)

            // Both replicas of each consumer apply events, not one while the other idles: each process counts what
            // its own lanes take (`caretide_events_consumed_total`; the processes started with no events, so from 0).
            // Scoring consumes the readings, notification the assessments.
            try await Self.consuming(["scoring-service#1", "scoring-service#2"], topic: Topic.measurements.name, replicas)
            try await Self.consuming(["notification-service#1", "notification-service#2"], topic: Topic.scores.name, replicas)

            // A replica lost: after its session times out the group gives its partitions to the other, which resumes
            // from the committed offsets (messages applied but not committed are redelivered, and dropped by event id).
            #expect(replicas.kill("scoring-service#2") == 128 + SIGKILL, "scoring-service#2 killed")
            try await load.progress("after scoring-service#2 was killed", in: stack)
            try await Self.sessionExpired()
            // A replica added: the group rebalances to give it a share.
            try replicas.start("scoring-service#3")
            try await load.progress("after scoring-service#3 was added", in: stack)
            try await Self.consuming(["scoring-service#3"], topic: Topic.measurements.name, replicas)

            // The same for notification, which numbers each recipient's alerts: a partition changing hands must not
            // repeat or skip a number (the reconciliation checks them).
            #expect(replicas.kill("notification-service#1") == 128 + SIGKILL, "notification-service#1 killed")
            try await load.progress("after notification-service#1 was killed", in: stack)
            try await Self.sessionExpired()
            try replicas.start("notification-service#3")
            try await load.progress("after notification-service#3 was added", in: stack)
            try await Self.consuming(["notification-service#3"], topic: Topic.scores.name, replicas)
            try await load.stop()

            try await PipelineReconciliation.verify(stack: stack, alerts: alerts, accepted: load.accepted.values, abandoned: load.abandoned.values)
            try await eventually("every replica ready at the end") { await replicas.allReady() }
        }
        await replicas.stopAll()
        await alerts.close()
        try await stack.shutdown()
    }

    /// Waits until each of `names` is ready and has consumed messages of `topic` (the load is running, so a replica
    /// that owns partitions of it gets some within seconds; one that owns none never does).
    static func consuming(_ names: [String], topic: String, _ replicas: ServiceReplicas) async throws {
        for name in names {
            try await eventually("\(name) ready", timeout: .seconds(120)) { await replicas.allReady() }
            do {
                try await eventually("\(name) consumes \(topic)", timeout: .seconds(90)) {
                    (await replicas.consumed(name, topic: topic) ?? 0) > 0
                }
            } catch {
                // What the replica's own metrics say: which topics it consumed, and its lag per topic.
                let metrics = (try? await HTTP.get(replicas.baseURL(name) + "/metrics", as: .anonymous))?.text ?? "no answer"
                let lines = metrics.split(separator: "\n").filter {
                    $0.hasPrefix("caretide_events_consumed_total") || $0.hasPrefix("caretide_consumer_lag")
                }
                Issue.record("\(name) consumed nothing of \(topic): \(lines.joined(separator: "; "))")
                throw error
            }
        }
    }

    /// Waits out the consumer session of a killed replica (`session.timeout.ms`, 6 s for the embedded broker's
    /// clients) before the next replica joins. A real broker expires a dead member's session even while a rebalance
    /// waits for members to rejoin; librdkafka's mock coordinator (2.0.2) does not, and a join then waits out the
    /// rebalance timeout (`max.poll.interval.ms`, 5 minutes). What is under test is the group, not that mock.
    static func sessionExpired() async throws {
        let session = Int(EmbeddedBroker.clientProperties["session.timeout.ms"] ?? "") ?? 6_000
        try await Task.sleep(for: .milliseconds(session + 2_000))
    }

    @Test("two ingest replicas over one database: one reading sent to both at once with one Idempotency-Key is stored once and published once")
    func ingestReplicasHonourIdempotencyKeysOnce() async throws {
        // Only ingest runs. What is under test is its write path: one row and one event per reading whatever the
        // replicas answer. Scoring would add nothing here: it applies an event id once anyway (processed events),
        // and the whole pipeline over two ingest replicas is `replicasShareAndRebalance`'s. The event is checked where
        // it is published, on `caretide.measurements` (the outbox deletes a row once it is published).
        let stack = try await TestStack.start([], partitions: 6)
        let measurements = try KafkaProbe(stack.kafka, topic: Topic.measurements.name)
        let replicas = ServiceReplicas(environment: try await stack.processEnvironment())
        let names = ["ingest-service#1", "ingest-service#2"]
        try await replicas.stopAllOnFailure {
            for name in names { try replicas.start(name) }
            try await eventually("both ingest replicas ready", timeout: .seconds(120)) { await replicas.allReady() }
            let urls = names.map { replicas.baseURL($0) }

            // Event id by measurement id (lower case), from the answer that recorded the reading.
            var recorded: [String: String] = [:]
            var keys: [String] = []
            var raced = 0
            for index in 0..<50 {
                let id = UUID().uuidString.lowercased()
                let key = "replicas-\(id)"
                keys.append(key)
                let path = "/v1/patients/p-replicas-\(index % 10)/measurements/blood-pressure"
                let body = #"{"measurementId": "\#(id)", "systolic": 150, "diastolic": 95, "takenAt": "2026-11-20T08:00:00Z"}"#
                async let toFirst = Self.post(urls[0] + path, body, key: key)
                async let toSecond = Self.post(urls[1] + path, body, key: key)
                let pair = try await [toFirst, toSecond]

                // The contract (`IdempotencyKeys`, `RecordRoutes.store`). The 409 for a key whose first request is
                // still being answered holds within one process only (its in-flight set is in memory), so across
                // replicas both requests may run the write. Both take the patient's change counter first
                // (`RecordWriter`, READ COMMITTED): one inserts the record and answers 201 "recorded"; the
                // other waits for it to commit, finds the record, and answers 200 "duplicate" with the same event id.
                // Or the second arrives after the first answer was kept for the key, and gets that answer replayed
                // (201, `Idempotent-Replayed: true`). Either way exactly one answer recorded the reading.
                let recorders = pair.indices.filter { pair[$0].recordedIt }
                #expect(recorders.count == 1, "reading \(index): one answer records it: \(pair.map(\.summary))")
                guard recorders.count == 1, let eventID = pair[recorders[0]].eventID else { continue }
                let (recorder, other) = (pair[recorders[0]], pair[1 - recorders[0]])
                recorded[id] = eventID
                if other.replayed {
                    #expect(other.status == 201 && other.body == recorder.body, "reading \(index): the first answer replayed: \(pair.map(\.summary))")
                } else {
                    raced += 1
                    #expect(other.status == 200 && other.receipt == "duplicate", "reading \(index): \(pair.map(\.summary))")
                }
                #expect(other.eventID == eventID, "reading \(index): one event id: \(pair.map(\.summary))")

                // Once more to each: both replicas replay the one answer kept for the key (whichever of a raced pair
                // kept it first: `ON CONFLICT (owner, key) DO NOTHING`), and neither runs the write again.
                let later = try await [Self.post(urls[0] + path, body, key: key), Self.post(urls[1] + path, body, key: key)]
                #expect(
                    later.allSatisfy { $0.replayed && [200, 201].contains($0.status) && $0.eventID == eventID },
                    "reading \(index): \(later.map(\.summary))")
                #expect(
                    later[0].status == later[1].status && later[0].body == later[1].body, "reading \(index): one kept answer: \(later.map(\.summary))"
                )
            }
            // The pairs are sent together and a write takes several round trips to PostgreSQL, so most overlap; if
            // none did, the test never had both replicas run one write and proves less than it says.
            #expect(raced > 0, "no pair of requests overlapped")
            #expect(recorded.count == 50)

            // In the database: one record per reading, at its first revision (a second write would have been a
            // "corrected" revision 2 or another event id), and one kept answer per key.
            let ids = Array(recorded.keys)
            let rows = try await stack.withDatabase(schema: "ingest") { database, logger in
                try await database.client.fetchAll(
                    """
                    SELECT record_id, revision, last_event_id FROM records
                    WHERE record_type = 'measurement:blood-pressure' AND record_id = ANY(\(ids))
                    """, as: (String, Int, UUID).self, logger: logger)
            }
            #expect(rows.count == ids.count, "one record per reading")
            for (id, revision, eventID) in rows {
                #expect(revision == 1 && eventID.uuidString.lowercased() == recorded[id], "\(id): revision \(revision), event \(eventID)")
            }
            let kept = try await stack.withDatabase(schema: "ingest") { [keys] database, logger in
                try await database.client.fetchAll(
                    "SELECT count(*)::int FROM idempotency_keys WHERE key = ANY(\(keys))", as: Int.self, logger: logger)
            }
            #expect(kept.first == keys.count, "one kept answer per key")

            // On the topic: one event per reading, the one its record names. The relay of each replica publishes
            // only while it holds the schema's publisher role (`Outbox.tryToBecomePublisher`), and nothing fails here, so no
            // batch is sent twice.
            var published: [String: [String]] = [:]
            func read(_ messages: [IncomingMessage]) throws {
                for message in messages {
                    let event = try EventCodec().decode(message.value)
                    guard let reading = event.payload(as: BloodPressureRecorded.self) else { continue }
                    published[reading.measurementID.uuidString.lowercased(), default: []].append(event.eventID.uuidString.lowercased())
                }
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while published.count < recorded.count, ContinuousClock.now < deadline { try read(try await measurements.drain(for: .milliseconds(500))) }
            try read(try await measurements.drain(for: .seconds(2)))
            #expect(Set(published.keys) == Set(recorded.keys), "every reading published")
            for (id, events) in published {
                #expect(events.count == 1 && events.first == recorded[id], "\(id): published \(events), recorded \(recorded[id] ?? "none")")
            }
            try await eventually("both ingest replicas ready at the end") { await replicas.allReady() }
        }
        await replicas.stopAll()
        await measurements.close()
        try await stack.shutdown()
    }

    /// An answer, with what the receipt in its body says (`RecordRoutes.Receipt`).
    struct Answer: Sendable {
        let status: Int
        let replayed: Bool
        let receipt: String?
        let eventID: String?
        let body: Data

        /// Ran the write and stored the reading (201 "recorded", not a replay).
        var recordedIt: Bool { status == 201 && !replayed && receipt == "recorded" }
        var summary: String { "\(status)\(replayed ? " replayed" : "") \(receipt ?? "?") \(eventID ?? "?")" }
    }

    static func post(_ url: String, _ json: String, key: String) async throws -> Answer {
        let reply = try await HTTP.send(method: "POST", url, body: Data(json.utf8), as: .owner, headers: ["Idempotency-Key": key])
        let receipt = (try? reply.json()) as? [String: Any]
        return Answer(
            status: reply.status, replayed: reply.header("Idempotent-Replayed") == "true", receipt: receipt?["status"] as? String,
            eventID: (receipt?["eventId"] as? String)?.lowercased(), body: reply.body)
    }
}
