import AsyncHTTPClient
import CaretideSchemas
import Foundation
import NIOCore
import NIOHTTP1
import PhenotypeRanking
import Synchronization

/// Sends the mix over HTTP: `lanes` concurrent senders, each with a generator of its own (reproducible for a seed) and
/// its own connection to each service (`LaneHTTP`), held to a total rate of events per second when one is set.
final class PipelineTraffic: Sendable {
    let mix: PipelineMix
    let ledger: PipelineLedger
    let endpoints: [PipelineService: LaneHTTP.Endpoint]
    let tokens: [PipelineCaller: String]
    let pacer: Pacer?
    let diagnosis: Bool
    let tracePrefix: String
    let seed: UInt64
    private let traces = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)

    init(
        mix: PipelineMix, ledger: PipelineLedger, endpoints: [PipelineService: LaneHTTP.Endpoint], tokens: [PipelineCaller: String],
        rate: Int, diagnosis: Bool, tracePrefix: String, seed: UInt64
    ) {
        self.mix = mix
        self.ledger = ledger
        self.endpoints = endpoints
        self.tokens = tokens
        self.pacer = rate > 0 ? Pacer(eventsPerSecond: rate) : nil
        self.diagnosis = diagnosis
        self.tracePrefix = tracePrefix
        self.seed = seed
    }

    /// Runs `lanes` senders until `deadline`.
    func run(lanes: Int, until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask { [self] in
                    var generator = SplitMix64(seed: seed &+ UInt64(lane) &* 0x9E37_79B9_7F4A_7C15)
                    var environmentSequence = 0
                    var http = LaneHTTP()
                    // One request of every kind first, dealt among the lanes (lane i takes the kinds i, i + lanes, ...),
                    // then draws by weight: a short run (the tests' few seconds on a busy machine) still sends, and
                    // reconciles, every kind. Not every kind from every lane: 32 lanes then sent 32 reports and 32 UV
                    // readings (320 alerts) within a fraction of a second, once their syncs were paced out, a burst
                    // the mix never sends that made the tail of the run's second second.
                    var firsts = PipelineKind.allCases.filter { $0 != .diagnosis || diagnosis }.enumerated()
                        .filter { $0.offset % lanes == lane }.map(\.element)[...]
                    while ContinuousClock.now < deadline {
                        let kind = firsts.popFirst() ?? mix.kind(using: &generator, diagnosis: diagnosis)
                        let request = mix.request(kind, lane: lane, environmentSequence: environmentSequence, using: &generator)
                        if let pacer, await !pacer.wait(for: request.events, before: deadline) { break }
                        guard ContinuousClock.now < deadline else { break }
                        // An area's next reading only after this one was taken: a refused one changed nothing, and
                        // the next must still alternate with the last one decided.
                        if await send(request, over: &http), kind == .environment { environmentSequence += 1 }
                    }
                    await http.close()
                }
            }
        }
    }

    /// A W3C trace id (32 lowercase hex digits): the run's prefix, then a counter.
    private func nextTrace() -> String {
        let number = traces.wrappingAdd(1, ordering: .relaxed).oldValue
        let digits = String(number, radix: 16)
        return tracePrefix + String(repeating: "0", count: 32 - tracePrefix.count - digits.count) + digits
    }

    /// Sends one request on the lane's connection and records its fate; true when it was accepted.
    @discardableResult
    func send(_ request: PipelineRequest, over http: inout LaneHTTP) async -> Bool {
        let trace = nextTrace()
        let headers = [
            ("Content-Type", "application/json"), ("Authorization", "Bearer \(tokens[request.caller]!)"),
            // The trace id travels with every event the request causes, to the alert on caretide.alerts.
            ("traceparent", "00-\(trace)-00000000000000b1-01"),
        ]
        ledger.sending(request, trace: trace)
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        let sentAt = ContinuousClock.now
        do {
            let response = try await http.send(
                request.method, to: endpoints[request.service]!, path: request.path, headers: headers, body: ByteBuffer(bytes: request.body))
            guard response.status == 200 || response.status == 201 else {
                ledger.refused(request, trace: trace, status: response.status)
                return false
            }
            // A sync answers 200 with a status per change: only recorded ones cause an assessment.
            let recorded = request.kind == .sync ? Self.recordedChanges(response.body) : nil
            ledger.accepted(request, trace: trace, sentAt: sentAt, at: .now, recorded: recorded)
            return true
        } catch {
            ledger.refused(request, trace: trace, status: nil)
            return false
        }
    }

    private struct SyncAnswer: Decodable {
        struct Result: Decodable { let status: String }
        let results: [Result]
    }

    /// The changes of a sync upload its answer says were recorded (0 if the answer cannot be read).
    static func recordedChanges(_ body: ByteBuffer) -> Int {
        let answer = (try? CaretideJSON.parse(body.readableBytesView)).flatMap { try? JSONValueDecoder.decode(SyncAnswer.self, from: $0) }
        return answer?.results.count { $0.status == "recorded" } ?? 0
    }

    /// A JSON request with the caller's bearer token.
    static func request(_ method: String, _ url: String, token: String, body: ByteBuffer) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.body = .bytes(body)
        return request
    }

    /// Holds the senders to a total rate: each takes the next free slot for its events. Slots missed while every
    /// sender was busy are made up, but at most a quarter of a second of them, so the rate asked is the rate sent
    /// without bursts that would measure a different load.
    final class Pacer: Sendable {
        private let interval: Duration
        private let next = Mutex<ContinuousClock.Instant>(.now)
        private static let catchUp = Duration.milliseconds(250)

        init(eventsPerSecond: Int) { interval = .seconds(1) / eventsPerSecond }

        /// Waits for the slot of `events`; false when the slot falls at or after `deadline` (the load is over).
        func wait(for events: Int, before deadline: ContinuousClock.Instant) async -> Bool {
            let slot = next.withLock { next in
                let slot = max(next, .now - Self.catchUp)
                next = slot + interval * events
                return slot
            }
            guard slot < deadline else { return false }
            try? await Task.sleep(until: slot, clock: .continuous)
            return true
        }
    }
}
