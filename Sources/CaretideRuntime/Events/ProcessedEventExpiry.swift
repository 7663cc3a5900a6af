import CaretideStore
import Foundation
import Logging

/// Forgets the events a service's consumers applied longer ago than the retention: without it `processed_events`
/// grows by a row for every event consumed, for ever. A claim older than every consumed topic's retention guards
/// against nothing, since the event cannot be delivered again.
enum ProcessedEventExpiry {
    /// Claims deleted in one statement, so that a first round over a large backlog holds no long transaction.
    static let batchSize = 10_000

    /// Every hour, and again at once while a round finds a full batch.
    static func job(retention: Duration, database: Database, readiness: ReadinessState, metrics: ServiceMetrics, logger: Logger) -> PeriodicJob {
        PeriodicJob(
            name: "processed event expiry", interval: .seconds(3600), fullBatch: batchSize, readiness: readiness, metrics: metrics, logger: logger
        ) {
            let cutoff = Date().addingTimeInterval(-TimeInterval(retention.components.seconds))
            return try await ProcessedEvents.forget(processedBefore: cutoff, limit: batchSize, database: database, logger: logger)
        }
    }
}
