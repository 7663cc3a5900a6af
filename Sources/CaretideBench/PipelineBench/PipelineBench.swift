import ArgumentParser
import AsyncHTTPClient
import CaretideIdentity
import CaretideKafka
import CaretideLocalStack
import CaretideRuntime
import Foundation
import Histogram
import NIOCore
import NIOHTTP1
import Synchronization

/// `caretide-bench pipeline`: the whole pipeline under a realistic mix, from the outside. It drives a running stack
/// (`caretide dev`, or any stack whose endpoints file and development signing key are in `--state-dir`) over HTTP
/// as patients' apps, institutions, an operator and a consultant would, watches `caretide.scores` and
/// `caretide.alerts` as a downstream consumer would, and reports per kind the latency from ingest's answer to the
/// end of the pipeline, matched by the W3C trace id each request carries. At the end it reconciles: every accepted
/// request has exactly the assessments and alerts its kind causes, none missing, none twice.
struct PipelineBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Drive a running stack with a realistic mix; end-to-end latency per kind and a reconciliation.")

    @Option(help: "The state directory of `caretide dev` (endpoints.json and the development signing key).") var stateDir = ".caretide"
    @Option(help: "Events per second in total (a sync upload's readings count one by one); 0 = as fast as the stack answers.") var rate = 1_000
    @Option(help: "Seconds of load.") var seconds = 30
    @Option(help: "Distinct patients.") var patients = 1_000
    @Option(help: "Concurrent senders (HTTP connections).") var connections = 32
    @Option(help: "Readings per offline-sync upload.") var syncSize = 50
    @Option(help: "Subscribers of each environment area (one area per sender).") var subscribers = 10
    @Option(help: "Seconds to wait, after the load, for what is still on its way.") var settle = 120
    @Option(help: "Seed of the mix (the same seed sends the same traffic).") var seed: UInt64 = 1

    func validate() throws {
        guard rate >= 0, seconds > 0, patients > 0, connections > 0, (1...1_000).contains(syncSize), subscribers >= 0, settle >= 0 else {
            throw ValidationError("--rate ≥ 0, --seconds, --patients and --connections > 0, --sync-size 1…1000, --subscribers and --settle ≥ 0")
        }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: stateDir).standardizedFileURL
        let endpointsFile = directory.appendingPathComponent("endpoints.json")
        guard let data = try? Data(contentsOf: endpointsFile), let endpoints = try? JSONDecoder().decode(Endpoints.self, from: data) else {
            throw ValidationError("no \(endpointsFile.path): start the stack first (caretide dev --state-dir \(stateDir))")
        }
        let runID = String(UUID().uuidString.lowercased().prefix(8))
        let mix = PipelineMix(
            runID: runID, patients: patients, syncSize: syncSize, areas: connections, subscribersPerArea: subscribers,
            environmentEpoch: Date(timeIntervalSinceNow: -20 * 365 * 86_400))
        let tokens = try await Self.tokens(mix: mix, issuer: try TokenIssuer.development(in: directory), lifetime: seconds + settle + 600)
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(60)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            try await measure(endpoints: endpoints, mix: mix, tokens: tokens, client: client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private func measure(endpoints: Endpoints, mix: PipelineMix, tokens: [PipelineCaller: String], client: HTTPClient) async throws {
        let runID = mix.runID
        let baseURLs: [PipelineService: String] = [.ingest: endpoints.ingest, .notification: endpoints.notification, .diagnosis: endpoints.diagnosis]

        // Before the clock starts: the areas and their subscribers, and whether diagnosis can rank.
        Console.write("setting up: \(connections) areas with \(subscribers) subscribers each…\n")
        try await Self.setUpEnvironment(mix: mix, client: client, baseURLs: baseURLs, tokens: tokens)
        let diagnosis = await Self.canRank(client: client, baseURL: endpoints.diagnosis, token: tokens[.consultant]!)
        if !diagnosis {
            Console.write("diagnosis left out of the mix: diagnosis-service does not rank yet (import an ontology: caretide hpo import)\n")
        }

        let ledger = PipelineLedger()
        let watcher = try PipelineWatcher(
            kafka: KafkaConfiguration(bootstrapServers: endpoints.kafka, properties: ["fetch.wait.max.ms": "10"]), ledger: ledger, tracePrefix: runID,
            logger: BenchPostgres.logger)
        let watching = Task {
            do { try await watcher.run() } catch { ledger.watcherFailed(error) }
        }
        // The watcher reads from the start of each partition (skipping other runs' traces unread), so nothing is
        // missed while it joins its group; giving it the time to join keeps the join out of the first latencies.
        try await Task.sleep(for: .seconds(5))

        let endpoints = try baseURLs.mapValues { url in
            guard let endpoint = LaneHTTP.Endpoint(baseURL: url) else { throw ValidationError("not an http://host:port address: \(url)") }
            return endpoint
        }
        let traffic = PipelineTraffic(
            mix: mix, ledger: ledger, endpoints: endpoints, tokens: tokens, rate: rate, diagnosis: diagnosis, tracePrefix: runID, seed: seed)
        Console.write(
            "load: \(rate == 0 ? "as fast as the stack answers" : "\(rate) events/s") for \(seconds) s, \(connections) connections, \(patients) patients\n"
        )
        let cpuBefore = ProcessCPU.snapshot()
        let start = ContinuousClock.now
        ledger.loadStarts()
        let loadEnd = start + .seconds(seconds)
        let load = Task { await traffic.run(lanes: connections, until: loadEnd) }
        let progress = Task { await Self.progress(ledger: ledger, traffic: traffic, start: start) }
        await load.value
        let loadStopped = ContinuousClock.now
        let cpu = ProcessCPU.snapshot().cores(since: cpuBefore, seconds: (loadStopped - start).seconds)

        // Whatever is still on its way: until every accepted request is complete, or nothing arrived for `settle` s.
        var lastCount = ledger.counters.downstream
        var lastChange = ContinuousClock.now
        while ledger.counters.awaited > 0, ContinuousClock.now - lastChange < .seconds(settle) {
            try await Task.sleep(for: .milliseconds(200))
            let count = ledger.counters.downstream
            if count != lastCount { (lastCount, lastChange) = (count, .now) }
        }
        // Redeliveries and anything extra a little longer.
        try await Task.sleep(for: .seconds(2))
        progress.cancel()
        // Each second of the load's CPU, by process, for the report's timeline.
        let snapshots = [cpuBefore] + (await progress.value).prefix(seconds)
        let cpuBySecond = zip(snapshots, snapshots.dropFirst()).map { $1.cores(since: $0, seconds: 1) }
        watching.cancel()
        await watching.value
        await watcher.close()

        let report = PipelineReport(
            state: ledger.snapshot, start: start, loadStopped: loadStopped, seconds: seconds, rate: rate, connections: connections,
            patients: patients,
            cpu: cpu, cpuBySecond: cpuBySecond)
        Console.write("\n" + report.text)
        if !report.reconciled { throw ExitCode(1) }
    }

    /// A token for every caller of the mix, signed by the development key the stack trusts.
    static func tokens(mix: PipelineMix, issuer: TokenIssuer, lifetime: Int) async throws -> [PipelineCaller: String] {
        var tokens: [PipelineCaller: String] = [:]
        let duration = Duration.seconds(lifetime)
        for patient in 0..<mix.patients {
            tokens[.patient(patient)] = try await issuer.token(for: Identity(subject: mix.patientID(patient), role: .patient), lifetime: duration)
        }
        for institution in 0..<mix.institutions {
            tokens[.institution(institution)] = try await issuer.token(
                for: Identity(subject: "bench-staff", role: .institution, institutionID: mix.institutionID(institution)), lifetime: duration)
        }
        tokens[.operator] = try await issuer.token(for: Identity(subject: "bench-operator", role: .operator), lifetime: duration)
        tokens[.consultant] = try await issuer.token(for: Identity(subject: "bench-consultant", role: .consultant), lifetime: duration)
        return tokens
    }

    /// Registers the run's areas with ingest, then subscribes each area's patients with notification-service (which
    /// knows an area once it has consumed its registration: 404 until then).
    static func setUpEnvironment(mix: PipelineMix, client: HTTPClient, baseURLs: [PipelineService: String], tokens: [PipelineCaller: String])
        async throws
    {
        for area in 0..<mix.areas {
            let status = try await put(
                client, baseURLs[.ingest]! + "/v1/areas/\(mix.areaCode(area))", token: tokens[.operator]!,
                body: #"{"name":"Bench area \#(area)","latitude":38.72,"longitude":-9.14,"timeZone":"UTC"}"#)
            guard status == 200 || status == 201 else { throw ValidationError("registering area \(mix.areaCode(area)) answered \(status)") }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        for area in 0..<mix.areas {
            for patient in mix.subscribers(ofArea: area) {
                let url = baseURLs[.notification]! + "/v1/patients/\(mix.patientID(patient))/environment-subscriptions/\(mix.areaCode(area))"
                while true {
                    let status = try await put(client, url, token: tokens[.patient(patient)]!, body: "{}")
                    if status == 200 || status == 201 { break }
                    guard status == 404, ContinuousClock.now < deadline else {
                        throw ValidationError("subscribing to \(mix.areaCode(area)) answered \(status)")
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    static func put(_ client: HTTPClient, _ url: String, token: String, body: String) async throws -> Int {
        let request = PipelineTraffic.request("PUT", url, token: token, body: ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    static func canRank(client: HTTPClient, baseURL: String, token: String) async -> Bool {
        let request = PipelineTraffic.request(
            "POST", baseURL + "/v1/rankings", token: token, body: ByteBuffer(string: #"{"phenotypes":["\#(PipelineMix.phenotypes[0])"]}"#))
        guard let response = try? await client.execute(request, timeout: .seconds(30)) else { return false }
        _ = try? await response.body.collect(upTo: 4 << 20)
        return response.status.code == 200
    }

    /// One line, rewritten every second until cancelled: accepted events per second (last second and overall),
    /// requests in flight, what has arrived downstream and what is still awaited. Returns the processes' CPU taken at
    /// each of those seconds, for the report's timeline.
    static func progress(ledger: PipelineLedger, traffic: PipelineTraffic, start: ContinuousClock.Instant) async -> [ProcessCPU] {
        var previous = 0
        var snapshots: [ProcessCPU] = []
        var tick = start
        while !Task.isCancelled {
            tick += .seconds(1)
            try? await Task.sleep(until: tick, clock: .continuous)
            snapshots.append(ProcessCPU.snapshot())
            let counters = ledger.counters
            let elapsed = (ContinuousClock.now - start).seconds
            Console.write(
                String(
                    format: "\r%6.0f s  accepted %9d events  %6d/s now  %6.0f/s overall  in flight %4d  downstream %9d  awaited %7d  errors %d   ",
                    elapsed, counters.acceptedEvents, counters.acceptedEvents - previous, Double(counters.acceptedEvents) / elapsed,
                    traffic.inFlight.load(ordering: .relaxed), counters.downstream, counters.awaited, counters.errors))
            previous = counters.acceptedEvents
        }
        return snapshots
    }
}
