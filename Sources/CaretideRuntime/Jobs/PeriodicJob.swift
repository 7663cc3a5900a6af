import Logging
public import ServiceLifecycle

/// Work a service repeats on a timer (purging tombstones, releasing delayed reports, forgetting old idempotency keys):
/// once the schema is migrated, `round` runs every `interval`, and again at once while it reports a full batch. A
/// failed round is logged and retried at the next one; a graceful shutdown ends the wait. Every completed round is
/// counted (`caretide_periodic_job_rounds_total`), so a job that stopped running shows, and a test can wait for a
/// round instead of sleeping.
public struct PeriodicJob: Service {
    let name: String
    let interval: Duration
    /// A round that handled this many items runs again without waiting (nil: never).
    let fullBatch: Int?
    let readiness: ReadinessState
    let metrics: ServiceMetrics
    let logger: Logger
    /// One round; returns how many items it handled.
    let round: @Sendable () async throws -> Int

    public init(
        name: String, interval: Duration, fullBatch: Int? = nil, context: ServiceContext, round: @escaping @Sendable () async throws -> Int
    ) {
        self.init(
            name: name, interval: interval, fullBatch: fullBatch, readiness: context.readiness, metrics: context.metrics, logger: context.logger,
            round: round)
    }

    /// For the runtime's own jobs, which run before a service context exists.
    init(
        name: String, interval: Duration, fullBatch: Int? = nil, readiness: ReadinessState, metrics: ServiceMetrics, logger: Logger,
        round: @escaping @Sendable () async throws -> Int
    ) {
        self.name = name
        self.interval = interval
        self.fullBatch = fullBatch
        self.readiness = readiness
        self.metrics = metrics
        self.logger = logger
        self.round = round
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            guard await readiness.waitUntilMigrated(unless: { Task.isCancelled }) else { return }
            while !Task.isCancelled {
                do {
                    var handled = 0
                    repeat {
                        handled = try await round()
                        if handled > 0 { logger.info("periodic job round", metadata: [LogKey.job: "\(name)", LogKey.count: "\(handled)"]) }
                        metrics.periodicJobRound(name)
                    } while handled == fullBatch && !Task.isCancelled
                } catch  where Task.isCancelled {
                    // Shutting down: the round was cut short, not failed.
                    return
                } catch {
                    logger.warning(
                        "periodic job failed; retrying at the next round", metadata: error.logMetadata.merging([LogKey.job: "\(name)"]) { $1 })
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
