import CaretideDomain
import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideSchemas
import CaretideStore
import CaretideTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

// What the tests that run the pipeline as processes under load share (`PipelineFaultTests`, `ScaleOutTests`): the
// processes, the load, and the reconciliation at the end.

/// Services run as processes of their own, each on a port of its own, restartable with the same settings.
///
/// A replica is named by its service, alone ("scoring-service") or with a number ("scoring-service#2"): the executable
/// is the part before the `#`. Every replica gets the same environment (the stack's), so the replicas of a service
/// share its database schema and its consumer group (`caretide-<service>`), as replicas in a deployment do; only
/// `HTTP_PORT` differs. A replica restarted under its name gets its port back.
final class ServiceReplicas: Sendable {
    let environment: [String: String]
    private let ports = Mutex<[String: Int]>([:])
    private let running = Mutex<[String: ServiceProcess]>([:])

    init(environment: [String: String]) {
        self.environment = environment
    }

    /// The executable a replica runs: "scoring-service" for "scoring-service#2".
    static func service(of replica: String) -> String { String(replica.prefix { $0 != "#" }) }

    /// A started replica's API (and `/metrics`) address.
    func baseURL(_ replica: String) -> String { "http://127.0.0.1:\(ports.withLock { $0[replica] }!)" }

    func start(_ replica: String) throws {
        var environment = self.environment
        environment["HTTP_PORT"] = String(try port(replica))
        let process = ServiceProcess(name: replica, executable: Paths.executable(Self.service(of: replica)), environment: environment)
        try process.start()
        running.withLock { $0[replica] = process }
    }

    /// The replica's port: the one it had, else a free one no other replica has.
    private func port(_ replica: String) throws -> Int {
        if let known = ports.withLock({ $0[replica] }) { return known }
        var port = try FreePort.find()
        while ports.withLock({ $0.values.contains(port) }) { port = try FreePort.find() }
        ports.withLock { $0[replica] = port }
        return port
    }

    /// SIGKILL, as a crash would; returns the exit code (128 + SIGKILL). The replica no longer counts as running
    /// (`allReady`, `stopAll`) until it is started again.
    func kill(_ replica: String) -> Int32? {
        guard let process = running.withLock({ $0.removeValue(forKey: replica) }) else { return nil }
        process.killHard()
        return process.exitCode
    }

    func stopAll() async {
        for process in running.withLock({ Array($0.values) }) { await process.stop() }
    }

    /// Whether every running replica answers `/readyz` with 200.
    func allReady() async -> Bool {
        for replica in running.withLock({ Array($0.keys) }) where (try? await HTTP.get(baseURL(replica) + "/readyz"))?.status != 200 {
            return false
        }
        return true
    }

    /// What the replica's own process counts in `caretide_events_consumed_total` for `topic` (`ServiceMetrics`,
    /// incremented by `EventConsumerService` for each message its lanes take, redeliveries included); nil when its
    /// `/metrics` does not answer. Each process has its own registry, so this is the replica's share of the work.
    func consumed(_ replica: String, topic: String) async -> Int? {
        await HTTP.metric(baseURL(replica), #"caretide_events_consumed_total{topic="\#(topic)"}"#).map { Int($0) }
    }

    /// Runs `body`; should it throw, stops every replica before rethrowing, so a failed test leaves no process of its
    /// own running beside the tests after it (they would end only with the test process).
    func stopAllOnFailure(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await stopAll()
            throw error
        }
    }
}

final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// The load: clients sending urgent readings (every one alerts its patient), each sent until it is accepted, with the
/// same measurement id and Idempotency-Key on every retry, as a client that cannot tell whether a lost answer was a
/// stored reading. It starts at once and runs until `stop()`.
///
/// With several ingest addresses (replicas behind a load balancer), a client sends each attempt to the next one, so a
/// reading may be retried on another replica than the one that stored it; with one, every attempt goes there.
final class UrgentReadingLoad: Sendable {
    /// Readings answered 201 (recorded) or 200 (duplicate), each once.
    let accepted: Recorder<UUID>
    /// Readings given up after two minutes of refusals, with the statuses they got (0: no answer).
    let abandoned: Recorder<String>
    private let stopping: StopFlag
    private let task: Task<Void, any Error>

