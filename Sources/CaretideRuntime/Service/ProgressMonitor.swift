import Foundation
import Synchronization

/// Which workers are stuck: a worker (a consumer lane, the outbox relay) is stalled when it has held one unit of work
/// (a batch to apply, a batch to publish) for longer than the threshold without finishing it. An idle worker is never
/// stalled. Pure state, so every transition is unit-tested; `ProgressMonitor` keeps it behind a lock.
struct ProgressTable: Sendable, Equatable {
    struct Worker: Sendable, Equatable {
        /// When the unit of work in hand was taken; nil while idle.
        var busySince: ContinuousClock.Instant?
        /// When the worker last finished a unit of work (or was registered).
        var lastProgress: ContinuousClock.Instant
        /// How long one unit of work may take before the worker counts as stalled.
        var threshold: Duration
    }

    private(set) var workers: [String: Worker] = [:]

    mutating func register(_ name: String, threshold: Duration, now: ContinuousClock.Instant) {
        if workers[name] == nil { workers[name] = Worker(busySince: nil, lastProgress: now, threshold: threshold) }
    }

    /// The worker took work. A retry of the same work keeps the original start, so a worker that fails over and over
    /// ages until it succeeds.
    /// An unregistered worker is ignored: only registered workers (with their thresholds) are watched.
    mutating func began(_ name: String, now: ContinuousClock.Instant) {
        guard var worker = workers[name] else { return }
        if worker.busySince == nil { worker.busySince = now }
        workers[name] = worker
    }

    /// The worker finished its work (its effects are durable) and is idle.
    mutating func finished(_ name: String, now: ContinuousClock.Instant) {
        guard var worker = workers[name] else { return }
        worker.busySince = nil
        worker.lastProgress = now
        workers[name] = worker
    }

    /// Workers busy with one unit of work for longer than their threshold, with how long and the threshold, by name.
    func stalled(now: ContinuousClock.Instant) -> [(name: String, busyFor: Duration, threshold: Duration)] {
        workers.compactMap { name, worker in
            guard let since = worker.busySince, now - since > worker.threshold else { return nil }
            return (name, now - since, worker.threshold)
        }.sorted { $0.name < $1.name }
    }
}

/// The live `ProgressTable` of one service: written by its lanes and relay, read by `/readyz` and `/metrics`.
public final class ProgressMonitor: Sendable {
    private let table = Mutex(ProgressTable())
    /// How long one unit of work may take before a worker counts as stalled, unless it registers with a longer one.
    public let threshold: Duration
    /// Wall-clock time of each worker's last progress, for the metric (Prometheus compares it with `time()`).
    private let lastProgressWallClock = Mutex<[String: Date]>([:])

    public init(threshold: Duration) {
        self.threshold = threshold
    }

    /// Starts watching a worker; `minimumThreshold` raises the threshold for one whose work is long by nature (a
    /// lane of diagnosis-service, whose imports run for tens of seconds).
    public func register(_ name: String, minimumThreshold: Duration? = nil) {
        let threshold = max(threshold, minimumThreshold ?? threshold)
        table.withLock { $0.register(name, threshold: threshold, now: .now) }
        lastProgressWallClock.withLock { $0[name] = $0[name] ?? Date() }
    }

    public func began(_ name: String) { table.withLock { $0.began(name, now: .now) } }

    public func finished(_ name: String) {
        table.withLock { $0.finished(name, now: .now) }
        lastProgressWallClock.withLock { $0[name] = Date() }
    }

    /// Stalled workers as readiness problems, e.g. "consumer lane 2 has been applying one batch for 75 s".
    public func problems() -> [String] {
        table.withLock { $0.stalled(now: .now) }.map { name, busyFor, threshold in
            // bounded: whole seconds of Durations this process measured and configured.
            "\(name) has not finished its work in hand for \(Int(busyFor.seconds)) s (threshold \(Int(threshold.seconds)) s)"
        }
    }

    /// Each worker's seconds busy with its work in hand (0 when idle) and the Unix time of its last progress.
    func snapshot() -> [(name: String, busySeconds: Double, lastProgress: Date)] {
        let now = ContinuousClock.now
        let workers = table.withLock { $0.workers }
        let wall = lastProgressWallClock.withLock { $0 }
        return workers.keys.sorted().map { name in
            let busy = workers[name]!.busySince.map { (now - $0).seconds } ?? 0
            return (name, busy, wall[name] ?? Date())
        }
    }
}