    /// - Parameters:
    ///   - ingest: ingest-service addresses.
    ///   - patients: how many patients the readings are spread over (`<patientPrefix><n>`).
    init(ingest: [String], patients: Int, patientPrefix: String, clients: Int = 4) {
        precondition(!ingest.isEmpty, "the load needs an ingest-service")
        // Locals, so the task captures them rather than `self` (not yet initialised here).
        let (accepted, abandoned, stopping) = (Recorder<UUID>(), Recorder<String>(), StopFlag())
        self.accepted = accepted
        self.abandoned = abandoned
        self.stopping = stopping
        task = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var index = 0
                        while !stopping.isSet {
                            let id = UUID()
                            let patient = "\(patientPrefix)\((client * 1_000 + index) % patients)"
                            var attempt = client + index
                            index += 1
                            let body = #"{"measurementId": "\#(id)", "systolic": 190, "diastolic": 100, "takenAt": "2026-11-22T07:00:00Z"}"#
                            let deadline = ContinuousClock.now + .seconds(120)
                            var answers: [Int] = []
                            var stored = false
                            while ContinuousClock.now < deadline {
                                let url = ingest[attempt % ingest.count]
                                attempt += 1
                                let reply = try? await HTTP.send(
                                    method: "POST", url + "/v1/patients/\(patient)/measurements/blood-pressure", body: Data(body.utf8),
                                    as: .identity(Identity(subject: patient, role: .patient)), headers: ["Idempotency-Key": id.uuidString])
                                // 201 recorded; 200 "duplicate" when an earlier try was stored but its answer lost with the
                                // process before it was kept for the key (the documented contract of Idempotency-Key), or
                                // stored by another replica.
                                if reply?.status == 201 || reply?.status == 200 {
                                    accepted.append(id)
                                    stored = true
                                    break
                                }
                                answers.append(reply?.status ?? 0)
                                try await Task.sleep(for: .milliseconds(200))
                            }
                            if !stored { abandoned.append("\(id.uuidString.lowercased()): \(answers)") }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// A test that fails before `stop()` does not leave its clients sending for ever.
    deinit {
        stopping.set()
        task.cancel()
    }

    /// Lets the load run on until at least 20 more readings are accepted and 20 more assessed than before.
    func progress(_ what: String, in stack: TestStack) async throws {
        let (acceptedBefore, assessedBefore) = (accepted.values.count, await PipelineReconciliation.assessedCount(stack))
        try await eventually("the load goes on (\(what))", timeout: .seconds(120)) {
            let assessed = await PipelineReconciliation.assessedCount(stack)
            return accepted.values.count >= acceptedBefore + 20 && assessed >= assessedBefore + 20
        }
    }

    /// Ends the load: each client finishes the reading in hand (accepted or given up) and stops.
    func stop() async throws {
        stopping.set()
        try await task.value
    }
}

/// The end of a test under load: every accepted reading exactly once in scoring, once in the patient's inbox, once on
/// `caretide.alerts`, and every recipient's alerts numbered without a gap.
enum PipelineReconciliation {
    /// Assessments in scoring's table (0 while the database does not answer).
    static func assessedCount(_ stack: TestStack) async -> Int {
        (try? await stack.withDatabase(schema: "scoring") { database, logger in
            try await database.client.fetchAll("SELECT count(*)::int FROM assessments", as: Int.self, logger: logger).first
        }) ?? 0
    }

    /// - Parameters:
    ///   - alerts: a probe of `caretide.alerts` opened before the load.
    ///   - accepted: the readings the load had accepted (`UrgentReadingLoad.accepted`), once the load stopped.
    ///   - abandoned: the readings it gave up, named when something was assessed that was never accepted.
    static func verify(stack: TestStack, alerts: KafkaProbe, accepted: [UUID], abandoned: [String]) async throws {
        let expected = Set(accepted.map { $0.uuidString.lowercased() })
        #expect(expected.count == accepted.count, "each reading accepted once")
        // Assessments by reading, and the patient's urgent notifications by the assessment they are about.
        func reconciled() async throws -> (assessments: [String: [UUID]], notified: [UUID: Int]) {
            let assessed = try await stack.withDatabase(schema: "scoring") { database, logger in
                try await database.client.fetchAll(
                    "SELECT lower(subject_id), assessment_id FROM assessments", as: (String, UUID).self, logger: logger)
            }
            let notified = try await stack.withDatabase(schema: "notification") { database, logger in
                try await database.client.fetchAll(
                    "SELECT about_id, count(*)::int FROM notifications WHERE recipient_role = 'patient' AND severity = 'urgent' GROUP BY about_id",
                    as: (UUID, Int).self, logger: logger)
            }
            return (Dictionary(grouping: assessed, by: \.0).mapValues { $0.map(\.1) }, Dictionary(uniqueKeysWithValues: notified))
        }
        // Until everything has arrived (bounded); the expectations then say what is missing.
        var (assessments, notified) = try await reconciled()
        let settled = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < settled, Set(assessments.keys) != expected || Set(notified.keys) != Set(assessments.values.joined()) {
            try await Task.sleep(for: .seconds(1))
            (assessments, notified) = try await reconciled()
        }
        let unassessed = expected.subtracting(assessments.keys)
        let unnotified = Set(assessments.values.joined()).subtracting(notified.keys)
        #expect(unassessed.isEmpty, "\(unassessed.count) of \(expected.count) accepted readings never assessed: \(Array(unassessed.prefix(5)))")
        let unaccepted = Set(assessments.keys).subtracting(expected)
        #expect(
            unaccepted.isEmpty,
            "\(unaccepted.count) assessed though never accepted: \(Array(unaccepted.prefix(5))); given up: \(Array(abandoned.prefix(5)))")
        #expect(unnotified.isEmpty, "\(unnotified.count) assessments never notified: \(Array(unnotified.prefix(5)))")
        #expect(assessments.values.allSatisfy { $0.count == 1 }, "one assessment per reading")
        #expect(notified.values.allSatisfy { $0 == 1 }, "one notification per assessment")

        // On the topic: each patient's alert for each reading, and every recipient's messages numbered 1, 2, 3… (a
        // message repeated after a crash carries the same id and number, and consumers drop it).
        let sources: [UUID] = try await stack.withDatabase(schema: "notification") { database, logger in
            try await database.client.fetchAll(
                "SELECT source_event_id FROM notifications WHERE recipient_role = 'patient' AND severity = 'urgent'", as: UUID.self, logger: logger)
        }
        let notifiedSources = Set(sources)
        // Ids, not just counts: a message read twice (same event id) is one message; two different alerts for one
        // reading, or two messages under one number, are a fault.
        var urgent: [UUID: Set<UUID>] = [:]
        var numbers: [String: [Int: Set<UUID>]] = [:]
        func read(_ messages: [IncomingMessage]) throws {
            for message in messages {
                let event = try EventCodec().decode(message.value)
                if let alert = event.payload(as: AlertRaised.self) {
                    if alert.severity == .urgent && alert.recipientRole == .patient { urgent[alert.sourceEventID, default: []].insert(alert.alertID) }
                    numbers[alert.recipientID ?? "", default: [:]][alert.sequence ?? 0, default: []].insert(event.eventID)
                } else if let withdrawal = event.payload(as: AlertWithdrawn.self) {
                    numbers[withdrawal.recipientID ?? "", default: [:]][withdrawal.sequence ?? 0, default: []].insert(event.eventID)
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(180)
        while urgent.count < notifiedSources.count, ContinuousClock.now < deadline { try read(try await alerts.drain(for: .milliseconds(500))) }
        try read(try await alerts.drain(for: .seconds(2)))
        #expect(Set(urgent.keys) == notifiedSources, "an urgent alert per reading on the topic")
        let twice = urgent.filter { $0.value.count > 1 }
        #expect(twice.isEmpty, "\(twice.count) readings alerted more than once: \(Array(twice.prefix(3)))")
        for (recipient, seen) in numbers {
            #expect(seen.keys.sorted() == Array(1...seen.count), "\(recipient): \(seen.keys.sorted())")
            let reused = seen.filter { $0.value.count > 1 }.keys.sorted()
            #expect(reused.isEmpty, "\(recipient): numbers given to more than one message: \(reused)")
        }
    }
}
